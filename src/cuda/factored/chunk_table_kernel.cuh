#pragma once
// The chunk table kernel (issue 32, branch factcoef): applies a precomputed ChunkView
// (core/factored/chunk_table.hpp) to d. One group of W lanes (W = 8..32, a power of two) holds
// one system; lane j owns chunk j (M rows in registers). Per row: d loaded, 5 multiply-adds with
// table constants (forward, backward, the two separator couplings), x stored; the separators'
// reduced system is PCR with precomputed multipliers over shuffles (at most 5 levels), so no
// block barrier and no division anywhere.
//
// Loads and stores go through a per-warp shared-memory stage: the group's lanes read the
// system's rows as one run (lane i takes rows i, i + W, ...: one contiguous segment per
// instruction along axis 0) and each lane then picks its chunk's M rows (padded index, no bank
// conflicts for M = 8, 16). For d and x at row stride 1 only (the launch, chunk_table_launch.cu,
// checks); chunk_table_strided_kernel below takes every other stride.
//
// Rows (core/factored/chunk_rows.hpp) says what the loaded rows are: d (PlainRows), or f, from which
// the kernel forms B f in registers before the solve (StencilRows: solve_stencil in one pass).
//
// The table (a few KiB: 5 M values per stored chunk table, 3 tables for near-Toeplitz matrices)
// is read through the read-only cache; interior lanes of a compressed table read the same
// address (a broadcast). The strided kernel copies it into each block's shared memory first
// (chunk_table_launch.cu; TRIAX_CUDA_TABLE_SHARED=0 reads it through the cache instead).
#include <cuda_runtime.h>

#include <cstdint>

#include "core/factored/chunk_table.hpp"
#include "core/problem.hpp"
#include "core/factored/chunk_rows.hpp"
#include "cuda/scalar/block/global_loads.cuh"
#include "cuda/system_offsets.cuh"

