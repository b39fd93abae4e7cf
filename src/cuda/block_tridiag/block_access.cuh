#pragma once
// What both CUDA block kernels share: where one system's block rows lie (any layout, through
// the BlockProblem's strides), the launch geometry, the dispatch of the run-time M and solve
// mode to compile-time ones, and (pivot_block_lu.cuh) the breakdown test of checked mode.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "core/block_problem.hpp"
#include "cuda/block_tridiag/block_launchers.hpp"
#include "cuda/block_tridiag/pivot_block_lu.cuh"
#include "cuda/solve_modes.cuh"

namespace triax::detail::cuda {

/// One system's operands: entry (r, c) of block row i of a block operand, component r of a
/// vector operand. The strides stay in the kernel parameter (constant bank); only the five base
/// offsets take registers.
template <class T>
struct BlockSystem {
  const BlockProblem* p;
  std::int64_t base[operand_count];

  __device__ BlockSystem(const BlockProblem& problem, std::int64_t s) : p(&problem) {
    for (int op = 0; op < operand_count; ++op) base[op] = problem.grid.system_offset(op, s);
  }
  __device__ std::int64_t at(int op, std::int64_t i, int r, int c = 0) const {
    return base[op] + i * p->grid.map[op].row_stride + r * p->entry_row[op] + c * p->entry_col[op];
  }
  /// The coefficient blocks are never written during a solve: read through the read-only cache.
  __device__ T block(const T* op_ptr, int op, std::int64_t i, int r, int c) const {
    return __ldg(op_ptr + at(op, i, r, c));
  }
};

/// Threads per thread block of both kernels, and the grid that covers `threads` threads.
constexpr int block_kernel_threads = 128;
inline unsigned block_kernel_grid(std::int64_t threads) {
  const std::int64_t blocks = (threads + block_kernel_threads - 1) / block_kernel_threads;
  return static_cast<unsigned>(blocks < (1 << 30) ? blocks : (1 << 30));
}

/// Calls launch(std::integral_constant<int, M>, accumulate, checked) for the run-time m, trying
/// M, M + 1, ... up to max_cuda_block_size.
template <int M, class T, class Launch>
void launch_with_block_size(int m, const Operands<T>& ops, Launch& launch) {
  if constexpr (M <= max_cuda_block_size) {
    if (m != M) return launch_with_block_size<M + 1>(m, ops, launch);
    with_solve_mode(ops, [&](auto accumulate, auto checked) {
      launch(std::integral_constant<int, M>{}, accumulate, checked);
    });
  } else {
    check_cuda_block_size(m);  // throws: m is beyond the kernels
  }
}

/// Calls launch(std::integral_constant<int, M>, accumulate, checked) for the run-time p.m.
template <class T, class Launch>
void with_block_size_and_mode(const BlockProblem& p, const Operands<T>& ops, Launch&& launch) {
  launch_with_block_size<1>(p.m, ops, launch);
}

}  // namespace triax::detail::cuda
