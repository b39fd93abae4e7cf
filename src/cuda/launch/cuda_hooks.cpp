// The CUDA backend's answers to core's device hooks (core/backend_plan.hpp): which memory a
// pointer lives in, and that CUDA is built. make_cuda_plan is in cuda_plan.cu.
#include <cuda_runtime.h>

#include "core/backend_plan.hpp"

namespace triax::detail {

MemorySpace memory_space_of(const void* pointer) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
    // No device, no driver, or a pointer CUDA does not know: host memory for our purposes.
    // Clear the error so that it does not surface at the caller's next CUDA call.
    (void)cudaGetLastError();
    return MemorySpace::host;
  }
  switch (attributes.type) {
    case cudaMemoryTypeDevice: return MemorySpace::device;
    case cudaMemoryTypeManaged: return MemorySpace::unknown;  // reachable from both sides
    default: return MemorySpace::host;                        // registered or unregistered host
  }
}

bool cuda_compiled() { return true; }

}  // namespace triax::detail
