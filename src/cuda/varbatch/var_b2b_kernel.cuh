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

/// Where chunk c of a system of n rows starts: the fixed kernel's split (split_rows in hybrid.cu)
/// done per system. n >= 2P: P chunks of q or q + 1 rows (q + 1 <= M while n <= M P); shorter:
/// n / 2 chunks of 2 or 3 rows, the rest empty; n == 1: one chunk of one row.
template <int P>
struct B2BChunks {
  int n, active, q, rem;
  __device__ __forceinline__ explicit B2BChunks(int rows) : n(rows) {
    active = min(P, max(1, rows / 2));
    q = rows / active;
    rem = rows % active;
  }
  __device__ __forceinline__ int start(int c) const {
    return c < active ? c * q + min(c, rem) : n;
  }
};

/// The staged values of operand `op` of the group's run into registers, for this thread's
/// chunk rows k < L (others get the identity's values: never used, but defined).
template <class T, int M>
__device__ __forceinline__ void b2b_take(const T* st, int from, int L, T fill, T (&out)[M]) {
#pragma unroll
  for (int k = 0; k < M; ++k) out[k] = k < L ? st[padded<T>(from + k)] : fill;
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
  const B2BChunks<P> ch(n);
  const int r0 = ch.start(j);
  const int L = ch.start(j + 1) - r0;
  // The group's run: its first chunk is j - gi (P <= 32: chunk 0 of the system; else the
  // warp's first chunk, 32 | j - lane).
  const int gi = lane % GW;
  const int gbase = (lane / GW) * GW * M;
  const int R0 = ch.start(j - gi), R1 = ch.start(j - gi + GW);

  // ---- Load: the four operands' shares in flight together, then through the staging space one
  // operand at a time. a of row 0 and c of row n - 1 arrive with their vectors: dropped.
  RunShare<T, M> sa, sb, sc, sd;
  sa.load(ops.a + e.offset, R0, R1, gi, GW, valid);
  sb.load(ops.b + e.offset, R0, R1, gi, GW, valid);
  sc.load(ops.c + e.offset, R0, R1, gi, GW, valid);
  sd.load(ops.d + e.offset, R0, R1, gi, GW, valid);
  RegisterRows<T, M> rows;
  const int from = gbase + (r0 - R0);
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

}  // namespace triax::detail::cuda
