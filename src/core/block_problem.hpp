#pragma once
// The normalised block batch every backend receives, and the interface between core and the
// backends for block tridiagonal plans. The grid part reuses the scalar Problem (normalize()
// applied to the grid dimensions of each operand); the block dimensions add one stride per
// block row and per block column (a, b, c) or per component (d, x).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "core/problem.hpp"
#include "triax/block.hpp"

namespace triax::detail {

/// A normalised block batch: `grid.count` systems of `grid.n` block rows; element (r, c) of
/// block row i of system s in operand op (a, b, c) is at
/// grid.system_offset(op, s) + i * grid.map[op].row_stride + r * entry_row[op] + c * entry_col[op];
/// component r of a vector operand (d, x) at ... + r * entry_row[op].
struct BlockProblem {
  Problem grid;
  int m = 1;
  std::int64_t entry_row[operand_count] = {};  // block row (a, b, c) or component (d, x)
  std::int64_t entry_col[operand_count] = {};  // block column (a, b, c); 0 for d, x
};
static_assert(std::is_trivially_copyable_v<BlockProblem>);

/// A backend's share of a block plan.
template <class T>
class BlockBackendPlan {
 public:
  virtual ~BlockBackendPlan() = default;
  /// Runs the solve; arguments validated by core; must not allocate. An in-place solve passes
  /// the problem with map[op_x] == map[op_d] and entry_row[op_x] == entry_row[op_d].
  virtual void solve(const BlockProblem& problem, const Operands<T>& ops) = 0;
  /// Sets info[0 .. count) to 0 (systems of no block rows). Host memory here; the CUDA plan
  /// clears device memory on its stream.
  virtual void clear_info(int* info, std::int64_t count) { std::fill_n(info, count, 0); }
  virtual BlockAlgorithm algorithm() const = 0;
  virtual std::size_t workspace_bytes() const = 0;
};

template <class T>
std::unique_ptr<BlockBackendPlan<T>> make_reference_block_plan(const BlockProblem& problem,
                                                               const Options& options);
template <class T>
std::unique_ptr<BlockBackendPlan<T>> make_cpu_block_plan(const BlockProblem& problem,
                                                         const Options& options);
/// `algorithm`: automatic or one of the cuda block algorithms (core checked the backend).
template <class T>
std::unique_ptr<BlockBackendPlan<T>> make_cuda_block_plan(const BlockProblem& problem,
                                                          const Options& options,
                                                          BlockAlgorithm algorithm);

}  // namespace triax::detail

/// Instantiates make_cuda_block_plan for float and double, inside namespace triax::detail, where
/// it is defined: the cuda backend, or the not_compiled stub of a build without it.
#define TRIAX_INSTANTIATE_CUDA_BLOCK_PLAN()                                \
  template std::unique_ptr<BlockBackendPlan<float>> make_cuda_block_plan(  \
      const BlockProblem&, const Options&, BlockAlgorithm);                \
  template std::unique_ptr<BlockBackendPlan<double>> make_cuda_block_plan( \
      const BlockProblem&, const Options&, BlockAlgorithm);

namespace triax::detail {}  // namespace triax::detail
