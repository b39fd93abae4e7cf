#pragma once
// Arithmetic-free bounds for triax-bench-factored: kernels that read d and write x in the order
// and the launch shapes of the factored solves, so that a row can say how far a solve is from
// the best its access pattern allows, beside the copy (which reads and writes contiguously).
//   sweep: one thread per system walking its rows in order (the Thomas kernels' pattern along
//          y and z; along x it is the uncoalesced pattern the tiles exist to avoid);
//   tile:  a block stages its group of systems through shared memory and writes them back (the
//          CR shared-memory kernel's and the staged kernel's pattern, every axis).
#include <cstdint>

#include "cuda/factored/staging.cuh"

namespace triax::bench::factored {

/// A packed grid along one axis: n rows at row_stride; system s = c0 + e0 * c1 starts at
/// c0 * s0 + c1 * s1 (the two other dimensions, fastest first; e0 = 1 and s1 = n for 2-D).
struct BoundGrid {
  std::int64_t n, count, row_stride, e0, s0, s1;
  __device__ std::int64_t offset(std::int64_t s) const { return (s % e0) * s0 + (s / e0) * s1; }
};

template <class T>
__global__ void sweep_bound(BoundGrid g, const T* d, T* x) {
  const std::int64_t s = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (s >= g.count) return;
  const std::int64_t o = g.offset(s);
  // 8 loads in flight a thread, as the solves' staging has.
  for (std::int64_t i0 = 0; i0 < g.n; i0 += 8) {
    T v[8];
#pragma unroll
    for (int u = 0; u < 8; ++u) {
      if (i0 + u < g.n) v[u] = d[o + (i0 + u) * g.row_stride];
    }
#pragma unroll
    for (int u = 0; u < 8; ++u) {
      if (i0 + u < g.n) x[o + (i0 + u) * g.row_stride] = v[u];
    }
  }
}

template <class T>
__global__ void tile_bound(BoundGrid g, const T* d, T* x, int shift) {
  extern __shared__ __align__(16) unsigned char bound_raw[];
  __shared__ std::int64_t off[32];
  T* tile = reinterpret_cast<T*>(bound_raw);
  const int lanes = 1 << shift, pitch = lanes == 1 ? 1 : lanes + 1;
  const std::int64_t s0 = blockIdx.x * std::int64_t(lanes);
  const int valid = static_cast<int>(g.count - s0 < lanes ? g.count - s0 : lanes);
  if (threadIdx.x < valid) off[threadIdx.x] = g.offset(s0 + threadIdx.x);
  __syncthreads();
  const std::int64_t rs = g.row_stride;
  triax::detail::cuda_factored::stage_elements<8>(
      g.n, shift, valid, rs == 1, [&](std::int64_t i, int j) { return d[off[j] + i * rs]; },
      [&](std::int64_t i, int j, T v) { tile[i * pitch + j] = v; });
  __syncthreads();
  triax::detail::cuda_factored::stage_elements<8>(
      g.n, shift, valid, rs == 1, [&](std::int64_t i, int j) { return tile[i * pitch + j]; },
      [&](std::int64_t i, int j, T v) { x[off[j] + i * rs] = v; });
}

}  // namespace triax::bench::factored
