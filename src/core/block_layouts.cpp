// The named block layouts (array of blocks, structure of arrays, interleaved), built as plain
// triax::Layout strides over a padded grid.
#include <algorithm>
#include <string>

#include "triax/block.hpp"

namespace triax {
namespace {

enum class Storage { array_of_blocks, structure_of_arrays, interleaved };

// Checks the grid arguments the way Layout::padded does, naming BlockLayouts.
void check_grid(int m, const std::vector<std::int64_t>& extents,
                const std::vector<std::int64_t>& allocated,
                const std::vector<std::int64_t>& begin) {
  const std::string who = "triax::BlockLayouts: ";
  if (m < 1) throw invalid_argument(who + "m = " + std::to_string(m) + " must be at least 1");
  const auto r = extents.size();
  if (r < 1 || r > static_cast<std::size_t>(max_block_grid_rank)) {
    throw invalid_argument(who + "extents has rank " + std::to_string(r) +
                           "; the grid rank must be 1.." + std::to_string(max_block_grid_rank));
  }
  if (!allocated.empty() && allocated.size() != r) {
    throw invalid_argument(who + "allocated has " + std::to_string(allocated.size()) +
                           " entries but extents has " + std::to_string(r));
  }
  if (!begin.empty() && begin.size() != r) {
    throw invalid_argument(who + "begin has " + std::to_string(begin.size()) +
                           " entries but extents has " + std::to_string(r));
  }
}

// One operand: `lead` = m * m (blocks) or m (vectors) values per allocated grid point.
Layout make(Storage storage, int m, bool block, const std::vector<std::int64_t>& extents, int axis,
            const std::vector<std::int64_t>& allocated_in, const std::vector<std::int64_t>& begin) {
  const int r = static_cast<int>(extents.size());
  const std::vector<std::int64_t>& allocated = allocated_in.empty() ? extents : allocated_in;
  // The padded grid alone (Layout::padded checks begin + extents <= allocated, signs), then
  // its strides, reordered and scaled for the storage scheme.
  const Layout grid = Layout::padded(std::span<const std::int64_t>(extents),
                                     std::span<const std::int64_t>(allocated),
                                     std::span<const std::int64_t>(begin));
  std::int64_t grid_stride[max_rank] = {}, points = 1;
  if (storage == Storage::interleaved) {
    // The other dimensions in order, the axis last (slowest).
    for (int k = 0; k < r; ++k) {
      if (k == axis) continue;
      grid_stride[k] = points;
      points *= std::max<std::int64_t>(allocated[k], 1);
    }
    grid_stride[axis] = points;
    points *= std::max<std::int64_t>(allocated[axis], 1);
  } else {
    for (int k = 0; k < r; ++k) {
      grid_stride[k] = grid.stride(k);
      points *= std::max<std::int64_t>(allocated[k], 1);
    }
  }
  std::int64_t begin_offset = 0;
  for (int k = 0; k < r; ++k) begin_offset += (begin.empty() ? 0 : begin[k]) * grid_stride[k];
  const int lead = block ? 2 : 1;
  const std::int64_t per_point = block ? std::int64_t(m) * m : m;
  std::int64_t ext[max_rank], str[max_rank];
  ext[0] = m;
  if (block) ext[1] = m;
  std::int64_t scale;  // element stride of one grid step
  if (storage == Storage::structure_of_arrays) {
    scale = 1;
    str[0] = block ? std::int64_t(m) * points : points;
    if (block) str[1] = points;
  } else {
    scale = per_point;
    str[0] = block ? m : 1;
    if (block) str[1] = 1;
  }
  for (int k = 0; k < r; ++k) {
    ext[lead + k] = extents[k];
    str[lead + k] = grid_stride[k] * scale;
  }
  return Layout::strided(std::span<const std::int64_t>(ext, lead + r),
                         std::span<const std::int64_t>(str, lead + r), begin_offset * scale);
}

BlockLayouts both(Storage storage, int m, const std::vector<std::int64_t>& extents, int axis,
                  const std::vector<std::int64_t>& allocated,
                  const std::vector<std::int64_t>& begin) {
  check_grid(m, extents, allocated, begin);
  return BlockLayouts(make(storage, m, true, extents, axis, allocated, begin),
                      make(storage, m, false, extents, axis, allocated, begin));
}

}  // namespace

BlockLayouts BlockLayouts::array_of_blocks(int m, const std::vector<std::int64_t>& extents,
                                           const std::vector<std::int64_t>& allocated,
                                           const std::vector<std::int64_t>& begin) {
  return both(Storage::array_of_blocks, m, extents, 0, allocated, begin);
}

BlockLayouts BlockLayouts::structure_of_arrays(int m, const std::vector<std::int64_t>& extents,
                                               const std::vector<std::int64_t>& allocated,
                                               const std::vector<std::int64_t>& begin) {
  return both(Storage::structure_of_arrays, m, extents, 0, allocated, begin);
}

BlockLayouts BlockLayouts::interleaved(int m, const std::vector<std::int64_t>& extents, int axis,
                                       const std::vector<std::int64_t>& allocated,
                                       const std::vector<std::int64_t>& begin) {
  if (axis < 0 || axis >= static_cast<int>(extents.size())) {
    throw invalid_argument("triax::BlockLayouts: axis = " + std::to_string(axis) +
                           " is out of range for a grid of rank " + std::to_string(extents.size()));
  }
  return both(Storage::interleaved, m, extents, axis, allocated, begin);
}

}  // namespace triax
