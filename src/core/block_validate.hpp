#pragma once
// Checks and normalisation of block layouts (triax::BlockSolver). Each check throws
// triax::invalid_argument naming the argument and its value, before anything is written.

#include <cstddef>

#include "core/block_problem.hpp"
#include "triax/block.hpp"

namespace triax::detail {

/// Plan-time checks: m >= 1; ranks r + 2 (blocks) and r + 1 (vectors), 1 <= r <= 6; block
/// extents m x m and vector extent m; equal grid extents; axis in 0..r-1; no 64-bit overflow; no
/// stride 0 over an extent > 1 in x.
void validate_block_layouts(int m, const BlockLayouts& layouts, int axis);

/// Normalises layouts that validate_block_layouts() accepted.
BlockProblem normalize_block(int m, const BlockLayouts& layouts, int axis);

}  // namespace triax::detail
