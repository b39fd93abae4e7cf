#pragma once
// Test problems shared by every backend's tests: buffers laid out by a triax::Layout, filled with
// random diagonally dominant systems (or constant-coefficient ones with a closed form), and a
// comparison whose tolerance is a multiple of machine epsilon times a condition estimate.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "triax/triax.hpp"

namespace triax::test {

/// Elements a buffer must hold for a layout: one past its largest offset.
inline std::size_t buffer_size(const Layout& l) {
  if (l.size() == 0) return 1;
  std::int64_t off = l.offset();
  for (int k = 0; k < l.rank(); ++k) off += (l.extent(k) - 1) * l.stride(k);
  return static_cast<std::size_t>(off + 1);
}

/// Calls f(offset) for every logical element of a layout.
template <class F>
void for_each_offset(const Layout& l, F&& f) {
  if (l.size() == 0) return;
  std::vector<std::int64_t> idx(l.rank(), 0);
  while (true) {
    f(l.offset_of(idx));
    int k = 0;
    while (k < l.rank() && ++idx[k] == l.extent(k)) idx[k++] = 0;
    if (k == l.rank()) return;
  }
}

/// The offset of row i of system s when solving along `axis`: systems enumerate the other
/// dimensions in mixed radix, the fastest (lowest) dimension first. normalize() numbers systems
/// this way, and checked mode's info array follows it.
inline std::int64_t system_row_offset(const Layout& l, int axis, std::int64_t s, std::int64_t i) {
  std::vector<std::int64_t> idx(l.rank());
  for (int k = 0; k < l.rank(); ++k) {
    if (k == axis) {
      idx[k] = i;
    } else {
      idx[k] = s % l.extent(k);
      s /= l.extent(k);
    }
  }
  return l.offset_of(idx);
}

/// The offsets of system s's rows along `axis`.
inline std::vector<std::int64_t> system_rows(const Layout& l, int axis, std::int64_t s) {
  std::vector<std::int64_t> rows(l.extent(axis));
  for (std::int64_t i = 0; i < l.extent(axis); ++i) rows[i] = system_row_offset(l, axis, s, i);
  return rows;
}

/// Coefficients constant along the system, one value per system: row stride 0 along `axis`,
/// packed over the other dimensions.
inline Layout one_value_per_system(const std::vector<std::int64_t>& shape, int axis) {
  std::vector<std::int64_t> strides(shape.size(), 0);
  std::int64_t stride = 1;
  for (std::size_t dim = 0; dim < shape.size(); ++dim) {
    if (static_cast<int>(dim) == axis) continue;
    strides[dim] = stride;
    stride *= shape[dim];
  }
  return Layout::strided(shape, strides);
}

/// One matrix for every system: a, b, c vary only along `axis` (stride 0 across the batch), d and
/// x packed over the whole shape.
inline OperandLayouts one_matrix_for_every_system(const std::vector<std::int64_t>& shape, int axis) {
  std::vector<std::int64_t> strides(shape.size(), 0);
  strides[axis] = 1;
  const auto coef = Layout::strided(shape, strides);
  const auto dense = Layout::packed(shape);
  return OperandLayouts(coef, coef, coef, dense, dense);
}

/// Layouts of one 19 x 10 x 7 grid that the backends' tests mix per operand: ghost layers of 1-2
/// points, each padded differently (padded_a, padded_d, padded_x); z fastest in memory, then x,
/// then y (permuted); odd strides with gaps everywhere, x at stride 3, y at 61, z at 617 (odd).
struct MixedGridLayouts {
  Layout padded_a = Layout::padded({19, 10, 7}, {22, 12, 9}, {1, 1, 1});
  Layout padded_d = Layout::padded({19, 10, 7}, {21, 13, 8}, {2, 0, 1});
  Layout padded_x = Layout::padded({19, 10, 7}, {20, 10, 10}, {0, 0, 2});
  Layout permuted = Layout::strided({19, 10, 7}, {7, 7 * 19, 1}, 5);
  Layout odd = Layout::strided({19, 10, 7}, {3, 61, 617}, 11);
};

/// A seed for the running test, different for every test (typed and parameterised instances
/// included) and for every k within it; tests print it with SCOPED_TRACE.
inline std::uint64_t test_seed(std::uint64_t k = 0) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "none";
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a: the same seed on every platform
  for (unsigned char ch : name) h = (h ^ ch) * 1099511628211ull;
  return h ^ (k * 0x9e3779b97f4a7c15ull);
}

