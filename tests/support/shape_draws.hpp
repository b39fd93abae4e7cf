#pragma once
// The shape classes of triax-bench's `--suite shapes` (bench/shape_classes.hpp), drawn small and
// afresh for the tests: each draw becomes layouts over test buffers, its base offset folded into
// the layouts' offsets (a buffer starting one element past an aligned address looks to every
// kernel like an interior one element further on).
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "shape_classes.hpp"
#include "support/compare.hpp"

namespace triax::test {

using bench::ShapeDraw;

/// Small draws: up to 2^14 points (few long systems: 2,000 to 40,000 rows).
inline bench::ShapeBudget small_shape_budget() {
  bench::ShapeBudget b;
  b.min_points = 64;
  b.max_points = std::int64_t(1) << 14;
  b.long_min = 2000;
  b.long_max = 40000;
  return b;
}

/// A seed for this run, printed by the caller: TRIAX_TEST_SEED if set, else the clock.
inline std::uint64_t shape_seed() {
  if (const char* v = std::getenv("TRIAX_TEST_SEED")) return std::strtoull(v, nullptr, 10);
  return static_cast<std::uint64_t>(
      std::chrono::steady_clock::now().time_since_epoch().count());
}

inline Mode test_mode(bench::Mode m) {
  return m == bench::Mode::in_place ? Mode::in_place
         : m == bench::Mode::separate ? Mode::separate
                                      : Mode::increment;
}

/// The draw's layouts over buffers that start at the allocation's first element.
inline OperandLayouts draw_layouts(const ShapeDraw& d) {
  std::vector<std::int64_t> strides(d.allocated.size());
  std::int64_t s = 1, offset = d.base_offset;
  for (std::size_t k = 0; k < strides.size(); ++k) {
    strides[k] = s;
    offset += d.begin[k] * s;
    s *= d.allocated[k];
  }
  const Layout grid = Layout::strided(d.extents, strides, offset);
  if (!d.broadcast) return OperandLayouts(grid);
  std::vector<std::int64_t> along(d.extents.size(), 0);
  along[d.axis] = 1;
  const Layout coefficients = Layout::strided(d.extents, along, 0);
  return OperandLayouts(coefficients, coefficients, coefficients, grid, grid);
}

inline std::string draw_name(const ShapeDraw& d) {
  return std::string(bench::to_string(d.klass)) + " " + bench::describe(d) + " axis " +
         std::to_string(d.axis) + " " + to_string(test_mode(d.mode));
}

}  // namespace triax::test
