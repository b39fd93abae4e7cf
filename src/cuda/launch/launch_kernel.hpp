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

/// Lets `kernel` launch with `bytes` of dynamic shared memory: past the 48 KiB any kernel may
/// take, a kernel must opt in to its size (cudaFuncAttributeMaxDynamicSharedMemorySize).
inline void allow_shared_memory(const void* kernel, std::size_t bytes) {
  if (bytes <= 48 * 1024) return;
  TRIAX_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(bytes)));
}
template <class... Params>
void allow_shared_memory(void (*kernel)(Params...), std::size_t bytes) {
  allow_shared_memory(reinterpret_cast<const void*>(kernel), bytes);
}

/// Lets `kernel` launch in clusters of `blocks` blocks: past 8, Hopper's portable most, a kernel
/// launches (and the cluster occupancy query answers) only once it allows non-portable sizes (16 on
/// the H100 and H200).
inline void allow_cluster_blocks(const void* kernel, unsigned blocks) {
  if (blocks <= 8) return;
  TRIAX_CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
}
template <class... Params>
void allow_cluster_blocks(void (*kernel)(Params...), unsigned blocks) {
  allow_cluster_blocks(reinterpret_cast<const void*>(kernel), blocks);
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

/// A launch configuration whose grid runs in thread-block clusters of 1 x cluster_y x 1 (Hopper),
/// for cudaLaunchKernelEx and the cluster occupancy query alike. Neither copied nor moved: the
/// configuration points at the attribute it holds.
class ClusterLaunch {
 public:
  ClusterLaunch(dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream, unsigned cluster_y) {
    attribute_.id = cudaLaunchAttributeClusterDimension;
    attribute_.val.clusterDim.x = 1;
    attribute_.val.clusterDim.y = cluster_y;
    attribute_.val.clusterDim.z = 1;
    config_.gridDim = grid;
    config_.blockDim = block;
    config_.dynamicSmemBytes = smem;
    config_.stream = stream;
    config_.attrs = &attribute_;
    config_.numAttrs = 1;
  }
  ClusterLaunch(const ClusterLaunch&) = delete;
  ClusterLaunch& operator=(const ClusterLaunch&) = delete;
  const cudaLaunchConfig_t* config() const { return &config_; }

 private:
  cudaLaunchAttribute attribute_{};
  cudaLaunchConfig_t config_{};
};

/// launch_kernel with the grid's blocks in thread-block clusters of 1 x cluster_y x 1.
template <class... Params, class... Args>
void launch_cluster_kernel(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem,
                           cudaStream_t stream, unsigned cluster_y, Args&&... args) {
  if (KernelRehearsal::active()) {
    load_kernel(kernel);
    return;
  }
  allow_cluster_blocks(kernel, cluster_y);
  const ClusterLaunch launch(grid, block, smem, stream, cluster_y);
  TRIAX_CUDA_CHECK(cudaLaunchKernelEx(launch.config(), kernel, std::forward<Args>(args)...));
}

}  // namespace triax::detail::cuda
