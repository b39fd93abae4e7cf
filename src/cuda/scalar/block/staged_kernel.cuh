#pragma once
// The Thomas-PCR hybrid along axes >= 1 with a, b and c staged in shared memory
// (Mapping::system_staged; host side hybrid.cu).
//
// Why: where neighbouring systems are adjacent, a block reads each row as one contiguous run of
// its S systems, and the L2 serves runs of 32 bytes poorly (docs/algorithms.md, "Why axes >= 1
// fall with n"). The register kernel (hybrid_kernel.cuh) keeps all four arrays of S x n rows in
// registers, so at n >= 512 it can only afford S x sizeof(T) = 16-32 bytes. Here a, b and c go
// to shared memory through cp.async, which keeps the loads in flight without holding registers,
// and only d stays in registers: a block of up to 1024 threads then holds three times
// S x n x sizeof(T) = 64 KiB in shared memory, 128-byte runs at n = 512, 64 at 1024.
//
// Thread (system l, chunk j) owns rows [r0, r0 + L) of system l as in the register kernel; its
// row k of a, b or c lives at ((j / G) * M + k) * 32 + (j % G) * S + l (G = 32 / S chunks share
// a 32-element line), so that a warp's 32 threads touch 32 consecutive elements: no bank
// conflicts. Each thread copies its own elements and waits only for its own copies; where the
// group's rows are aligned 16-byte runs (Vector), each warp copies its chunks' rows in 16-byte
// pieces and waits for the warp's copies instead: no block barrier before the sweep either way.
// The modified Thomas sweep overwrites a and c with its A and C in place and d in registers; b is
// dead after it, and its space (extended where needed) holds the reduced systems.
// The whole system in one block, or (Clustered) in the C blocks of a thread-block cluster, rank r
// holding chunks rP .. rP + P - 1 (reduced_solve.cuh); checked mode as in hybrid_kernel.cuh, in
// one block.
#include <cuda_pipeline_primitives.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/scalar/block/hybrid_kernel.cuh"

