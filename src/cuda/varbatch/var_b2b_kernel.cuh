#pragma once
// Back-to-back variable batches (systems one after another, system s's row i at element
// offsets[s] + i of every operand) on the fixed batch's axis-0 hybrid structure (varb2b, issue
// 31): P chunk threads per system, each holding a chunk of at most M rows in registers, S = 256
// / P systems a block (hybrid_kernel.cuh's chunk_fastest mapping with vector staging). What
// differs from the fixed kernel is per system: its base offset (any alignment) and its length,
// read from one 16-byte entry per thread; its rows are cut into chunks as the fixed kernel cuts
// n rows, and a group of min(P, 32) lanes reads its chunks' run [R0, R1) with 16-byte vectors
// in the aligned body and single elements at the run's ends (RunShare): nothing past a length,
// and nothing of a neighbour, is read or written. Chunks past a short system's rows are empty
// (identity pairs in the reduced system).
//
// Why not the staged warp-per-system kernel (var_thread_thomas.cu) it replaces there: that one
// loads a system, then solves it with no loads in flight, 46-53% of the copy on the H100. Here,
// as in the fixed batch at n = 512 on Flat storage (97-99% of the copy), every thread has its
// 4 M values in flight at once and three (float) or two (double) blocks per SM overlap each
// other's phases.
//
// The per-warp staging space holds one operand at a time (the four arrive in registers first,
// all in flight together, and pass through the space one after the other): a quarter of the
// fixed kernel's shared memory, so double blocks need no opt-in beyond 48 KiB.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/var_b2b_classes.hpp"
#include "cuda/scalar/block/hybrid_kernel.cuh"
#include "cuda/scalar/block/long_tile.cuh"

