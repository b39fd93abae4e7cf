#pragma once
// Back-to-back variable batches (systems one after another, system s's row i at element
// offsets[s] + i of every operand) on the fixed batch's axis-0 hybrid structure (varb2b, issue
// 31): P chunk threads per system, each holding a chunk of at most M rows in registers, S = 256
// / P systems a block (hybrid_kernel.cuh's chunk_fastest mapping). What differs from the fixed
// kernel is per system: its base offset (any alignment) and its length, read from one 16-byte
// entry per thread; its rows are cut into chunks as the fixed kernel cuts n rows, and a group of
// min(P, 32) lanes copies its chunks' run [R0, R1) into the warp's staging arrays by cp.async
// (run_stage.cuh) and x leaves in 16-byte vectors with single elements at the run's ends
// (store_run): nothing past a length, and nothing of a neighbour, is read or written. Chunks
// past a short system's rows are empty (identity pairs in the reduced system).
//
// Why not the staged warp-per-system kernel (var_thread_thomas.cu) it replaces there: that one
// loads a system, then solves it with no loads in flight, 46-53% of the copy on the H100. Here
// every row of a block is in flight at once and four (float) or two (double) blocks per SM
// overlap each other's phases. The loads went through registers before (16-byte vectors, one
// operand at a time through a quarter of today's staging space): on an H200 the asynchronous
// copies took 0.60-0.75x their time (docs/notes/2026-11-28-session11.md).
//
// var31 (docs/notes/2026-11-28-var31.md): the class kernel in variants (B2BVariant,
// core/var_b2b_classes.hpp: look-ahead of one wave of blocks through the L2)
// and, for each, its arithmetic-free bound (Solve false: the same loads, staging and stores,
// x = a + b + c + d), which the bench times beside the solve (TRIAX_CUDA_VAR_B2B_BOUND=1).
#include <cuda_runtime.h>

#include <cstdint>

#include "core/var_b2b_classes.hpp"
#include "cuda/scalar/block/hybrid_kernel.cuh"
#include "cuda/scalar/block/long_tile.cuh"
#include "cuda/scalar/block/run_stage.cuh"

namespace triax::detail::cuda {

constexpr int b2b_threads = 256;
constexpr int b2b_warps = b2b_threads / 32;

/// Shared memory of the kernel, in elements of T: per warp four staging arrays of 32 M rows (a,
/// b, c, d land together), then (P > 32) the four arrays of the block's reduced systems.
template <class T, int M, int P>
struct B2BSmem {
  static constexpr int S = b2b_threads / P;
  static constexpr int stage = padded_size<T>(32 * M);
  static constexpr int warp_stage = 4 * stage;
  static constexpr int sys_stride = 2 * P + 1;
  static constexpr int reduced_size = P > 32 ? padded_size<T>(S * sys_stride) : 0;
  static constexpr std::size_t bytes =
      (std::size_t(b2b_warps) * warp_stage + 4 * std::size_t(reduced_size)) * sizeof(T);
};

/// Whether a variant asks the L2 for the rows of the block a wave later.
constexpr bool b2b_prefetches(B2BVariant v) { return v == B2BVariant::prefetch; }
/// Blocks per SM that the launch bounds ask for: float as the fixed chunk-major kernel's 8-row
/// chunks (HybridBounds); double 2.
template <class T>
constexpr int b2b_min_blocks() {
  return sizeof(T) != 4 ? 2 : HybridBounds<T, 8, Mapping::chunk_fastest>::min_blocks;
}

/// Rows [R0, R1) of one system's operands at `offset` (a group of GW lanes, gi this lane's index,
/// gbase the group's first staging slot) into this thread's chunk registers, rows `from` ..
/// `from` + L - 1 of the run, through the warp's four staging arrays (run_stage.cuh). a of the
/// run's row 0 and c of its last row are read too (inside the buffer): the caller drops them
/// where they are the system's ends.
template <class T, int M>
__device__ __forceinline__ void b2b_load_rows(const Operands<T>& ops, std::int64_t offset, int R0,
                                              int R1, int gi, int GW, int gbase, int from, int L,
                                              bool valid, T* stage, RegisterRows<T, M>& rows) {
  const StageArrays<T> st(stage, B2BSmem<T, M, 32>::stage);
  stage_run_async<T, M>(st, ops.a + offset, ops.b + offset, ops.c + offset, ops.d + offset, 1, 1, 1,
                        1, R0, R1, R1, gi, GW, gbase, valid, true, true);
  __syncwarp();
  take_chunk<T, M>(st, from, L, valid, false, false, rows);
  __syncwarp();
}

/// The bound's stand-in for a solve (Solve false in the kernels below): x = a + b + c + d per
/// row, so that every loaded value reaches a stored one and no load is dropped, with none of the
/// solve's arithmetic, shuffles or barriers.
template <class T, int M>
__device__ __forceinline__ void b2b_move_only(RegisterRows<T, M>& rows) {
#pragma unroll
  for (int k = 0; k < M; ++k) rows.d[k] += rows.a[k] + rows.b[k] + rows.c[k];
}

/// Asks the L2 for the line holding `p` (PTX prefetch.global.L2), ahead of its loads.
__device__ __forceinline__ void prefetch_l2(const void* p) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}

