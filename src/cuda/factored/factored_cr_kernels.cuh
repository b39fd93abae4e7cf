#pragma once
// The CUDA kernels of paper 004's near-Toeplitz cyclic reduction (FactoredAlgorithm::
// cuda_block_cr_shared and cuda_block_cr_global): a thread block takes `lanes` neighbouring
// systems (a power of two, 1..32), loads them coalesced (along rows where rows are contiguous,
// along the systems otherwise), and every thread of the block works on the forward reduction and
// the back substitution, level by level (core/factored/cr_table.hpp numbers the levels and
// slots). The coefficients are read through the read-only cache: a near-Toeplitz table is a few
// entries a level, and every lane of a row reads the same entry (a broadcast).
//
// Why a group of systems per block rather than paper 004's one: along y and z neighbouring
// systems are what is contiguous, so a block of one system would read one value per 32-byte
// sector. Why every thread on the reduction: the staged Thomas kernel (factored_kernels.cuh) had
// `lanes` threads of 256 run 2n dependent steps each, which left the loads of the next blocks
// waiting behind a latency-bound chain; CR's 2 log2(n) levels of independent row updates keep
// the block's threads busy at the top levels and finish in far fewer dependent steps.
//
// Shared variant: the systems' values in shared memory (pitch lanes + 1: the levels' strided
// rows fall in different banks). Global variant: they stay in x's rows (or, for u += x, in a
// workspace laid out [row][system]); __syncthreads orders the block's global accesses too.

#include <cuda_runtime.h>

#include <climits>
#include <cstdint>

#include "core/factored/cr_table.hpp"
#include "core/problem.hpp"
#include "cuda/factored/cr_block.cuh"
#include "cuda/factored/staging.cuh"

