#pragma once
// Reads of rows along axes >= 1, where a block reads each row as a run of S neighbouring systems
// (64 or 128 bytes) and the next block reads the next run of the same row. In float these loads
// ask the L2 to fetch 128 bytes around the address on a miss (PTX .L2::128B), so one DRAM access
// serves both runs: on the H100 that gained 0.3-3.7 points of the copy in float (512^3 along z
// 83.9 -> 87.6, n = 1024 along z 67.9 -> 69.8) and lost up to 5 in double (256x128x512 along z
// 81.6 -> 76.7), where the default stays (docs/algorithms.md, "L2 fetch size"). The pipelined
// kernel's 16-byte copies (copy_16_async) fetch 128 bytes in both precisions: in double that
// gained 1-19 points of the copy at n = 512 (512x256x512 along z 70 -> 89).
#include <cuda_pipeline_primitives.h>
#include <cuda_runtime.h>

namespace triax::detail::cuda {

/// Whether loads of T fetch 128 bytes into the L2.
template <class T>
constexpr bool wide_l2_fetch = sizeof(T) == 4;

/// One element of a row from global memory.
template <class T>
__device__ __forceinline__ T load_row(const T* p) {
  if constexpr (wide_l2_fetch<T>) {
    T v;
    asm("ld.global.L2::128B.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
  } else {
    return *p;
  }
}

/// One element of a row into shared memory, asynchronously (cp.async; __pipeline_commit and
/// __pipeline_wait_prior complete it).
template <class T>
__device__ __forceinline__ void copy_row_async(T* dst, const T* src) {
  if constexpr (wide_l2_fetch<T>) {
    const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], %2;" ::"r"(d), "l"(src),
                 "n"(sizeof(T)));
  } else {
    __pipeline_memcpy_async(dst, src, sizeof(T));
  }
}

/// 16 bytes into shared memory, asynchronously, past the L1 (cp.async.cg), fetching 128 bytes
/// into the L2 on a miss in either precision; both addresses 16-byte aligned. `dst` is a
/// shared-space address (a 32-bit offset in the block's shared memory).
__device__ __forceinline__ void copy_16_async_to(unsigned dst, const void* src) {
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;" ::"r"(dst), "l"(src));
}

/// The same to a generic pointer into shared memory.
template <class T>
__device__ __forceinline__ void copy_16_async(T* dst, const T* src) {
  copy_16_async_to(static_cast<unsigned>(__cvta_generic_to_shared(dst)), src);
}

/// One 16-byte piece of the rows a warp stages for its own G = 32 / S chunks (the staged and
/// pipelined kernels' per-warp layout: row k of the warp's chunks fills one line of 32 elements,
/// chunk jj's S systems at jj S): piece i of the M * 32 / V a warp copies per operand is row k
/// of its chunk jj, elements piece .. piece + V - 1 of the run.
struct WarpPiece {
  int k, jj, piece;
  /// Its place in the staging space of the warp's chunks, whose first line is warp * M.
  __device__ __forceinline__ int at(int warp, int M, int S) const {
    return (warp * M + k) * 32 + jj * S + piece;
  }
};

template <class T>
__device__ __forceinline__ WarpPiece warp_piece(int i, int S) {
  constexpr int V = 16 / static_cast<int>(sizeof(T));
  constexpr int per_k = 32 / V;
  const int pieces = S / V;
  return {i / per_k, (i % per_k) / pieces, (i % pieces) * V};
}

}  // namespace triax::detail::cuda