namespace triax::detail::cuda {

constexpr int b2b_threads = 256;
constexpr int b2b_warps = b2b_threads / 32;

/// Shared memory of the kernel, in elements of T: per warp one staging array of 32 M rows,
/// then (P > 32) the four arrays of the block's reduced systems.
template <class T, int M, int P>
struct B2BSmem {
  static constexpr int S = b2b_threads / P;
  static constexpr int stage = padded_size<T>(32 * M);
  static constexpr int sys_stride = 2 * P + 1;
  static constexpr int reduced_size = P > 32 ? padded_size<T>(S * sys_stride) : 0;
  static constexpr std::size_t bytes =
      (std::size_t(b2b_warps) * stage + 4 * std::size_t(reduced_size)) * sizeof(T);
};

/// The staged values of operand `op` of the group's run into registers, for this thread's
/// chunk rows k < L (others get the identity's values: never used, but defined).
template <class T, int M>
__device__ __forceinline__ void b2b_take(const T* st, int from, int L, T fill, T (&out)[M]) {
#pragma unroll
  for (int k = 0; k < M; ++k) out[k] = k < L ? st[padded<T>(from + k)] : fill;
}

/// Rows [R0, R1) of one system's operands at `offset` (a group of GW lanes, gi this lane's index,
/// gbase the group's first staging slot) into this thread's chunk registers, rows `from` ..
/// `from` + L - 1 of the run. The four operands' shares are in flight together, then pass through
/// the warp's staging space one operand at a time. a of the run's row 0 and c of its last row
/// arrive with their vectors: the caller drops them where they are the system's ends.
template <class T, int M>
__device__ __forceinline__ void b2b_load_rows(const Operands<T>& ops, std::int64_t offset, int R0,
                                              int R1, int gi, int GW, int gbase, int from, int L,
                                              bool valid, T* stage, RegisterRows<T, M>& rows) {
  RunShare<T, M> sa, sb, sc, sd;
  sa.load(ops.a + offset, R0, R1, gi, GW, valid);
  sb.load(ops.b + offset, R0, R1, gi, GW, valid);
  sc.load(ops.c + offset, R0, R1, gi, GW, valid);
  sd.load(ops.d + offset, R0, R1, gi, GW, valid);
  sa.stage(stage, gbase, gi, GW);
  __syncwarp();
  b2b_take<T, M>(stage, from, L, T(0), rows.a);
  __syncwarp();
  sb.stage(stage, gbase, gi, GW);
  __syncwarp();
  b2b_take<T, M>(stage, from, L, T(1), rows.b);
  __syncwarp();
  sc.stage(stage, gbase, gi, GW);
  __syncwarp();
  b2b_take<T, M>(stage, from, L, T(0), rows.c);
  __syncwarp();
  sd.stage(stage, gbase, gi, GW);
  __syncwarp();
  b2b_take<T, M>(stage, from, L, T(0), rows.d);
  __syncwarp();
}

/// Solves `systems` entries (at most `bound` rows each; lengths clamped to 0 .. bound) in place
/// of d or into x (added to x where Accumulate); P chunk threads of M rows per system.
template <class T, int M, int P, bool Accumulate>
__global__ void __launch_bounds__(b2b_threads, sizeof(T) == 4 ? 3 : 2)
    var_b2b_kernel(Operands<T> ops, const B2BEntry* __restrict__ entries, std::int64_t systems,
                   std::int64_t bound) {
  static_assert(P >= 4 && P <= b2b_threads && (P & (P - 1)) == 0, "P: a power of two, 4..256");
  using Lay = B2BSmem<T, M, P>;
  constexpr int S = Lay::S;
  constexpr int GW = P < 32 ? P : 32;  // lanes that read one run together
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  T* stage = reinterpret_cast<T*>(smem_raw) + warp * Lay::stage;
  T* red = reinterpret_cast<T*>(smem_raw) + b2b_warps * Lay::stage;

  const int l = t / P, j = t % P;  // system within the block, chunk within the system
  const std::int64_t q = std::int64_t(blockIdx.x) * S + l;
  const bool valid = q < systems;
  B2BEntry e{0, 0};
  if (valid) e = entries[q];
  const int n = valid ? static_cast<int>(min(max(e.length, std::int64_t(0)), bound)) : 0;
  const B2BChunks ch(n, P);  // core/var_b2b_classes.hpp
  const int r0 = ch.start(j);
  const int L = ch.start(j + 1) - r0;
  // The group's run: its first chunk is j - gi (P <= 32: chunk 0 of the system; else the
  // warp's first chunk, 32 | j - lane).
  const int gi = lane % GW;
  const int gbase = (lane / GW) * GW * M;
  const int R0 = ch.start(j - gi), R1 = ch.start(j - gi + GW);

  RegisterRows<T, M> rows;
  const int from = gbase + (r0 - R0);
  b2b_load_rows<T, M>(ops, e.offset, R0, R1, gi, GW, gbase, from, L, valid, stage, rows);
  if (r0 == 0) rows.a[0] = T(0);
#pragma unroll
  for (int k = 0; k < M; ++k) rows.c[k] = r0 + k == n - 1 ? T(0) : rows.c[k];

  Row<T> first, last;
  chunk_reduce<T>(rows, L, first, last);

  // ---- The reduced system: within the P lanes of a system (P <= 32, shuffles), or through
  // shared memory by the block's warps (every thread of the block takes part either way).
  T x_first = 0, x_last = 0;
  if constexpr (P <= 32) {
    pair_solve(first, last, P, x_first, x_last);
  } else {
    chunk_ends_in_shared<T, Exchange::none>(first, last, l, j, red, Lay::reduced_size,
                                            Lay::sys_stride, P, S, ClusterExchange<T>{}, x_first,
                                            x_last);
  }
  chunk_back<T>(rows, L, x_first, x_last);

  // ---- x through the staging space, out as the run came in.
#pragma unroll
  for (int k = 0; k < M; ++k) {
    if (k < L) stage[padded<T>(from + k)] = rows.d[k];
  }
  __syncwarp();
  store_run<T, M, Accumulate, false>(ops.x + e.offset, R0, R1, gi, GW, gbase, stage, valid);
}

/// Systems longer than B2BPlan::max_rows, a warp per tile of B2BTiles (227..256 rows, 32 chunks
/// of 7 or 8 rows): the fixed hybrid's long path in tiles along axis 0 (long_tile.cuh), per
/// tile. Reduce (Finish false): the tile's chunks reduced, the tile's two equations to rows
/// `reduced` and + 1 of the workspace batch (four planes of `plane` values). Finish: the same
/// chunks reduced again, the tile system solved with its two end values from the workspace's
/// x plane (the reduced batch solved in place), x of every row stored. Each pass reads a, b, c,
/// d once: 9 accesses per row against the copy's 5, as the fixed long path.
template <class T, bool Finish, bool Accumulate>
__global__ void __launch_bounds__(b2b_threads, sizeof(T) == 4 ? 3 : 2)
    var_b2b_tile_kernel(Operands<T> ops, const B2BTile* __restrict__ tiles, std::int64_t count,
                        T* __restrict__ ws, std::int64_t plane) {
  constexpr int M = B2BPlan::M;
  using Lay = B2BSmem<T, M, 32>;
  static_assert(B2BTiles::tile_rows == 32 * M, "a tile is a warp's 32 chunks");
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  T* stage = reinterpret_cast<T*>(smem_raw) + warp * Lay::stage;
  const std::int64_t w = std::int64_t(blockIdx.x) * b2b_warps + warp;
  if (w >= count) return;  // the whole warp: nothing below reaches across warps
  const B2BTile tl = tiles[w];
  const int n = tl.rows;
  const B2BChunks ch(n, 32);
  const int r0 = ch.start(lane);
  const int L = ch.start(lane + 1) - r0;
  RegisterRows<T, M> rows;
  b2b_load_rows<T, M>(ops, tl.offset, 0, n, lane, 32, 0, r0, L, true, stage, rows);
  // Inside a system a tile's a of row 0 and c of its last row couple it to its neighbours.
  if ((tl.flags & 1) != 0 && r0 == 0) rows.a[0] = T(0);
  if ((tl.flags & 2) != 0) {
#pragma unroll
    for (int k = 0; k < M; ++k) rows.c[k] = r0 + k == n - 1 ? T(0) : rows.c[k];
  }
  Row<T> first, last;
  chunk_reduce<T>(rows, L, first, last);
  if constexpr (!Finish) {
    tile_reduce_store(first, last, lane, true, ws, plane, tl.reduced, 1);
  } else {
    T x_first, x_last;
    tile_finish(first, last, lane, true, ws, plane, tl.reduced, 1, x_first, x_last);
    chunk_back<T>(rows, L, x_first, x_last);
#pragma unroll
    for (int k = 0; k < M; ++k) {
      if (k < L) stage[padded<T>(r0 + k)] = rows.d[k];
    }
    __syncwarp();
    store_run<T, M, Accumulate, false>(ops.x + tl.offset, 0, n, lane, 32, 0, stage, true);
  }
}

}  // namespace triax::detail::cuda
