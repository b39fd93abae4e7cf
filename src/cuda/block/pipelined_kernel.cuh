#pragma once
// The Thomas-PCR hybrid along axes >= 1 as a persistent, software-pipelined kernel
// (Mapping::system_pipelined; host side hybrid.cu).
//
// Why: in the register kernel (hybrid_kernel.cuh) a block loads its S x n rows, reduces, solves
// and stores, one phase after the other, and an SM overlaps them only across its resident blocks.
// At n >= 256 those are one or two blocks, whose arithmetic leaves DRAM idle. Here each block
// loops over groups of S systems, and while it solves one group from registers the next group's
// rows stream into shared memory (cp.async, 16-byte pieces), so the block's loads stay in flight
// through its arithmetic.
//
// Per group: wait for the staged rows; every thread copies its chunk (rows r0 .. r0 + L - 1 of
// system l, as in the register kernel) into registers; barrier; the next group's copies are
// issued into the same buffer; the chunk is reduced, the reduced systems solved in shared memory
// (chunk_ends_in_shared, in its own space), the chunk finished and x stored.
//
// The host takes this kernel only where a group's S systems are adjacent in every operand (unit
// stride along the first batch dimension, which S divides) and every row run of a group starts
// on a 16-byte boundary (pipelined_layout_ok in hybrid.cu), so that a row of a group is S x
// sizeof(T) / 16 aligned pieces. Not in checked mode (hybrid_run takes the register kernel).
#include <cuda_pipeline_primitives.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/block/global_loads.cuh"
#include "cuda/block/hybrid_kernel.cuh"

namespace triax::detail::cuda {

/// Shared memory of the pipelined kernel, in elements of T: the staging buffer (operand op's row
/// r of system l at (op * n + r) * S + l), then the four arrays of the reduced systems.
template <class T>
struct PipelinedSmem {
  int stage;         // 4 * n * S
  int sys_stride;    // reduced rows of one system: 2P + 1
  int reduced_size;  // per reduced array: padded S * sys_stride
  __host__ __device__ static PipelinedSmem make(int n, int P, int S) {
    PipelinedSmem m{};
    m.stage = 4 * n * S;
    m.sys_stride = 2 * P + 1;
    m.reduced_size = padded_size<T>(S * m.sys_stride);
    return m;
  }
  __host__ __device__ std::size_t bytes() const {
    return (std::size_t(stage) + 4 * std::size_t(reduced_size)) * sizeof(T);
  }
};

/// Issues the copies of group g's rows (all four operands) into the staging buffer, one
/// cp.async group per thread.
template <class T>
__device__ __forceinline__ void stage_group(const Problem& p, const Operands<T>& ops,
                                            std::int64_t g, int S, int n, T* stage) {
  constexpr int V = 16 / static_cast<int>(sizeof(T));
  const int pieces_per_row = S / V;  // a power of two
  const int shift = __ffs(pieces_per_row) - 1;
  const int per_operand = n * pieces_per_row;
  std::int64_t off[operand_count];
  system_offsets(p, g * S, off);
  const T* src[4] = {ops.a + off[op_a], ops.b + off[op_b], ops.c + off[op_c], ops.d + off[op_d]};
#pragma unroll
  for (int op = 0; op < 4; ++op) {
    const std::int64_t rs = p.map[op].row_stride;
    T* dst = stage + op * n * S;
#pragma unroll 1
    for (int i = threadIdx.x; i < per_operand; i += blockDim.x) {
      const int row = i >> shift;
      const int piece = (i & (pieces_per_row - 1)) * V;
      copy_16_async(dst + row * S + piece, src[op] + row * rs + piece);
    }
  }
  __pipeline_commit();
}

/// S (sh.S) is a compile-time constant here: the rows of a chunk then sit at immediate offsets
/// from one shared address, where a run-time S made the loop keep 4M addresses live and spill.
template <class T, int M, int S, bool Accumulate>
__global__ void __launch_bounds__(hybrid_max_threads)
    pipelined_kernel(Problem p, Operands<T> ops, HybridShape sh) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int P = sh.P;
  const int n = static_cast<int>(p.n);
  const PipelinedSmem<T> lay = PipelinedSmem<T>::make(n, P, S);
  T* stage = reinterpret_cast<T*>(smem_raw);
  T* red = stage + lay.stage;

  const int t = threadIdx.x;
  const int l = t % S, j = t / S;  // system within the group, chunk
  const int r0_all = chunk_start(sh, n, j);
  const int L_all = chunk_start(sh, n, j + 1) - r0_all;
  const std::int64_t groups = p.count / S;
  const std::int64_t rx = p.map[op_x].row_stride;
  const T* sa = stage + l;
  const T* sb = sa + n * S;
  const T* sc = sb + n * S;
  const T* sd = sc + n * S;

  std::int64_t g = blockIdx.x;
  if (g < groups) stage_group(p, ops, g, S, n, stage);
  for (; g < groups; g += gridDim.x) {
    // The chunk's place through an empty asm at every group: otherwise the compiler hoists what
    // depends only on it (the M row offsets of the loads and stores) out of the loop and keeps
    // it live across the solve, which spilled.
    int r0 = r0_all, L = L_all;
    asm volatile("" : "+r"(r0), "+r"(L));
    __pipeline_wait_prior(0);
    __syncthreads();  // every thread's copies of group g have landed
    RegisterRows<T, M> rows;
#pragma unroll
    for (int k = 0; k < M; ++k) {
      if (k < L) {
        const int row = r0 + k;
        rows.a[k] = row > 0 ? sa[row * S] : T(0);  // a of row 0, c of row n - 1: never used
        rows.b[k] = sb[row * S];
        rows.c[k] = row + 1 < n ? sc[row * S] : T(0);
        rows.d[k] = sd[row * S];
      }
    }
    Row<T> first, last;
    chunk_reduce<T>(rows, L, first, last);
    __syncthreads();  // the buffer is free: stream the next group in behind the arithmetic
    if (g + gridDim.x < groups) stage_group(p, ops, g + gridDim.x, S, n, stage);
    T x_first, x_last;
    chunk_ends_in_shared<T, false>(first, last, l, j, red, lay.reduced_size, lay.sys_stride, P,
                                   S, nullptr, x_first, x_last);
    chunk_back<T>(rows, L, x_first, x_last);

    std::int64_t off[operand_count];
    system_offsets(p, g * S + l, off);
    store_chunk_strided<T, M, Accumulate, false>(ops.x + off[op_x], rx, r0, L, rows.d);
  }
}

}  // namespace triax::detail::cuda