namespace triax::detail::cuda {

constexpr int staged_max_threads = 1024;

/// Shared memory of the staged kernel, in elements of T: a and c (E each: P * M * S), then b,
/// whose space (at least E) later holds the four arrays of the reduced systems; then, clustered,
/// the exchange space (the end values, and the block's records that the others pull); then S
/// ints.
template <class T>
struct StagedSmem {
  int E;             // elements per staged array
  int sys_stride;    // reduced rows of one system in this block: 2P + 1
  int reduced_size;  // per reduced array: padded S * sys_stride
  int tail;          // b and the reduced systems: max(E, 4 * reduced_size), 16-byte multiple
  int exchange;      // clustered: its own records (pulled) and the end values, else 0
  __host__ __device__ static StagedSmem make(int M, int P, int S, bool clustered) {
    StagedSmem m{};
    m.E = P * M * S;
    m.sys_stride = 2 * P + 1;
    m.reduced_size = padded_size<T>(S * m.sys_stride);
    m.tail = cluster_round_up<T>(m.E > 4 * m.reduced_size ? m.E : 4 * m.reduced_size);
    m.exchange = clustered ? cluster_exchange_size<T>(S) + cluster_records_size<T>(S, 1) : 0;
    return m;
  }
  __host__ __device__ std::size_t bytes(int S) const {
    return (2 * std::size_t(E) + tail + exchange) * sizeof(T) + std::size_t(S) * sizeof(int);
  }
};

/// A chunk's rows for the sweeps of hybrid_math.cuh: a, b, c in shared memory (row k at
/// base + 32 k), d in registers.
template <class T, int M>
struct StagedRows {
  static constexpr int unroll = M;
  T *a, *b, *c;
  int base;
  T d[M];
  __device__ __forceinline__ static constexpr int bound(int) { return M; }
  __device__ __forceinline__ T& sub(int k) { return a[base + 32 * k]; }
  __device__ __forceinline__ T& diag(int k) { return b[base + 32 * k]; }
  __device__ __forceinline__ T& sup(int k) { return c[base + 32 * k]; }
  __device__ __forceinline__ T& rhs(int k) { return d[k]; }
};

/// Vector: a, b and c arrive in 16-byte pieces, each warp copying the rows of its own chunks
/// (the host takes this where a group of S systems is adjacent and 16-byte aligned in a, b and c,
/// as for the pipelined kernel); else every thread copies its own elements.
template <class T, int M, bool Clustered, bool Accumulate, bool Checked, bool Vector>
__global__ void __launch_bounds__(staged_max_threads, 1)
    staged_kernel(Problem p, Operands<T> ops, HybridShape sh) {
  static_assert(!(Clustered && Checked), "checked mode runs one block per group of systems");
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int P = sh.P, S = sh.S;
  const int t = threadIdx.x;
  const StagedSmem<T> lay = StagedSmem<T>::make(M, P, S, Clustered);
  T* sa = reinterpret_cast<T*>(smem_raw);
  T* sc = sa + lay.E;
  T* sb = sc + lay.E;
  int* info_smem = reinterpret_cast<int*>(sb + lay.tail + lay.exchange);

  const int l = t % S, j = t / S;  // system within the block, chunk within the block
  const int jg = blockIdx.y * P + j;  // chunk within the system (clustered: rank blockIdx.y)
  const std::int64_t s = std::int64_t(blockIdx.x) * S + l;
  const bool valid = s < p.count;
  const std::int64_t n = p.n;
  const int r0 = chunk_start(sh, n, jg);
  const int L = valid ? chunk_start(sh, n, jg + 1) - r0 : 0;  // systems past the count: empty

  std::int64_t off[operand_count];
  system_offsets(p, valid ? s : 0, off);
  const std::int64_t ra = p.map[op_a].row_stride, rb = p.map[op_b].row_stride,
                     rc = p.map[op_c].row_stride, rd = p.map[op_d].row_stride,
                     rx = p.map[op_x].row_stride;
  if (Checked && t < S) info_smem[t] = 0;

  // ---- Load: a, b, c asynchronously into shared memory, d into registers. a of row 0 and c of
  // row n-1 are never read: zeros.
  const int G = 32 / S;
  StagedRows<T, M> rows{sa, sb, sc, ((j / G) * M) * 32 + (j % G) * S + l, {}};
  if constexpr (Vector) {
    // Warp w holds chunks wG .. wG + G - 1, whose row k fills the 32 elements at (wM + k) 32:
    // G runs of S systems, S / V pieces each. The group's first system has the offsets off0.
    constexpr int V = 16 / static_cast<int>(sizeof(T));
    const int lane = t & 31, warp = t >> 5;
    std::int64_t off0[operand_count];
    system_offsets(p, std::int64_t(blockIdx.x) * S, off0);
#pragma unroll 1
    for (int i = lane; i < M * 32 / V; i += 32) {
      const WarpPiece w = warp_piece<T>(i, S);
      const int jc = blockIdx.y * P + warp * G + w.jj;
      const int rc0 = chunk_start(sh, n, jc);
      if (w.k < chunk_start(sh, n, jc + 1) - rc0) {
        const std::int64_t row = rc0 + w.k;
        const int e = w.at(warp, M, S), piece = w.piece;
        if (row > 0) {
          copy_16_async(sa + e, ops.a + off0[op_a] + row * ra + piece);
        } else {
          for (int v = 0; v < V; ++v) sa[e + v] = T(0);
        }
        copy_16_async(sb + e, ops.b + off0[op_b] + row * rb + piece);
        if (row + 1 < n) {
          copy_16_async(sc + e, ops.c + off0[op_c] + row * rc + piece);
        } else {
          for (int v = 0; v < V; ++v) sc[e + v] = T(0);
        }
      }
    }
#pragma unroll
    for (int k = 0; k < M; ++k) {
      if (k < L) rows.d[k] = load_row(ops.d + off[op_d] + (r0 + k) * rd);
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncwarp();  // the warp's copies, made by any of its lanes, have landed
  } else {
#pragma unroll
    for (int k = 0; k < M; ++k) {
      if (k < L) {
        const std::int64_t row = r0 + k;
        const int e = rows.base + 32 * k;
        if (row > 0) {
          copy_row_async(sa + e, ops.a + off[op_a] + row * ra);
        } else {
          sa[e] = T(0);
        }
        copy_row_async(sb + e, ops.b + off[op_b] + row * rb);
        if (row + 1 < n) {
          copy_row_async(sc + e, ops.c + off[op_c] + row * rc);
        } else {
          sc[e] = T(0);
        }
        rows.d[k] = load_row(ops.d + off[op_d] + row * rd);
      }
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);  // this thread's own rows: no block barrier before the sweep
  }

  Row<T> first, last;
  chunk_reduce<T>(rows, L, first, last);

  // ---- The reduced systems, in b's space once every thread is done with b. Clustered, the
  // blocks pull each other's records (cluster_exchange.cuh says why not push here).
  __syncthreads();
  constexpr Exchange exchange = Clustered ? Exchange::pull : Exchange::none;
  T x_first, x_last;
  chunk_ends_in_shared<T, exchange>(
      first, last, l, j, sb, lay.reduced_size, lay.sys_stride, P, S,
      Clustered ? ClusterExchange<T>::make(sb + lay.tail,
                                           sb + lay.tail + cluster_exchange_size<T>(S), S, 1)
                : ClusterExchange<T>{},
      x_first, x_last);

  // ---- Checked mode: the Thomas forward check before anything is written.
  int forward_info = 0;
  if constexpr (Checked) {
    if (valid && j == 0) forward_info = thomas_forward_info(p, ops, off);
    __syncthreads();
  }

  chunk_back<T>(rows, L, x_first, x_last);
  const int bad =
      store_chunk_strided<T, M, Accumulate, Checked>(ops.x + off[op_x], rx, r0, L, rows.d);

  if constexpr (Checked) {
    if (bad != 0) atomicMax(&info_smem[l], bad);
    __syncthreads();
    if (valid && j == 0) ops.info[s] = forward_info != 0 ? forward_info : info_smem[l];
  }
  cluster_exchange_leave<exchange>();
}

}  // namespace triax::detail::cuda