namespace triax::detail::cuda {

inline constexpr int chunk_table_threads = 256;

template <class T>
__host__ __device__ constexpr int chunk_stage_index(int e) {
  return e + e / (128 / static_cast<int>(sizeof(T)));
}
template <class T>
__host__ __device__ constexpr int chunk_stage_size(int M) {
  return chunk_stage_index<T>(32 * M) + 1;  // one warp's stage, in elements
}

/// Element offsets of system s's row 0 in d and x, in one walk over the batch dimensions.
__device__ __forceinline__ void chunk_system_offsets(const Problem& p, std::int64_t s,
                                                     std::int64_t& off_d, std::int64_t& off_x) {
  std::int64_t off[operand_count];
  system_offsets<(1u << op_d) | (1u << op_x)>(p, s, off);
  off_d = off[op_d];
  off_x = off[op_x];
}

template <class T>
__device__ __forceinline__ T table_load(const T* at) {
  return __ldg(at);
}

/// A table value from global memory through the read-only cache, or (Shared) from the block's
/// copy in shared memory (an ordinary load: __ldg takes global addresses only).
template <bool Shared, class T>
__device__ __forceinline__ T table_value(const T* at) {
  if constexpr (Shared) {
    return *at;
  } else {
    return table_load(at);
  }
}

/// Thomas on a chunk's first L rows (its interior) in registers, with the stored multipliers of
/// its table: forward u[k] -= m[k] u[k-1], backward u[k] = r[k] u[k] - e[k] u[k+1]. `rows` is the
/// chunk's table column (v.rows + v.table_of(j)), field f of row k at rows[(f M + k) ts]. Both
/// kernels run this one sequence, so they round alike.
template <class T, int M, bool Shared = false>
__device__ __forceinline__ void chunk_interior_thomas(T (&u)[M], const T* rows, int ts, int L) {
#pragma unroll
  for (int k = 1; k < M; ++k) {
    if (k < L) u[k] -= table_value<Shared>(rows + (chunk_m * M + k) * ts) * u[k - 1];
  }
  T next = 0;
#pragma unroll
  for (int k = M - 1; k >= 0; --k) {
    if (k < L) {
      u[k] = table_value<Shared>(rows + (chunk_r * M + k) * ts) * u[k] -
             table_value<Shared>(rows + (chunk_e * M + k) * ts) * next;
      next = u[k];
    }
  }
}

/// Thomas with the whole matrix's factors (ChunkFallback), chunk after chunk, where the table
/// was refused at this solve: chunk t's forward sweep needs chunk t - 1's last y, its backward
/// sweep chunk t + 1's first x. pass(value, t) gives every chunk of the system chunk t's value (a
/// shuffle, or shared memory and a barrier); every thread calls it 2P times. Slow (the chunks
/// take turns) but any matrix Thomas solves is solved. The factors' addresses come from t, not j
/// (the same inside `j == t`): loads the loop does not vary would be hoisted out of it.
template <class T, int M, class Pass>
__device__ __forceinline__ void chunk_fallback_thomas(T (&u)[M], const ChunkFallback<T>& fb, int j,
                                                      int P, int held, Pass pass) {
  T carry = T(0);
  for (int t = 0; t < P; ++t) {
    if (j == t) {
      const T* l = fb.l + t * M;
#pragma unroll
      for (int k = 0; k < M; ++k) {
        if (k < held) u[k] -= table_load(l + k) * (k == 0 ? carry : u[k - 1]);
      }
    }
    carry = pass(u[M - 1], t);
  }
  T next = T(0);
  for (int t = P - 1; t >= 0; --t) {
    if (j == t) {
      const T* rinv = fb.rinv + t * M;
      const T* e = fb.e + t * M;
      T after = next;
#pragma unroll
      for (int k = M - 1; k >= 0; --k) {
        if (k < held) {
          u[k] = table_load(rinv + k) * u[k] - table_load(e + k) * after;
          after = u[k];
        }
      }
    }
    next = pass(u[0], t);
  }
}

/// Whether this solve's table was refused (a flag the build kernel wrote before this launch).
template <class T>
__device__ __forceinline__ bool chunk_table_refused(const ChunkFallback<T>& fb) {
  return fb.ok != nullptr && *fb.ok == 0;
}

/// d: the input, laid out by p.map[op_d] (f for StencilRows).
/// Block `block`'s systems; Fallback: solved with the fallback's factors, else with the table.
template <class T, int M, bool Accumulate, class Rows, bool Fallback>
__device__ __forceinline__ void chunk_table_block(const Problem& p, const ChunkView<T>& v,
                                                  const Rows& rhs_of, const T* d, T* x,
                                                  const ChunkFallback<T>& fb, std::int64_t block) {
  extern __shared__ __align__(16) unsigned char chunk_smem[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int warps = blockDim.x >> 5;
  const int W = v.W, P = v.P, n = v.n;
  const int j = lane & (W - 1);  // chunk of this lane
  const int group = lane / W;
  const int per_warp = 32 / W;
  const std::int64_t s = (block * warps + warp) * per_warp + group;
  const bool valid = s < p.count;
  T* stage = reinterpret_cast<T*>(chunk_smem) + warp * chunk_stage_size<T>(M);
  const int gbase = group * W * M;  // = lane * M for j = 0

  std::int64_t off_d = 0, off_x = 0;
  if (valid) {
    chunk_system_offsets(p, s, off_d, off_x);
  }
  // Rows are contiguous (the launch checked d's and x's row strides are 1).
  const T* d_row0 = d + off_d;
  T* x_row0 = x + off_x;

  // ---- Load: rows i = j + W q of the system, then this chunk's rows from the stage.
#pragma unroll
  for (int q = 0; q < M; ++q) {
    const int i = j + W * q;
    if (valid && i < n) stage[chunk_stage_index<T>(gbase + i)] = d_row0[i];
  }
  __syncwarp();
  const int held = valid ? v.chunk_rows(j) : 0;
  const int L = valid ? v.interior(j) : 0;
  T u[M];
#pragma unroll
  for (int k = 0; k < M; ++k) {
    u[k] = k < held ? stage[chunk_stage_index<T>(gbase + j * M + k)] : T(0);
  }
  if constexpr (Rows::halo) {
    // Rows jM-2, jM-1 are the left lane's last two, rows jM+M, jM+M+1 the right lane's first
    // two; the stage holds the whole system for the edge rows.
    const unsigned every = 0xffffffffu;
    const T lo[2] = {__shfl_up_sync(every, u[M - 2], 1, W), __shfl_up_sync(every, u[M - 1], 1, W)};
    const T hi[2] = {__shfl_down_sync(every, u[0], 1, W), __shfl_down_sync(every, u[1], 1, W)};
    rhs_of(u, lo, hi, j * M, held, n,
           [&](int r) { return stage[chunk_stage_index<T>(gbase + r)]; });
  }
  __syncwarp();
  const unsigned full = 0xffffffffu;
  if constexpr (Fallback) {
    (void)L;
    chunk_fallback_thomas<T, M>(u, fb, j, P, held,
                                [&](T value, int t) { return __shfl_sync(full, value, t, W); });
  } else {
    // ---- Thomas on the chunk's interior with the stored multipliers.
    const T* rows = v.rows + v.table_of(j);
    const int ts = v.tables;
    chunk_interior_thomas<T, M>(u, rows, ts, L);

    // ---- The separators: right-hand side, PCR, solution.
    const T next_first = __shfl_down_sync(full, u[0], 1, W);
    const bool owns_separator = valid && j < P - 1;
    T rhs = owns_separator ? u[M - 1] - v.red(ChunkView<T>::red_a(), j) * u[M - 2] -
                                 v.red(ChunkView<T>::red_c(), j) * next_first
                           : T(0);
    for (int l = 0; l < v.levels; ++l) {
      const int st = 1 << l;
      const T lo = __shfl_up_sync(full, rhs, st, W);
      const T hi = __shfl_down_sync(full, rhs, st, W);
      // Only separator lanes (j < P - 1) with a separator neighbour at this stride take a term:
      // selected rather than multiplied by a zero multiplier, so that a non-finite value elsewhere
      // never turns into NaN here.
      const T a_l = j >= st && j < P - 1 ? v.red(ChunkView<T>::red_alpha(l), j) * lo : T(0);
      const T c_l = j + st < P - 1 ? v.red(ChunkView<T>::red_gamma(l), j) * hi : T(0);
      rhs = rhs - a_l - c_l;
    }
    const T sep = owns_separator ? rhs * v.red(ChunkView<T>::red_rinv(), j) : T(0);
    T left = __shfl_up_sync(full, sep, 1, W);
    if (j == 0) left = T(0);

#pragma unroll
    for (int k = 0; k < M; ++k) {
      if (k < L) {
        u[k] += table_load(rows + (chunk_g * M + k) * ts) * left +
                table_load(rows + (chunk_h * M + k) * ts) * sep;
      }
    }
    if (owns_separator) u[M - 1] = sep;
  }

  // ---- Store: through the stage, rows i = j + W q.
#pragma unroll
  for (int k = 0; k < M; ++k) {
    if (k < held) stage[chunk_stage_index<T>(gbase + j * M + k)] = u[k];
  }
  __syncwarp();
#pragma unroll
  for (int q = 0; q < M; ++q) {
    const int i = j + W * q;
    if (valid && i < n) {
      T out = stage[chunk_stage_index<T>(gbase + i)];
      if constexpr (Accumulate) out += x_row0[i];
      x_row0[i] = out;
    }
  }
}

/// The table's solve: every block its own systems; nothing where the table was refused.
template <class T, int M, bool Accumulate, class Rows>
__global__ void __launch_bounds__(chunk_table_threads)
    chunk_table_kernel(Problem p, ChunkView<T> v, Rows rhs_of, const T* d, T* x,
                       ChunkFallback<T> fb) {
  if (chunk_table_refused(fb)) return;
  chunk_table_block<T, M, Accumulate, Rows, false>(p, v, rhs_of, d, x, fb, blockIdx.x);
}

/// The fallback's solve, launched after chunk_table_kernel: nothing unless the table was refused,
/// then `blocks` blocks' systems over this grid's (a few blocks a multiprocessor: where the
/// table holds, this launch costs a flag read per block).
template <class T, int M, bool Accumulate, class Rows>
__global__ void __launch_bounds__(chunk_table_threads)
    chunk_fallback_kernel(Problem p, ChunkView<T> v, Rows rhs_of, const T* d, T* x,
                          ChunkFallback<T> fb, std::int64_t blocks) {
  if (!chunk_table_refused(fb)) return;
  for (std::int64_t block = blockIdx.x; block < blocks; block += gridDim.x) {
    chunk_table_block<T, M, Accumulate, Rows, true>(p, v, rhs_of, d, x, fb, block);
    __syncwarp();  // the stage's last reads before the next block's stores
  }
}

}  // namespace triax::detail::cuda

namespace triax::detail::cuda {

/// Threads a block of the strided kernel holds at most (S systems x P chunks).
inline constexpr int chunk_strided_threads = 512;

/// Systems a block of the strided kernel holds for P chunks each, with blocks of at most
/// `threads` threads (a power of two, 64 .. chunk_strided_threads; the launch picks it). The
/// kernel reads S back as blockDim.x / P.
__host__ __device__ constexpr int chunk_strided_systems(int P, int threads = chunk_strided_threads) {
  return P >= threads / 32 ? threads / P : 32;
}

/// The block's copy of the table (SharedTable) at `at` in shared memory: each stored table's 5 M
/// values side by side ([table][field][row], where global memory holds [field][row][table]), then
/// the reduced values, so that a chunk reads its values at fixed offsets from one base, with no
/// index arithmetic per value. Ends with a block barrier; returns the view that reads there.
template <class T, int M>
__device__ __forceinline__ ChunkView<T> share_chunk_table(const ChunkView<T>& table, T* at) {
  ChunkView<T> v = table;
  constexpr int per_table = chunk_fields * M;
  const int row_values = per_table * table.tables;
  T* reduced = at + row_values;
  for (int i = threadIdx.x; i < row_values; i += blockDim.x) {
    const int t = i / per_table, fk = i - t * per_table;  // fk = field * M + row
    at[i] = table_load(table.rows + fk * table.tables + t);
  }
  for (int i = threadIdx.x; i < ChunkView<T>::reduced_fields() * chunk_lanes; i += blockDim.x) {
    reduced[i] = table_load(table.reduced + i);
  }
  __syncthreads();
  v.rows = at;
  v.reduced = reduced;
  return v;
}

/// The strided kernels' shared buffers for the separators: two of P x S values for the PCR
/// levels and one for the separators' values (element j S + l: chunk j of system l).
template <class T>
struct StridedLinks {
  T* buf0;
  T* buf1;
  T* seps;
  __device__ static StridedLinks at(T* base, int P, int S) {
    return {base, base + P * S, base + 2 * P * S};
  }
  __device__ T* end(int P, int S) const { return seps + P * S; }
};

/// Chunk j's solve with the table, its rows u in registers: Thomas on its interior with the
/// stored multipliers, the separators of the block's systems by PCR through shared memory (one
/// barrier for the neighbours' first rows, one per level, one for the separators), then the
/// correction of the interior by its two separators. Every thread of the block calls it (the
/// barriers); `me` = j S + l.
template <class T, int M, bool SharedTable>
__device__ __forceinline__ void chunk_strided_table_solve(const ChunkView<T>& v, T (&u)[M], int j,
                                                          int P, int S, int me, bool valid, int L,
                                                          const StridedLinks<T>& links) {
  // Chunk j's table: column table_of(j) of [field][row][table], or (SharedTable) the
  // contiguous [field][row] block of share_chunk_table.
  const T* rows =
      SharedTable ? v.rows + v.table_of(j) * (chunk_fields * M) : v.rows + v.table_of(j);
  const int ts = SharedTable ? 1 : v.tables;
  chunk_interior_thomas<T, M, SharedTable>(u, rows, ts, L);

  // The separators: each chunk's first value to its left neighbour, then PCR.
  links.buf0[me] = u[0];
  __syncthreads();
  const bool owns_separator = valid && j < P - 1;
  T rhs = T(0);
  if (owns_separator) {
    rhs = u[M - 1] - v.red(ChunkView<T>::red_a(), j) * u[M - 2] -
          v.red(ChunkView<T>::red_c(), j) * links.buf0[me + S];
  }
  T* cur = links.buf1;
  T* other = links.buf0;
  cur[me] = rhs;
  __syncthreads();
  for (int lev = 0; lev < v.levels; ++lev) {
    const int st = 1 << lev;
    // As the warp kernel: separator neighbours only.
    const T a_l =
        j >= st && j < P - 1 ? v.red(ChunkView<T>::red_alpha(lev), j) * cur[me - st * S] : T(0);
    const T c_l = j + st < P - 1 ? v.red(ChunkView<T>::red_gamma(lev), j) * cur[me + st * S] : T(0);
    rhs = rhs - a_l - c_l;
    other[me] = rhs;
    __syncthreads();
    T* swap = cur;
    cur = other;
    other = swap;
  }
  const T sep = owns_separator ? rhs * v.red(ChunkView<T>::red_rinv(), j) : T(0);
  links.seps[me] = sep;
  __syncthreads();
  const T left = j > 0 ? links.seps[me - S] : T(0);

#pragma unroll
  for (int k = 0; k < M; ++k) {
    if (k < L) {
      u[k] += table_value<SharedTable>(rows + (chunk_g * M + k) * ts) * left +
              table_value<SharedTable>(rows + (chunk_h * M + k) * ts) * sep;
    }
  }
  if (owns_separator) u[M - 1] = sep;
}

/// A chunk's first `held` rows from registers to x (added to what x holds, accumulating).
template <class T, int M, bool Accumulate>
__device__ __forceinline__ void chunk_strided_store(const T (&u)[M], T* out, std::int64_t rx,
                                                    int held) {
#pragma unroll
  for (int k = 0; k < M; ++k) {
    if (k < held) {
      T value = u[k];
      if constexpr (Accumulate) value += out[k * rx];
      out[k * rx] = value;
    }
  }
}

/// The same solve for rows that are not contiguous (axes >= 1), fast where neighbouring systems are
/// adjacent in memory: thread (system l, chunk j) of a block of S x P threads, the S threads of
/// one chunk index consecutive, so that each row of a chunk is one contiguous run of S systems
/// read straight into registers (no stage). The separators' values meet in shared memory: one
/// barrier for the neighbours' first rows, one per PCR level (two buffers), one for the
/// separators. Correct at any stride. SharedTable: the block first copies the table (rows, each
/// stored table's contiguous, and reduced values) into shared memory after those buffers
/// (chunk_shared_table_values) and reads it there at fixed offsets; else every thread reads its
/// chunk's 5 M values through the read-only cache.
template <class T, int M, bool Accumulate, class Rows, bool Fallback, bool SharedTable = false>
__device__ __forceinline__ void chunk_strided_block(const Problem& p, const ChunkView<T>& table,
                                                    const Rows& rhs_of, const T* d, T* x,
                                                    const ChunkFallback<T>& fb,
                                                    std::int64_t block) {
  extern __shared__ __align__(16) unsigned char chunk_smem[];
  const int P = table.P, n = table.n;
  const int S = static_cast<int>(blockDim.x) / P;  // chunk_strided_systems at the launch
  const int l = threadIdx.x % S, j = threadIdx.x / S;
  const std::int64_t s = block * S + l;
  const bool valid = s < p.count;  // j < P: the block is S x P threads
  const StridedLinks<T> links = StridedLinks<T>::at(reinterpret_cast<T*>(chunk_smem), P, S);
  const int me = j * S + l;
  (void)n;
  ChunkView<T> v = table;
  if constexpr (SharedTable && !Fallback) v = share_chunk_table<T, M>(table, links.end(P, S));

  std::int64_t off_d = 0, off_x = 0;
  if (valid) chunk_system_offsets(p, s, off_d, off_x);
  const std::int64_t rd = p.map[op_d].row_stride, rx = p.map[op_x].row_stride;
  const int held = valid ? v.chunk_rows(j) : 0;
  const int L = valid ? v.interior(j) : 0;

  T u[M];
  {
    const T* at = d + off_d + std::int64_t(j) * M * rd;
#pragma unroll
    for (int k = 0; k < M; ++k) {
      u[k] = k < held ? at[k * rd] : T(0);
    }
    if constexpr (Rows::halo) {
      // The neighbouring chunks' rows either side, where they lie in the line.
      const int first = j * M;
      T lo[2], hi[2];
#pragma unroll
      for (int t = 0; t < 2; ++t) {
        lo[t] = held > 0 && first - 2 + t >= 0 ? at[(t - 2) * rd] : T(0);
        hi[t] = held > 0 && first + M + t < n ? at[(M + t) * rd] : T(0);
      }
      const T* line = d + off_d;
      rhs_of(u, lo, hi, first, held, n, [&](int r) { return line[r * rd]; });
    }
  }

  if constexpr (Fallback) {
    // Chunk t's value to its system's chunks through two buffers of S values in turn (call
    // after call, so that a write never meets the previous step's reads), a barrier a step.
    (void)L;
    int calls = 0;
    chunk_fallback_thomas<T, M>(u, fb, j, P, held, [&](T value, int t) {
      T* link = links.buf0 + (calls++ & 1) * S;
      if (j == t) link[l] = value;
      __syncthreads();
      return link[l];
    });
  } else {
    chunk_strided_table_solve<T, M, SharedTable>(v, u, j, P, S, me, valid, L, links);
  }
  chunk_strided_store<T, M, Accumulate>(u, x + off_x + std::int64_t(j) * M * rx, rx, held);
}

/// Values of the table a block of the strided kernel copies into shared memory (SharedTable).
template <class T>
__host__ __device__ constexpr int chunk_shared_table_values(const ChunkView<T>& v) {
  return chunk_fields * v.M * v.tables + ChunkView<T>::reduced_fields() * chunk_lanes;
}

/// The strided table solve (as chunk_table_kernel).
template <class T, int M, bool Accumulate, class Rows, bool SharedTable>
__global__ void __launch_bounds__(chunk_strided_threads)
    chunk_table_strided_kernel(Problem p, ChunkView<T> v, Rows rhs_of, const T* d, T* x,
                               ChunkFallback<T> fb) {
  if (chunk_table_refused(fb)) return;
  chunk_strided_block<T, M, Accumulate, Rows, false, SharedTable>(p, v, rhs_of, d, x, fb,
                                                                  blockIdx.x);
}

/// The strided table solve with the next rows in flight (TRIAX_CUDA_TABLE_PIPELINED=1,
/// chunk_table_launch.cu): each block takes groups of S systems in turn (blockIdx.x, then
/// gridDim.x further), copying the table into shared memory once, and its threads copy the next
/// group's rows into shared memory (cp.async) while the current group is solved. The one-pass
/// kernel has a block's rows in flight only until its arithmetic starts, so an SM's two or three
/// blocks leave it idle on memory for much of the solve. Each thread copies exactly the elements
/// it reads (stage[b][k * threads + t], a warp's 32 consecutive): the stages need no barrier.
/// PlainRows only (the stencil's rows need their neighbours' halos).
/// Threads a block of the pipelined strided kernel holds at most, and its blocks an SM: float
/// blocks of 512 two an SM (64 registers a thread; unbounded, the compiler took 84 at M = 8),
/// double blocks of 256 three (80; it took 86 at M = 16, which holds two).
template <class T>
inline constexpr int pipelined_strided_threads = sizeof(T) == 4 ? 512 : 256;
template <class T>
inline constexpr int pipelined_strided_blocks = sizeof(T) == 4 ? 2 : 3;

template <class T, int M, bool Accumulate>
__global__ void __launch_bounds__(pipelined_strided_threads<T>, pipelined_strided_blocks<T>)
    chunk_table_strided_pipelined_kernel(Problem p, ChunkView<T> table, const T* d, T* x,
                                         ChunkFallback<T> fb, std::int64_t groups) {
  if (chunk_table_refused(fb)) return;
  extern __shared__ __align__(16) unsigned char chunk_smem[];
  const int P = table.P;
  const int threads = static_cast<int>(blockDim.x);
  const int S = threads / P;  // chunk_strided_systems at the launch
  const int t = threadIdx.x, l = t % S, j = t / S;
  const StridedLinks<T> links = StridedLinks<T>::at(reinterpret_cast<T*>(chunk_smem), P, S);
  T* const table_at = links.end(P, S);
  const ChunkView<T> v = share_chunk_table<T, M>(table, table_at);
  T* const stage = table_at + chunk_shared_table_values(table);
  const std::int64_t rd = p.map[op_d].row_stride, rx = p.map[op_x].row_stride;
  const int rows = v.chunk_rows(j), interior = v.interior(j);
  // Group g's rows into stage b; returns the system's offset in x, found in the same walk.
  const auto stage_rows = [&](std::int64_t g, int b) -> std::int64_t {
    const std::int64_t s = g * S + l;
    if (g >= groups || s >= p.count) return 0;
    std::int64_t off[operand_count];
    system_offsets<(1u << op_d) | (1u << op_x)>(p, s, off);
    const T* at = d + off[op_d] + std::int64_t(j) * M * rd;
    T* to = stage + b * M * threads + t;
#pragma unroll
    for (int k = 0; k < M; ++k) {
      if (k < rows) copy_row_async(to + k * threads, at + k * rd);
    }
    return off[op_x];
  };

  std::int64_t g = blockIdx.x;
  std::int64_t off_x = stage_rows(g, 0);
  __pipeline_commit();
  for (int b = 0; g < groups; g += gridDim.x, b ^= 1) {
    // The next group's copies go out first; stage b ^ 1 was last read by this thread's previous
    // group, whose values the arithmetic has used.
    const std::int64_t next_off_x = stage_rows(g + gridDim.x, b ^ 1);
    __pipeline_commit();
    __pipeline_wait_prior(1);  // this group's copies (this thread's own) have landed
    const std::int64_t s = g * S + l;
    const bool valid = s < p.count;
    const int held = valid ? rows : 0, L = valid ? interior : 0;
    T u[M];
    const T* from = stage + b * M * threads + t;
#pragma unroll
    for (int k = 0; k < M; ++k) u[k] = k < held ? from[k * threads] : T(0);
    chunk_strided_table_solve<T, M, true>(v, u, j, P, S, t, valid, L, links);
    if (valid) {
      chunk_strided_store<T, M, Accumulate>(u, x + off_x + std::int64_t(j) * M * rx, rx, held);
    }
    off_x = next_off_x;
  }
}

/// The strided fallback solve (as chunk_fallback_kernel).
template <class T, int M, bool Accumulate, class Rows>
__global__ void __launch_bounds__(chunk_strided_threads)
    chunk_strided_fallback_kernel(Problem p, ChunkView<T> v, Rows rhs_of, const T* d, T* x,
                                  ChunkFallback<T> fb, std::int64_t blocks) {
  if (!chunk_table_refused(fb)) return;
  for (std::int64_t block = blockIdx.x; block < blocks; block += gridDim.x) {
    chunk_strided_block<T, M, Accumulate, Rows, true>(p, v, rhs_of, d, x, fb, block);
    __syncthreads();  // the link buffers' last reads before the next block's writes
  }
}

}  // namespace triax::detail::cuda
