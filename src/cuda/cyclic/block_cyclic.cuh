#pragma once
// The cyclic family's kernel, one thread block per system held in shared memory (paper 001,
// s.4), and its launcher. One kernel per inner solver serves every variant: CR forward reduction
// down to the layout's reduced system (none for plain PCR and RD), PCR or RD on it, CR back
// substitution. Rows are read and written through the Problem's offsets and row strides by
// consecutive threads at consecutive rows, so a row stride of 1 gives coalesced accesses.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>

#include "core/cyclic_variants.hpp"
#include "core/problem.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/cyclic/block_steps.cuh"
#include "cuda/cyclic/load_rows.cuh"
#include "cuda/cyclic/shared_layout.hpp"
#include "cuda/launch/kernels.hpp"
#include "cuda/launch/launch_kernel.hpp"
#include "cuda/solve_modes.cuh"
#include "triax/options.hpp"

namespace triax::detail::cuda::cyclic {

/// Threads of a block: one per pair of rows (CR's first level updates every other row), a whole
/// number of warps, at most 512 (n = 4096: 8 rows per thread in each PCR or RD step). To be
/// tuned on the GPU with the hybrids' switch sizes.
inline constexpr int max_block_threads = 512;
inline int block_threads(std::int64_t n) {
  const std::int64_t pairs = (n + 1) / 2;
  return static_cast<int>(std::clamp<std::int64_t>((pairs + 31) / 32 * 32, 32, max_block_threads));
}

template <class T, InnerSolver Inner, bool Accumulate, bool Checked>
__global__ void __launch_bounds__(max_block_threads, 2)
    block_cyclic_kernel(Problem p, Operands<T> ops, SharedLayout layout) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  __shared__ int breakdown_key, last_bad_row;
  __shared__ unsigned long long largest[3];
  T* shared = reinterpret_cast<T*>(shared_bytes);
  const int n = layout.n;
  const RowArrays<T> rows = RowArrays<T>::at(shared, layout.rows_length);
  T* inner = shared + 4 * layout.rows_length;
  const std::int64_t ra = p.map[op_a].row_stride, rb = p.map[op_b].row_stride,
                     rc = p.map[op_c].row_stride, rd = p.map[op_d].row_stride,
                     rx = p.map[op_x].row_stride;
  for (std::int64_t system = blockIdx.x; system < p.count; system += gridDim.x) {
    const T* a = ops.a + p.system_offset(op_a, system);
    const T* b = ops.b + p.system_offset(op_b, system);
    const T* c = ops.c + p.system_offset(op_c, system);
    const T* d = ops.d + p.system_offset(op_d, system);
    T* x = ops.x + p.system_offset(op_x, system);
    if (Checked && threadIdx.x == 0) {
      breakdown_key = INT_MAX;
      last_bad_row = 0;
      largest[0] = largest[1] = largest[2] = 0;
    }
    // a[0] and c[n-1] are never read.
    auto row = [&](int i) {
      return Equation<T>{i > 0 ? a[i * ra] : T(0), b[i * rb], i + 1 < n ? c[i * rc] : T(0),
                         d[i * rd]};
    };
    BlockBreakdown<Checked> breakdown{&breakdown_key, &last_bad_row, largest, n};
    const int m = layout.reduced, stride = layout.stride;
    T* solution = rows.d;
    if (!layout.rows_held) {
      // Plain RD: the steps straight from global memory, the rows themselves never stored.
      const StepArrays<T> steps = StepArrays<T>::at(inner, layout.inner_length);
      for (int i = threadIdx.x; i < n; i += blockDim.x) {
        steps.set(i, AffineStep<T>::of(row(i), i + 1 == n));
      }
      __syncthreads();
      solution =
          block_rd(steps, StepArrays<T>::at(inner + 6 * layout.inner_length, layout.inner_length),
                   n, 1, row, breakdown);
      __syncthreads();
    } else {
      load_rows_async(rows, a, b, c, d, ra, rb, rc, rd, n);
      __syncthreads();
      block_cr_reduce(rows, n, stride, breakdown);
      if constexpr (Inner == InnerSolver::pcr) {
        if (m <= warp_pcr_rows) {
          // Few enough rows for one warp: straight from the rows, no copy and no barriers.
          warp_pcr(rows, m, stride, breakdown);
        } else {
          RowArrays<T> current = rows;
          RowArrays<T> next = RowArrays<T>::at(inner, layout.inner_length);
          if (stride > 1) {
            // The reduced system's rows (0, stride, 2 stride, ...) side by side: PCR's accesses
            // are then at unit distance, free of bank conflicts.
            current = next;
            next = RowArrays<T>::at(inner + 4 * layout.inner_length, layout.inner_length);
            for (int r = threadIdx.x; r < m; r += blockDim.x) current.set(r, rows.get(r * stride));
            __syncthreads();
          }
          block_pcr(current, next, m, rows.d, stride, breakdown);
        }
      } else {
        const StepArrays<T> steps = StepArrays<T>::at(inner, layout.inner_length);
        for (int r = threadIdx.x; r < m; r += blockDim.x) {
          steps.set(r, AffineStep<T>::of(rows.get(r * stride), r + 1 == m));
        }
        __syncthreads();
        const T* reduced_x = block_rd(
            steps, StepArrays<T>::at(inner + 6 * layout.inner_length, layout.inner_length), m,
            stride, [&](int r) { return rows.get(r * stride); }, breakdown);
        // Into the rows' d only now: checked mode's residual reads the reduced rows' d.
        __syncthreads();
        for (int r = threadIdx.x; r < m; r += blockDim.x) {
          rows.d[padded<T>(r * stride)] = reduced_x[padded<T>(r)];
        }
        __syncthreads();
      }
      block_cr_substitute(rows, n, stride);
    }
    // In place, x is d: every row of d was read above, before the first barrier.
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
      const T value = solution[padded<T>(i)];
      const T out = Accumulate ? x[i * rx] + value : value;
      x[i * rx] = out;
      if (Checked && !detail::cyclic::finite(out)) atomicMax(&last_bad_row, i + 1);
    }
    __syncthreads();
    if (Checked && threadIdx.x == 0) ops.info[system] = breakdown.info();
  }
}