/// Asks the L2 for the 128-byte lines of rows [R0, R1) of the four operands at `offset` (the
/// group's GW lanes take the lines in turn): B2BVariant::prefetch, for the next tile's run.
template <class T>
__device__ __forceinline__ void b2b_prefetch_run(const Operands<T>& ops, std::int64_t offset,
                                                 int R0, int R1, int gi, int GW) {
  if (R1 <= R0) return;
  constexpr int line = 128;
  const T* base[4] = {ops.a + offset, ops.b + offset, ops.c + offset, ops.d + offset};
#pragma unroll
  for (int op = 0; op < 4; ++op) {
    const auto first = reinterpret_cast<std::uintptr_t>(base[op] + R0) / line;
    const auto last = (reinterpret_cast<std::uintptr_t>(base[op] + R1) - 1) / line;
    for (std::uintptr_t at = first + gi; at <= last; at += GW) {
      prefetch_l2(reinterpret_cast<const void*>(at * line));
    }
  }
}

/// The default of the hook of b2b_tile: nothing.
struct B2BNothing {
  __device__ __forceinline__ void operator()() const {}
};

/// The clamped length of an entry (lengths are plan-time values; clamped all the same).
__device__ __forceinline__ int b2b_rows(const B2BEntry& e, bool valid, std::int64_t bound) {
  return valid ? static_cast<int>(min(max(e.length, std::int64_t(0)), bound)) : 0;
}

/// Where one thread's group reads: its chunk's first row r0 and rows L, the group's run
/// [R0, R1) (its first chunk is j - gi: P <= 32, chunk 0 of the system; else the warp's first,
/// 32 | j - lane).
struct B2BRun {
  int r0, L, R0, R1;
  __device__ __forceinline__ B2BRun(int n, int P, int j, int gi, int GW) {
    const B2BChunks ch(n, P);  // core/var_b2b_classes.hpp
    r0 = ch.start(j);
    L = ch.start(j + 1) - r0;
    R0 = ch.start(j - gi);
    R1 = ch.start(j - gi + GW);
  }
};

