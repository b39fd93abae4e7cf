#pragma once
// Padded storage with a row stride other than 1 (Full-Interleaved: row i of system s at
// i count + s; any strided layout), systems of up to staged_rows rows, outside checked mode: a
// block takes a tile of G neighbouring systems and each of its G warps solves one of them in
// its stage (staged_warp.cuh), so that each value is read once and written once (the per-thread
// kernel's c' and d' round trip made 9 accesses per row of 5, at 6 warps per SM where 25600
// systems give 200 blocks of 128 threads: 7.7-10.5x the fixed batch's time on the H200).
// Loads and stores go across the tile: consecutive threads take the G systems of one row, then
// the next rows, so that on Full-Interleaved each row's G values are one 32-byte sector
// (G = 8 floats or 4 doubles) and a warp's instruction reads 32 / G such sectors. Each thread
// stops at its own system's length (NCP: nothing past it is read or written).
#include <cuda_runtime.h>

#include <cstdint>

#include "core/problem.hpp"
#include "cuda/scalar/block/global_loads.cuh"
#include "cuda/varbatch/staged_warp.cuh"

namespace triax::detail::cuda {

template <class T>
inline constexpr int tile_systems = 32 / static_cast<int>(sizeof(T));  // one sector per row
/// One system's stage (4 arrays) plus one element, so that the G stages start in different
/// banks: the G threads storing one row's values into their systems' stages do not conflict.
inline constexpr int tile_stage_stride = 4 * stage_size + 1;
template <class T>
inline constexpr std::size_t tile_smem_bytes = std::size_t(tile_systems<T>) * tile_stage_stride *
                                               sizeof(T);

template <class T, bool Accumulate>
__global__ void __launch_bounds__(tile_systems<T>* stage_warp)
    var_tile_staged_kernel(Problem p, Operands<T> ops, const std::int64_t* __restrict__ lengths,
                           std::int64_t count, std::int64_t bound) {
  constexpr int G = tile_systems<T>;
  constexpr int rows_per_pass = stage_warp;  // the block's threads / G
  extern __shared__ __align__(16) unsigned char tile_smem[];
  T* smem = reinterpret_cast<T*>(tile_smem);
  const auto stage_of = [&](int g) {
    T* base = smem + g * tile_stage_stride;
    return Stage<T>{base, base + stage_size, base + 2 * stage_size, base + 3 * stage_size};
  };
  const int lane = threadIdx.x % stage_warp, wib = threadIdx.x / stage_warp;
  // Loads and stores: this thread's system g of the tile, its rows r0, r0 + 32, ...
  const int g = threadIdx.x % G, r0 = threadIdx.x / G;
  const Stage<T> mine = stage_of(g), solved = stage_of(wib);
  const std::int64_t rs[operand_count] = {p.map[op_a].row_stride, p.map[op_b].row_stride,
                                          p.map[op_c].row_stride, p.map[op_d].row_stride,
                                          p.map[op_x].row_stride};
  for (std::int64_t tile = blockIdx.x; tile * G < count; tile += gridDim.x) {
    const std::int64_t s = tile * G + g;
    // Clamped to the plan's bound: lengths passed per solve in device memory are not checked.
    const auto length_of = [&](std::int64_t sys) {
      return sys < count ? static_cast<int>(min(max(lengths[sys], std::int64_t(0)), bound)) : 0;
    };
    const int n = length_of(s);
    std::int64_t off[operand_count] = {};
    if (n > 0) {
#pragma unroll
      for (int op = 0; op < operand_count; ++op) off[op] = p.system_offset(op, s);
    }
    const Chunks chunks(n);
#pragma unroll 4
    for (int i = r0; i < n; i += rows_per_pass) {
      const int e = chunks.at(i);
      mine.a[e] = i > 0 ? load_row(ops.a + off[op_a] + i * rs[op_a]) : T(0);  // a[0] never read
      mine.b[e] = load_row(ops.b + off[op_b] + i * rs[op_b]);
      mine.c[e] = i + 1 < n ? load_row(ops.c + off[op_c] + i * rs[op_c]) : T(0);  // nor c[n-1]
      mine.d[e] = load_row(ops.d + off[op_d] + i * rs[op_d]);
    }
    __syncthreads();
    const std::int64_t sw = tile * G + wib;
    const int nw = length_of(sw);
    if (nw > 0) stage_solve(solved, Chunks(nw), lane);
    __syncthreads();
#pragma unroll 4
    for (int i = r0; i < n; i += rows_per_pass) {
      T* x = ops.x + off[op_x] + i * rs[op_x];
      const T v = mine.d[chunks.at(i)];
      *x = Accumulate ? *x + v : v;
    }
    __syncthreads();  // the next tile overwrites the stages
  }
}

}  // namespace triax::detail::cuda
