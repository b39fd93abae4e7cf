#pragma once
// What the current device holds, asked of the runtime once and kept: the kernels' launch shapes
// are chosen at every solve, and the runtime's queries cost microseconds there.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "cuda/cuda_check.hpp"

namespace triax::detail::cuda {

/// An attribute of the current device, read once per device; 0 without a device.
template <cudaDeviceAttr Attr>
inline int device_attribute() {
  constexpr int max_devices = 64;
  static std::atomic<int> known[max_devices];  // value + 1; 0: not read yet
  int device = 0, v = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return 0;
  if (device >= 0 && device < max_devices) {
    const int k = known[device].load(std::memory_order_relaxed);
    if (k != 0) return k - 1;
  }
  if (cudaDeviceGetAttribute(&v, Attr, device) != cudaSuccess) return 0;
  if (device >= 0 && device < max_devices) known[device].store(v + 1, std::memory_order_relaxed);
  return v;
}

/// SMs of the current device (132, an H100's, without one: host-side callers only size things).
inline int sm_count() {
  const int v = device_attribute<cudaDevAttrMultiProcessorCount>();
  return v > 0 ? v : 132;
}

/// Blocks of Kernel an SM holds at once with this block and shared memory size, at least 1. The
/// occupancy query runs once per kernel, device and shape (the last one is kept), not at every
/// solve; each kernel has its own cache, since kernels of one signature differ in registers.
template <auto Kernel>
int blocks_per_sm(int threads, std::size_t smem) {
  static std::atomic<std::uint64_t> known{0};  // device | threads | smem | blocks; 0: none
  int device = 0;
  TRIAX_CUDA_CHECK(cudaGetDevice(&device));
  const std::uint64_t key = (std::uint64_t(device) << 48) | (std::uint64_t(threads) << 32) |
                            (std::uint64_t(smem) << 8);
  const std::uint64_t k = known.load(std::memory_order_relaxed);
  if (k != 0 && (k & ~std::uint64_t(0xff)) == key) return static_cast<int>(k & 0xff);
  int per_sm = 0;
  TRIAX_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Kernel, threads, smem));
  per_sm = std::clamp(per_sm, 1, 255);
  known.store(key | std::uint64_t(per_sm), std::memory_order_relaxed);
  return per_sm;
}

}  // namespace triax::detail::cuda