/// One tile of the class kernel: system l of the block (entry e, n rows, chunk j of P) solved in
/// place of d or into x (added to x where Accumulate); Solve false: the bound (b2b_move_only).
/// Every thread of the block calls it (P > 32: block barriers inside). `staged()` runs once the
/// rows are in registers (the loads' own registers free again), before the arithmetic.
template <class T, int M, int P, bool Accumulate, bool Solve, class Staged = B2BNothing>
__device__ __forceinline__ void b2b_tile(const Operands<T>& ops, const B2BEntry& e, int n,
                                         bool valid, int l, int j, T* stage, T* red,
                                         Staged staged = {}) {
  using Lay = B2BSmem<T, M, P>;
  constexpr int S = Lay::S;
  constexpr int GW = P < 32 ? P : 32;  // lanes that read one run together
  const int lane = threadIdx.x & 31;
  const int gi = lane % GW;
  const int gbase = (lane / GW) * GW * M;
  const B2BRun run(n, P, j, gi, GW);
  const int L = run.L, r0 = run.r0;

  RegisterRows<T, M> rows;
  const int from = gbase + (r0 - run.R0);
  b2b_load_rows<T, M>(ops, e.offset, run.R0, run.R1, gi, GW, gbase, from, L, valid, stage, rows);
  staged();
  if (r0 == 0) rows.a[0] = T(0);
#pragma unroll
  for (int k = 0; k < M; ++k) rows.c[k] = r0 + k == n - 1 ? T(0) : rows.c[k];

  if constexpr (Solve) {
    Row<T> first, last;
    chunk_reduce<T>(rows, L, first, last);
    // The reduced system: within the P lanes of a system (P <= 32, shuffles), or through shared
    // memory by the block's warps (every thread of the block takes part either way).
    T x_first = 0, x_last = 0;
    if constexpr (P <= 32) {
      (void)red;
      (void)l;
      pair_solve(first, last, P, x_first, x_last);
    } else {
      chunk_ends_in_shared<T, Exchange::none>(first, last, l, j, red, Lay::reduced_size,
                                              Lay::sys_stride, P, S, ClusterExchange<T>{},
                                              x_first, x_last);
    }
    chunk_back<T>(rows, L, x_first, x_last);
  } else {
    (void)red;
    (void)l;
    b2b_move_only<T, M>(rows);
  }

  // x through the staging space, out as the run came in.
#pragma unroll
  for (int k = 0; k < M; ++k) {
    if (k < L) stage[padded<T>(from + k)] = rows.d[k];
  }
  __syncwarp();
  store_run<T, M, Accumulate, false>(ops.x + e.offset, run.R0, run.R1, gi, GW, gbase, stage,
                                     valid);
}

/// Solves `systems` entries (at most `bound` rows each; lengths clamped to 0 .. bound) in place
/// of d or into x (added to x where Accumulate); P chunk threads of M rows per system, S = 256 / P
/// systems a block (a tile), a block per tile. Variant V (B2BVariant): `ahead` and `prefetch`
/// look one wave ahead (`wave`: the blocks the device holds at once; block b + wave starts about
/// when block b ends, on whichever SM frees first, and the L2 serves every SM): `ahead` asks the
/// L2 for that block's entries, `prefetch` also for its rows (and the entries a wave further).
/// Solve false: the arithmetic-free bound of the same kernel.
template <class T, int M, int P, bool Accumulate, B2BVariant V, bool Solve>
__global__ void __launch_bounds__(b2b_threads, b2b_min_blocks<T>())
    var_b2b_kernel(Operands<T> ops, const B2BEntry* __restrict__ entries, std::int64_t systems,
                   std::int64_t bound, std::int64_t wave) {
  static_assert(P >= 4 && P <= b2b_threads && (P & (P - 1)) == 0, "P: a power of two, 4..256");
  using Lay = B2BSmem<T, M, P>;
  constexpr int S = Lay::S;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int t = threadIdx.x, warp = t >> 5;
  T* stage = reinterpret_cast<T*>(smem_raw) + warp * Lay::warp_stage;
  T* red = reinterpret_cast<T*>(smem_raw) + b2b_warps * Lay::warp_stage;
  const int l = t / P, j = t % P;  // system within the tile, chunk within the system
  const std::int64_t q = std::int64_t(blockIdx.x) * S + l;
  const bool valid = q < systems;
  const B2BEntry e = valid ? entries[q] : B2BEntry{0, 0};
  const int n = b2b_rows(e, valid, bound);
  const std::int64_t later = q + wave * S;  // this system's place in the block a wave later
  if constexpr (b2b_prefetches(V)) {
    // The later block's entry, in flight with this one's (no round trip of its own); its rows
    // asked of the L2 once this tile's rows are in registers (the loads' registers free).
    const bool later_valid = later < systems;
    const B2BEntry nx = later_valid ? entries[later] : B2BEntry{0, 0};
    const auto ask = [&] {
      constexpr int GW = P < 32 ? P : 32;
      const int gi = (t & 31) % GW;
      const B2BRun nr(b2b_rows(nx, later_valid, bound), P, j, gi, GW);
      if (later_valid) b2b_prefetch_run(ops, nx.offset, nr.R0, nr.R1, gi, GW);
      if (j == 0 && later + wave * S < systems) prefetch_l2(entries + later + wave * S);
    };
    b2b_tile<T, M, P, Accumulate, Solve>(ops, e, n, valid, l, j, stage, red, ask);
  } else {
    if constexpr (V == B2BVariant::ahead) {
      if (j == 0 && later < systems) prefetch_l2(entries + later);
    }
    b2b_tile<T, M, P, Accumulate, Solve>(ops, e, n, valid, l, j, stage, red);
  }
}