/// The variant a forced algorithm runs, with its switch size (core/cyclic_variants.hpp).
inline detail::cyclic::Variant variant_for(Algorithm algorithm) {
  return *detail::cyclic::variant_of(algorithm);
}

/// The shared-memory carve-up of a problem for a variant.
template <class T>
SharedLayout layout_for(const Problem& p, const detail::cyclic::Variant& v) {
  return SharedLayout::of<T>(static_cast<int>(p.n), v.switch_rows, v.inner);
}

/// Whether a block holds the system: n within max_rows and its arrays within the shared memory
/// the current device lets a block opt into.
template <class T>
bool block_cyclic_supports(const Problem& p, Algorithm algorithm) {
  if (p.n > max_rows<T>) return false;
  const detail::cyclic::Variant v = variant_for(algorithm);
  int device = 0, optin = 0;
  TRIAX_CUDA_CHECK(cudaGetDevice(&device));
  TRIAX_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return layout_for<T>(p, v).template bytes<T>(v.inner) <= static_cast<std::size_t>(optin);
}

template <class T, InnerSolver Inner>
void launch_block_cyclic(const Problem& p, const Operands<T>& ops, const SharedLayout& layout,
                         cudaStream_t stream) {
  const std::size_t smem = layout.bytes<T>(Inner);
  const int threads = block_threads(p.n);
  const unsigned grid = static_cast<unsigned>(std::min<std::int64_t>(p.count, INT_MAX));
  with_solve_mode(ops, [&](auto accumulate, auto checked) {
    auto kernel = block_cyclic_kernel<T, Inner, accumulate.value, checked.value>;
    allow_shared_memory(kernel, smem);
    launch_kernel(kernel, grid, threads, smem, stream, p, ops, layout);
  });
}

/// Runs a forced cyclic algorithm (whose inner solver is Inner) on the stream.
template <class T, InnerSolver Inner>
void block_cyclic(const Problem& p, const Operands<T>& ops, Algorithm algorithm,
                  cudaStream_t stream) {
  launch_block_cyclic<T, Inner>(p, ops, layout_for<T>(p, variant_for(algorithm)), stream);
}

}  // namespace triax::detail::cuda::cyclic

/// In block_cyclic_<inner>.cu, inside namespace triax::detail::cuda: the launcher triple
/// (launch/kernels.hpp) of algorithm cuda_<name>, whose reduced system the inner solver takes,
/// instantiated for float and double.
#define TRIAX_CYCLIC_LAUNCHERS(name, inner)                                                      \
  template <class T>                                                                             \
  bool block_##name##_supports(const Problem& p) {                                               \
    return cyclic::block_cyclic_supports<T>(p, Algorithm::cuda_##name);                          \
  }                                                                                              \
  template <class T>                                                                             \
  std::size_t block_##name##_workspace(const Problem&) {                                         \
    return 0;                                                                                    \
  }                                                                                              \
  template <class T>                                                                             \
  void block_##name(const Problem& p, const Operands<T>& ops, void*, cudaStream_t stream) {      \
    cyclic::block_cyclic<T, cyclic::InnerSolver::inner>(p, ops, Algorithm::cuda_##name, stream); \
  }                                                                                              \
  TRIAX_INSTANTIATE_CUDA_ALGORITHM(block_##name)
