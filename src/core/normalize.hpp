#pragma once
// Solving along axis k of N-D layouts, normalised in exactly one place: the axis becomes
// {n, row stride}; the other dimensions, fastest first, lose extents of 1 and merge wherever
// every operand's strides allow, into the fewest batch dimensions.

#include "core/problem.hpp"
#include "triax/triax.hpp"

namespace triax::detail {

/// Normalises layouts that validate_layouts() accepted.
Problem normalize(const OperandLayouts& layouts, int axis);

}  // namespace triax::detail