/// Systems longer than B2BPlan::max_rows, a warp per tile of B2BTiles (227..256 rows, 32 chunks
/// of 7 or 8 rows): the fixed hybrid's long path in tiles along axis 0 (long_tile.cuh), per
/// tile. Reduce (Finish false): the tile's chunks reduced, the tile's two equations to rows
/// `reduced` and + 1 of the workspace batch (four planes of `plane` values). Finish: the same
/// chunks reduced again, the tile system solved with its two end values from the workspace's
/// x plane (the reduced batch solved in place), x of every row stored. Each pass reads a, b, c,
/// d once: 9 accesses per row against the copy's 5, as the fixed long path. Solve false: the
/// bound (the same loads and stores; the tile's two equations are lane 0's and 31's sums).
template <class T, bool Finish, bool Accumulate, bool Solve = true>
__global__ void __launch_bounds__(b2b_threads, b2b_min_blocks<T>())
    var_b2b_tile_kernel(Operands<T> ops, const B2BTile* __restrict__ tiles, std::int64_t count,
                        T* __restrict__ ws, std::int64_t plane) {
  constexpr int M = B2BPlan::M;
  using Lay = B2BSmem<T, M, 32>;
  static_assert(B2BTiles::tile_rows == 32 * M, "a tile is a warp's 32 chunks");
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  T* stage = reinterpret_cast<T*>(smem_raw) + warp * Lay::warp_stage;
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
  if constexpr (!Solve) {
    b2b_move_only<T, M>(rows);
    if (!Finish && (lane == 0 || lane == 31)) {
      const std::int64_t e = tl.reduced + (lane == 31 ? 1 : 0);
      ws[e] = rows.a[0];
      ws[plane + e] = rows.b[0];
      ws[2 * plane + e] = rows.c[0];
      ws[3 * plane + e] = rows.d[0];
    }
  }
  Row<T> first, last;
  if constexpr (Solve) chunk_reduce<T>(rows, L, first, last);
  if constexpr (!Finish) {
    if constexpr (Solve) tile_reduce_store(first, last, lane, true, ws, plane, tl.reduced, 1);
  } else {
    if constexpr (Solve) {
      T x_first, x_last;
      tile_finish(first, last, lane, true, ws, plane, tl.reduced, 1, x_first, x_last);
      chunk_back<T>(rows, L, x_first, x_last);
    }
#pragma unroll
    for (int k = 0; k < M; ++k) {
      if (k < L) stage[padded<T>(r0 + k)] = rows.d[k];
    }
    __syncwarp();
    store_run<T, M, Accumulate, false>(ops.x + tl.offset, 0, n, lane, 32, 0, stage, true);
  }
}

}  // namespace triax::detail::cuda
