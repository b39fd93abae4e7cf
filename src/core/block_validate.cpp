#include "core/block_validate.hpp"

#include <string>

#include "core/normalize.hpp"
#include "core/overlap.hpp"
#include "core/validate.hpp"

namespace triax::detail {
namespace {

constexpr const char* operand_names[operand_count] = {"a", "b", "c", "d", "x"};
constexpr const char* who = "triax::BlockSolver: ";

const Layout& layout_of(const BlockLayouts& l, int op) {
  const Layout* all[operand_count] = {&l.a, &l.b, &l.c, &l.d, &l.x};
  return *all[op];
}

bool is_block(int op) { return op <= op_c; }
// Dimensions in front of the grid: row and column (blocks) or component (vectors).
int lead_dims(int op) { return is_block(op) ? 2 : 1; }

[[noreturn]] void reject(const std::string& what) { throw invalid_argument(who + what); }

// Whether offset + sum (extent - 1) x stride fits in 64 bits.
bool offsets_fit(const Layout& l) {
  __int128 off = l.offset();
  for (int k = 0; k < l.rank(); ++k) {
    if (l.extent(k) == 0) return true;
    off += static_cast<__int128>(l.extent(k) - 1) * l.stride(k);
    if (off > INT64_MAX) return false;
  }
  return true;
}

std::string strides_of(const Layout& l) {
  std::string s;
  for (int k = 0; k < l.rank(); ++k) s += (k ? ", " : "") + std::to_string(l.stride(k));
  return "{" + s + "}";
}

}  // namespace

void validate_block_layouts(int m, const BlockLayouts& layouts, int axis) {
  if (m < 1) reject("block size m = " + std::to_string(m) + " must be at least 1");
  const int r = layouts.d.rank() - 1;
  if (r < 1 || r > max_block_grid_rank) {
    reject("layout of d has rank " + std::to_string(layouts.d.rank()) +
           "; a vector operand has rank r + 1 with grid rank r = 1.." +
           std::to_string(max_block_grid_rank) + " (dimension 0 is the component)");
  }
  for (int op = 0; op < operand_count; ++op) {
    const Layout& l = layout_of(layouts, op);
    const std::string name = operand_names[op];
    const int want_rank = r + lead_dims(op);
    if (l.rank() != want_rank) {
      reject("layout of " + name + " has rank " + std::to_string(l.rank()) + " but needs " +
             std::to_string(want_rank) +
             (is_block(op) ? " (block row, block column, then the "
                             "grid of d's rank - 1)"
                           : " (component, then the grid)"));
    }
    for (int k = 0; k < lead_dims(op); ++k) {
      if (l.extent(k) != m) {
        reject("layout of " + name + " has extent[" + std::to_string(k) + "] = " +
               std::to_string(l.extent(k)) + " but the block size m = " + std::to_string(m));
      }
    }
    for (int g = 0; g < r; ++g) {
      const std::int64_t e = l.extent(lead_dims(op) + g), want = layouts.d.extent(1 + g);
      if (e != want) {
        reject("layout of " + name + " has grid extent " + std::to_string(g) + " (extent[" +
               std::to_string(lead_dims(op) + g) + "]) = " + std::to_string(e) + " but d has " +
               std::to_string(want));
      }
    }
    if (!offsets_fit(l)) {
      reject("layout of " + name + ": offset + (extents - 1) x strides overflows 64 bits");
    }
  }
  if (axis < 0 || axis >= r) {
    reject("axis = " + std::to_string(axis) + " is out of range for a grid of rank " +
           std::to_string(r) + " (the axis counts grid dimensions)");
  }
  __int128 count = 1;
  for (int k = 0; k < layouts.a.rank(); ++k) {
    count *= layouts.a.extent(k);
    if (count > INT64_MAX) reject("the number of block elements overflows 64 bits");
  }
  if (const Overlap o = layout_self_overlaps(layouts.x); o != Overlap::no) {
    reject("layout of x with strides " + strides_of(layouts.x) +
           " maps two indices to one element: the output would be written more than once" +
           (o == Overlap::yes ? "" : " (may: the strides are too intricate to decide)"));
  }
}

BlockProblem normalize_block(int m, const BlockLayouts& layouts, int axis) {
  // The grid dimensions of each operand, as a scalar layout: normalize() then merges the batch
  // dimensions exactly as for scalar solves.
  const int r = layouts.d.rank() - 1;
  auto grid_of = [&](int op) {
    const Layout& l = layout_of(layouts, op);
    std::int64_t extents[max_rank], strides[max_rank];
    for (int g = 0; g < r; ++g) {
      extents[g] = l.extent(lead_dims(op) + g);
      strides[g] = l.stride(lead_dims(op) + g);
    }
    return Layout::strided(std::span<const std::int64_t>(extents, r),
                           std::span<const std::int64_t>(strides, r), l.offset());
  };
  const OperandLayouts grid(grid_of(op_a), grid_of(op_b), grid_of(op_c), grid_of(op_d),
                            grid_of(op_x));
  BlockProblem p;
  p.grid = normalize(grid, axis);
  p.m = m;
  for (int op = 0; op < operand_count; ++op) {
    const Layout& l = layout_of(layouts, op);
    p.entry_row[op] = l.stride(0);
    p.entry_col[op] = is_block(op) ? l.stride(1) : 0;
  }
  return p;
}

}  // namespace triax::detail
