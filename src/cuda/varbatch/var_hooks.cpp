// VarLayout's arrays in device memory: copied to the host once, when the layout is made (the
// plans order and partition the systems on the host).
#include <cuda_runtime.h>

#include "core/backend_plan.hpp"
#include "core/var_problem.hpp"
#include "cuda/cuda_check.hpp"

namespace triax::detail {

std::vector<std::int64_t> host_values(std::span<const std::int64_t> values) {
  if (values.empty() || memory_space_of(values.data()) != MemorySpace::device) {
    return {values.begin(), values.end()};
  }
  std::vector<std::int64_t> host(values.size());
  TRIAX_CUDA_CHECK(cudaMemcpy(host.data(), values.data(), values.size() * sizeof(std::int64_t),
                              cudaMemcpyDeviceToHost));
  return host;
}

}  // namespace triax::detail