/// Sets every element of a buffer that a layout does not cover to `value`.
template <class T>
void fill_outside(const Layout& l, std::vector<T>& buffer, T value) {
  std::vector<bool> in(buffer.size(), false);
  for_each_offset(l, [&](std::int64_t o) { in[o] = true; });
  for (std::size_t o = 0; o < buffer.size(); ++o) {
    if (!in[o]) buffer[o] = value;
  }
}

/// The buffers of one batch: every operand in its own allocation, padding filled with a
/// poison value so that reads of the wrong element show up.
template <class T>
struct Batch {
  OperandLayouts layouts;
  std::vector<T> a, b, c, d, x;
  /// The condition estimate of the generated systems: max row (|a|+|b|+|c|) / min dominance
  /// margin (|b|-|a|-|c|).
  double condition = 1;

  explicit Batch(const OperandLayouts& l)
      : layouts(l),
        a(buffer_size(l.a), poison()),
        b(buffer_size(l.b), poison()),
        c(buffer_size(l.c), poison()),
        d(buffer_size(l.d), poison()),
        x(buffer_size(l.x), poison()) {}

  static T poison() { return std::numeric_limits<T>::quiet_NaN(); }

  /// Random diagonally dominant systems: a, c, d uniform in [-1, 1], b = +-(|a| + |c| + margin)
  /// with margin in [0.5, 1.5]. Broadcast operands get one value per element they hold.
  void fill_random(std::uint64_t seed) {
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> u(-1, 1), m(0.5, 1.5);
    for_each_offset(layouts.a, [&](std::int64_t o) { a[o] = static_cast<T>(u(g)); });
    for_each_offset(layouts.c, [&](std::int64_t o) { c[o] = static_cast<T>(u(g)); });
    for_each_offset(layouts.d, [&](std::int64_t o) { d[o] = static_cast<T>(u(g)); });
    // b needs the a and c of its own element; with different layouts (broadcast) use the
    // largest |a| + |c| the batch holds, which keeps every row dominant.
    double amax = 0, cmax = 0;
    for_each_offset(layouts.a, [&](std::int64_t o) { amax = std::max(amax, std::abs(double(a[o]))); });
    for_each_offset(layouts.c, [&](std::int64_t o) { cmax = std::max(cmax, std::abs(double(c[o]))); });
    for_each_offset(layouts.b, [&](std::int64_t o) {
      const double sign = u(g) < 0 ? -1 : 1;
      b[o] = static_cast<T>(sign * (amax + cmax + m(g)));
    });
    condition = (2 * (amax + cmax) + 1.5) / 0.5;
  }

  /// Fills x's elements with a value (for increment tests) or the poison.
  void fill_x(T value) {
    for_each_offset(layouts.x, [&](std::int64_t o) { x[o] = value; });
  }
};

/// Tolerance for comparing a solve in precision T with the long double reference: a multiple of
/// epsilon times the condition estimate, scaled by the largest |x|.
template <class T>
double tolerance(double condition, double scale) {
  return 32.0 * condition * std::numeric_limits<T>::epsilon() * std::max(scale, 1.0);
}

/// Compares two outputs element by element over a layout; NaN never passes.
template <class T>
::testing::AssertionResult outputs_match(const Layout& l, const std::vector<T>& got,
                                         const std::vector<T>& want, double condition) {
  double scale = 0;
  for_each_offset(l, [&](std::int64_t o) { scale = std::max(scale, std::abs(double(want[o]))); });
  const double tol = tolerance<T>(condition, scale);
  std::int64_t bad = -1;
  double worst = 0;
  for_each_offset(l, [&](std::int64_t o) {
    const double e = std::abs(double(got[o]) - double(want[o]));
    if (!(e <= tol) && bad < 0) bad = o;
    if (e > worst || std::isnan(e)) worst = std::isnan(e) ? INFINITY : e;
  });
  if (bad < 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "element at offset " << bad << ": got " << got[bad] << ", want " << want[bad]
         << " (tolerance " << tol << ", worst error " << worst << ")";
}

}  // namespace triax::test