namespace triax::detail::cuda_factored_cr {

constexpr int block_threads = 256;
// Blocks an SM should keep (__launch_bounds__): 4 x 256 threads caps registers at 64 a thread;
// more blocks keep one's staging in flight while another reduces.
constexpr int min_blocks = 4;
// Loads a thread has in flight while staging (staging.cuh says why).
constexpr int stage_batch = 8;
using cuda_factored::stage_elements;

template <class T, bool Scaled>
__device__ inline T scaled_rhs(T d, const CrView<T>& v) {
  return Scaled ? (d * v.scale[0]) * v.scale[1] : d;
}

/// The block's systems: their offsets in d, x (and, for the global variant's u += x, in the
/// workspace) and, in checked mode, the first non-finite row of d and of the result.
struct BlockSystems {
  std::int64_t d[32], x[32], work[32];
  int first[32], last[32];
};

// The shared variant's tile and this struct share the default 48 KiB a block.
static_assert(sizeof(BlockSystems) + cr_shared_bytes <= 48 * 1024,
              "cr_shared_bytes leaves no room for the block's system offsets");

__device__ inline void load_systems(BlockSystems& b, const Problem& p, std::int64_t s0, int valid) {
  const int t = threadIdx.x;
  if (t < valid) {
    b.d[t] = p.system_offset(op_d, s0 + t);
    b.x[t] = p.system_offset(op_x, s0 + t);
    b.work[t] = s0 + t;  // workspace: row i of system s at i * count + s
    b.first[t] = INT_MAX;
    b.last[t] = INT_MAX;
  }
  __syncthreads();
}

template <class T>
__device__ inline bool finite(T v) {
  return isfinite(v);
}

__device__ inline void write_info(const BlockSystems& b, int breakdown, std::int64_t s0, int valid,
                                  int* info) {
  const int t = threadIdx.x;
  if (t < valid) {
    const int first = b.first[t] == INT_MAX ? 0 : b.first[t];
    const int last = b.last[t] == INT_MAX ? 0 : b.last[t];
    info[s0 + t] = breakdown != 0 ? breakdown : first != 0 ? first : last;
  }
}

/// Loads the block's right-hand sides into `rows` (scaled where the table is), noting each
/// system's first non-finite d in checked mode; ends with the block synchronised.
template <bool Checked, bool Scaled, class T, class Rows>
__device__ inline void stage_in(const Problem& p, const T* d, BlockSystems& b, const CrView<T>& v,
                                const Rows& rows, int shift, int valid) {
  const std::int64_t rd = p.map[op_d].row_stride;
  stage_elements<stage_batch>(
      p.n, shift, valid, rd == 1, [&](std::int64_t i, int j) { return d[b.d[j] + i * rd]; },
      [&](std::int64_t i, int j, T di) {
        if (Checked && !finite(di)) atomicMin(&b.first[j], static_cast<int>(i + 1));
        rows.at(i, j) = scaled_rhs<T, Scaled>(di, v);
      });
  __syncthreads();
}

/// u += x: reads u (x's rows) batched and adds the solution held in `rows`.
template <bool Checked, class T, class Rows>
__device__ inline void stage_out_add(const Problem& p, T* x, BlockSystems& b, const Rows& rows,
                                     int shift, int valid) {
  const std::int64_t rx = p.map[op_x].row_stride;
  stage_elements<stage_batch>(
      p.n, shift, valid, rx == 1, [&](std::int64_t i, int j) { return x[b.x[j] + i * rx]; },
      [&](std::int64_t i, int j, T u) {
        const T out = u + rows.at(i, j);
        x[b.x[j] + i * rx] = out;
        if (Checked && !finite(out)) atomicMin(&b.last[j], static_cast<int>(i + 1));
      });
}

/// Shared-memory variant: d read once, x written (or added to) once.
template <class T, bool Accumulate, bool Checked, bool Scaled>
__global__ void __launch_bounds__(block_threads, min_blocks)
    factored_cr_shared(Problem p, const T* d, T* x, CrView<T> v, int shift, int* info) {
  extern __shared__ __align__(16) unsigned char cr_raw[];
  __shared__ BlockSystems b;
  T* tile = reinterpret_cast<T*>(cr_raw);
  const int lanes = 1 << shift;
  const std::int64_t s0 = blockIdx.x * std::int64_t(lanes);
  const int valid = static_cast<int>(p.count - s0 < lanes ? p.count - s0 : lanes);
  load_systems(b, p, s0, valid);
  const SharedRows<T> rows{tile, lanes == 1 ? 1 : lanes + 1};
  const std::int64_t rx = p.map[op_x].row_stride;
  stage_in<Checked, Scaled>(p, d, b, v, rows, shift, valid);
  cr_block(v, rows, shift, valid);
  if (Accumulate) {
    stage_out_add<Checked>(p, x, b, rows, shift, valid);
  } else {
    stage_elements<stage_batch>(
        p.n, shift, valid, rx == 1, [&](std::int64_t i, int j) { return rows.at(i, j); },
        [&](std::int64_t i, int j, T out) {
          x[b.x[j] + i * rx] = out;
          if (Checked && !finite(out)) atomicMin(&b.last[j], static_cast<int>(i + 1));
        });
  }
  if (Checked) {
    __syncthreads();
    write_info(b, v.breakdown, s0, valid, info);
  }
}

/// Global-memory variant: the reduction runs in x's rows (or in work, for u += x, where x's rows
/// hold u until the last pass adds the solution).
template <class T, bool Accumulate, bool Checked, bool Scaled>
__global__ void __launch_bounds__(block_threads, min_blocks)
    factored_cr_global(Problem p, const T* d, T* x, T* work, CrView<T> v, int shift, int* info) {
  __shared__ BlockSystems b;
  const int lanes = 1 << shift;
  const std::int64_t s0 = blockIdx.x * std::int64_t(lanes);
  const int valid = static_cast<int>(p.count - s0 < lanes ? p.count - s0 : lanes);
  load_systems(b, p, s0, valid);
  const std::int64_t rx = p.map[op_x].row_stride;
  const GlobalRows<T> rows =
      Accumulate ? GlobalRows<T>{work, b.work, p.count} : GlobalRows<T>{x, b.x, rx};
  // The loads follow d's contiguous index (the workspace is [row][system], x is laid out as
  // the caller's; a layout where they disagree costs the stores some coalescing).
  stage_in<Checked, Scaled>(p, d, b, v, rows, shift, valid);
  cr_block(v, rows, shift, valid);
  if (Accumulate) {
    stage_out_add<Checked>(p, x, b, rows, shift, valid);
  } else if (Checked) {
    stage_elements<stage_batch>(
        p.n, shift, valid, rx == 1, [&](std::int64_t i, int j) { return x[b.x[j] + i * rx]; },
        [&](std::int64_t i, int j, T out) {
          if (!finite(out)) atomicMin(&b.last[j], static_cast<int>(i + 1));
        });
  }
  if (Checked) {
    __syncthreads();
    write_info(b, v.breakdown, s0, valid, info);
  }
}

}  // namespace triax::detail::cuda_factored_cr
