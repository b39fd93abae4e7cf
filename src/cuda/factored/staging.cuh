#pragma once
// Moving a block's group of systems between global memory and its working rows (shared memory or
// a global workspace) with many loads in flight per thread: the factored kernels' staging loops.
//
// Why batched: a loop that loads one value and stores it to shared memory before the next load
// keeps one load in flight per thread (the store waits for it), so a block of 256 threads that
// stages 32 systems of 128 rows waited for 16-32 global latencies in a row; on the H200 that was
// most of the staged Thomas kernel's time (docs/notes/2026-11-27-toeplitz.md). Here each thread
// issues `Batch` independent loads before it stores any of them.

#include <cstdint>

namespace triax::detail::cuda_factored {

/// Calls put(i, j, get(i, j)) for every row i < n of every lane j < valid of a block's group of
/// 2^shift lanes, spread over the block so that a warp's global accesses are contiguous: along
/// rows where rows_fast (element e is row e % n of lane e / n), else along lanes (row e >> shift
/// of lane e & (lanes - 1)). The gets of `Batch` elements are issued before any put.
template <int Batch, class Get, class Put>
__device__ inline void stage_elements(std::int64_t n, int shift, int valid, bool rows_fast,
                                      Get&& get, Put&& put) {
  using V = decltype(get(std::int64_t(0), 0));
  const std::int64_t lanes = std::int64_t(1) << shift;
  const std::int64_t total = rows_fast ? n * valid : n << shift;
  const std::int64_t step = blockDim.x;
  // Element e's row and lane (recomputed for the puts rather than held: registers bound the
  // blocks an SM keeps, and the kernels are bandwidth-bound).
  auto where = [&](std::int64_t e, std::int64_t& row, int& lane) {
    if (rows_fast) {
      lane = static_cast<int>(e / n);
      row = e - lane * n;
    } else {
      lane = static_cast<int>(e & (lanes - 1));
      row = e >> shift;
    }
  };
  for (std::int64_t base = threadIdx.x; base < total; base += Batch * step) {
    V v[Batch];
#pragma unroll
    for (int u = 0; u < Batch; ++u) {
      const std::int64_t e = base + u * step;
      std::int64_t row;
      int lane;
      where(e, row, lane);
      if (e < total && lane < valid) v[u] = get(row, lane);
    }
#pragma unroll
    for (int u = 0; u < Batch; ++u) {
      const std::int64_t e = base + u * step;
      std::int64_t row;
      int lane;
      where(e, row, lane);
      if (e < total && lane < valid) put(row, lane, v[u]);
    }
  }
}

}  // namespace triax::detail::cuda_factored
