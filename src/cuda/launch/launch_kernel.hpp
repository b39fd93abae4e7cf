#pragma once
// Every kernel launch of the CUDA backend goes through launch_kernel, so that a plan can load its
// kernels when it is made: CUDA loads modules and kernels lazily (the default since CUDA 12.2),
// and the first launch of a kernel from triax's largest module took 6-9 ms on the H100, inside
// the caller's first solve. While a KernelRehearsal is alive on the calling thread, launch_kernel
// loads the kernel (cudaFuncGetAttributes) instead of launching it; the plan runs its algorithm
// once per solve mode that way (launch/cuda_plan.cu).
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "cuda/cuda_check.hpp"

namespace triax::detail::cuda {

class KernelRehearsal {
 public:
  KernelRehearsal() : previous_(flag()) { flag() = true; }
  ~KernelRehearsal() { flag() = previous_; }
  KernelRehearsal(const KernelRehearsal&) = delete;
  KernelRehearsal& operator=(const KernelRehearsal&) = delete;
  static bool active() { return flag(); }

 private:
  static bool& flag() {
    thread_local bool on = false;
    return on;
  }
  bool previous_;
};

/// Loads a kernel without running it (cudaFuncGetAttributes loads it under lazy loading).
template <class... Params>
void load_kernel(void (*kernel)(Params...)) {
  cudaFuncAttributes attributes{};
  TRIAX_CUDA_CHECK(cudaFuncGetAttributes(&attributes, reinterpret_cast<const void*>(kernel)));
}

/// kernel<<<grid, block, smem, stream>>>(args...) with the launch checked; under a
/// KernelRehearsal, only loads the kernel.
template <class... Params, class... Args>
void launch_kernel(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem,
                   cudaStream_t stream, Args&&... args) {
  if (KernelRehearsal::active()) {
    load_kernel(kernel);
    return;
  }
  kernel<<<grid, block, smem, stream>>>(std::forward<Args>(args)...);
  TRIAX_CUDA_CHECK_LAUNCH();
}

/// The same with the grid's blocks in thread-block clusters of 1 x cluster_y x 1 (Hopper).
template <class... Params, class... Args>
void launch_cluster_kernel(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem,
                           cudaStream_t stream, unsigned cluster_y, Args&&... args) {
  if (KernelRehearsal::active()) {
    load_kernel(kernel);
    return;
  }
  cudaLaunchConfig_t launch{};
  launch.gridDim = grid;
  launch.blockDim = block;
  launch.dynamicSmemBytes = smem;
  launch.stream = stream;
  cudaLaunchAttribute cluster[1];
  cluster[0].id = cudaLaunchAttributeClusterDimension;
  cluster[0].val.clusterDim.x = 1;
  cluster[0].val.clusterDim.y = cluster_y;
  cluster[0].val.clusterDim.z = 1;
  launch.attrs = cluster;
  launch.numAttrs = 1;
  TRIAX_CUDA_CHECK(cudaLaunchKernelEx(&launch, kernel, std::forward<Args>(args)...));
}

}  // namespace triax::detail::cuda
