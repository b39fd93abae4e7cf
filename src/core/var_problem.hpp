#pragma once
// A variable-size batch as the backends receive it: per-system lengths, and where each system's
// row 0 is in every operand (back to back: offsets[s], row stride 1; padded: the normalised
// fixed-size Problem's system_offset, its row strides). VarLayout::Data is the whole of it.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "core/problem.hpp"
#include "triax/options.hpp"
#include "triax/varbatch.hpp"

namespace triax {

struct VarLayout::Data {
  std::vector<std::int64_t> lengths;
  std::vector<std::int64_t> offsets;  // back to back only
  // Back to back: the elements the systems cover, as sorted disjoint runs [first, second), for
  // the exact overlap check of operands in one buffer.
  std::vector<std::pair<std::int64_t, std::int64_t>> runs;
  std::optional<OperandLayouts> layouts;  // padded only
  detail::Problem fixed{};                // padded only: the normalised layouts
  std::int64_t total_rows = 0, max_length = 0, span = 0;

  bool padded() const { return layouts.has_value(); }
  /// Element offset of system s's row 0 in operand op (padded: of the problem `p`, whose op_x
  /// map an in-place solve has replaced by op_d's).
  std::int64_t system_offset(const detail::Problem& p, int op, std::int64_t s) const {
    return padded() ? p.system_offset(op, s) : offsets[static_cast<std::size_t>(s)];
  }
  std::int64_t row_stride(const detail::Problem& p, int op) const {
    return padded() ? p.map[op].row_stride : 1;
  }
};

namespace detail {

/// A backend's share of a VarSolver.
template <class T>
class VarBackendPlan {
 public:
  virtual ~VarBackendPlan() = default;
  /// Runs the solve; `p` is the layout's fixed problem with op_x replaced by op_d in place (only
  /// meaningful when padded). Must not allocate.
  virtual void solve(const Problem& p, const Operands<T>& ops) = 0;
  /// As solve, system s solving its first lengths[s] rows (padded layouts only; host memory,
  /// each in 0 .. the layout's max_length, or device memory where on_device). Must not allocate.
  virtual void solve_lengths(const Problem& p, const Operands<T>& ops,
                             const std::int64_t* lengths, bool on_device) = 0;
  /// Whether solve_lengths may be called (with lengths in device memory too, on cuda).
  virtual bool takes_solve_lengths() const = 0;
  virtual std::size_t workspace_bytes() const = 0;
};

template <class T>
std::unique_ptr<VarBackendPlan<T>> make_reference_var_plan(const VarLayout::Data& layout,
                                                           const Options& options);
template <class T>
std::unique_ptr<VarBackendPlan<T>> make_cpu_var_plan(const VarLayout::Data& layout,
                                                     const Options& options);
template <class T>
std::unique_ptr<VarBackendPlan<T>> make_cuda_var_plan(const VarLayout::Data& layout,
                                                      const Options& options);

/// The values of a lengths or offsets array, wherever it lives: host memory as is, device
/// memory (cuda builds) copied to the host first (var_hooks).
std::vector<std::int64_t> host_values(std::span<const std::int64_t> values);

/// Splits systems [0, count) into `parts` contiguous ranges of about equal rows (each system
/// weighted by its length + 1, so that runs of empty systems are shared too): bounds[t] ..
/// bounds[t + 1] is part t.
std::vector<std::int64_t> split_by_rows(const std::vector<std::int64_t>& lengths, int parts);

}  // namespace detail
}  // namespace triax
