#pragma once
// One matrix per group of systems (triax::FactoredSolver's grouped constructor): the caller lays
// a, b, c out over d's dimensions with a Layout whose batch strides are 0 (or extents 1) where
// the systems share the matrix. The batch dimensions with a non-zero stride and an extent above 1
// are the group dimensions; systems whose coordinates differ only elsewhere share one matrix.
// This file splits the batch into its groups: each group is d and x with the group dimensions
// fixed (an ordinary one-matrix sub-batch, normalised and solved by the usual backend plans),
// reached by adding the group's element offset to the base pointers.

#include <cstdint>
#include <optional>
#include <vector>

#include "core/factored/factor_table.hpp"

#include "triax/layout.hpp"

namespace triax::detail {

/// More groups than this are refused: each group is a backend plan of its own (on cuda, a kernel
/// launch per solve and a device allocation), so a matrix per system belongs to triax::Solver.
inline constexpr std::int64_t max_factored_groups = 4096;

struct GroupSplit {
  std::vector<int> dims;   // the group dimensions, lowest first
  std::int64_t count = 1;  // groups (the product of the group dimensions' extents)
  std::int64_t systems_per_group = 0;
  // d and x with every group dimension's extent set to 1 (Layout has no default state).
  Layout d = Layout::packed({1}), x = Layout::packed({1});
  std::vector<std::int64_t> offset_d, offset_x, offset_coefficients;  // per group
  /// Whether the group dimensions are the slowest of the dimensions with extent > 1 (besides the
  /// axis): then group g's systems are info[g * systems_per_group ...] in the API's order, and
  /// each group's plan writes its part of info directly.
  bool info_contiguous = true;
};

/// Validates `coefficients` against d (triax::invalid_argument naming the argument and value:
/// rank, an extent that is neither d's nor a broadcast 1 off the axis, too many groups) and
/// splits the batch. `who` prefixes the messages.
GroupSplit split_groups(const Layout& coefficients, const Layout& d, const Layout& x, int axis,
                        const char* who);

/// For a split that is not info_contiguous: entry g * systems_per_group + j is the API index
/// (checked mode's info) of system j of group g.
std::vector<std::int64_t> group_info_index(const GroupSplit& split, const Layout& d, int axis);

/// The groups' Thomas tables as one table, so that one kernel launch (one OpenMP region) solves
/// every group: each group's rows back to back under a common head and tail, the largest of the
/// groups' own (a row past a group's own head and before its own tail is its limit, bit for bit,
/// so the common split is as lossless as each table's). System s reads group s / systems_per_group
/// (the group dimensions must be the slowest: GroupSplit::info_contiguous). Empty where the groups
/// differ in scale, one breaks down (both are per-table constants of the kernels), n is 0, or the
/// common table would pass `max_bytes`; those plans then run group by group.
template <class T>
std::optional<FactorTable<T>> unify_tables(const std::vector<const FactorTable<T>*>& tables,
                                           std::int64_t systems_per_group, std::size_t max_bytes);

}  // namespace triax::detail
