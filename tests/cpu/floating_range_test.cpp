// Scale invariance over the whole floating-point range (issue 34): a well-conditioned system
// multiplied by 2^k is the same system, and every host path must solve it as well as the
// unscaled one, whether its pivots are subnormal or near the overflow threshold, or report a
// breakdown. Matrix and d scaled alike leave x unchanged; d scaled alone scales x by 2^k. The
// systems hold values with few significant bits, so that scaling them into the subnormal range
// is still exact, and the measure is the componentwise (Oettli-Prager) backward error against
// the unscaled system, computed in long double.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cpu/host_solvers.hpp"

namespace triax::test {
namespace {

template <class T>
class FloatingRange : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FloatingRange, ValueTypes);

// The unscaled operands: multiples of 1/8 of at most 5 significant bits, a and c in [-1, 1], b
// of either sign and at least |a| + |c| + 1/2, d in [-1, 1] and nowhere 0 (a zero d would put
// no bound on k); the smallest non-zero magnitude is 1/8, the largest below 4.
template <class T>
void fill_short_values(Batch<T>& batch, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_int_distribution<int> ac(-8, 8), dd(1, 8), margin(4, 12), sign(0, 1);
  const auto value = [](int eighths) { return static_cast<T>(eighths) / 8; };
  for_each_offset(batch.layouts.a, [&](std::int64_t o) { batch.a[o] = value(ac(g)); });
  for_each_offset(batch.layouts.c, [&](std::int64_t o) { batch.c[o] = value(ac(g)); });
  for_each_offset(batch.layouts.d, [&](std::int64_t o) {
    batch.d[o] = value(sign(g) ? dd(g) : -dd(g));
  });
  // As Batch::fill_random: b dominant over the largest |a| + |c| the batch holds.
  for_each_offset(batch.layouts.b, [&](std::int64_t o) {
    const int m = 16 + margin(g);  // 2 + [1/2, 3/2] in eighths
    batch.b[o] = value(sign(g) ? m : -m);
  });
  batch.condition = (2 * 2 + 1.5) / 0.5;
}

// The componentwise backward error of x for A x = d over all systems:
// max_i (|(A x - d)_i| - floor) / (|a_i x_{i-1}| + |b_i x_i| + |c_i x_{i+1}| + |d_i|), with x
// read as x_scale * x. `floor` lets the absolute rounding of subnormal results in (about a
// denorm_min per operation in the scaled system, times coefficients below 4): no relative
// bound can hold there, for any solver that computes in T.
// Row i of system s of each operand (a, b, c, d, x): offset[op][s * n + i], computed once.
struct RowOffsets {
  std::int64_t n = 0, systems = 0;
  std::vector<std::int64_t> offset[5];
  RowOffsets(const OperandLayouts& l, int axis) : n(l.d.extent(axis)), systems(l.d.size() / n) {
    const Layout* lay[5] = {&l.a, &l.b, &l.c, &l.d, &l.x};
    for (int op = 0; op < 5; ++op) {
      for (std::int64_t s = 0; s < systems; ++s) {
        for (std::int64_t i = 0; i < n; ++i) {
          offset[op].push_back(system_row_offset(*lay[op], axis, s, i));
        }
      }
    }
  }
};

template <class T>
long double backward_error(const Batch<T>& batch, const RowOffsets& rows, const std::vector<T>& x,
                           long double x_scale, long double floor) {
  const std::int64_t n = rows.n;
  long double worst = 0;
  for (std::int64_t s = 0; s < rows.systems; ++s) {
    const auto at = [&](int op, const std::vector<T>& v, std::int64_t i) {
      return static_cast<long double>(v[rows.offset[op][s * n + i]]);
    };
    for (std::int64_t i = 0; i < n; ++i) {
      const long double xi = at(4, x, i) * x_scale;
      long double r = at(1, batch.b, i) * xi - at(3, batch.d, i);
      long double den = std::fabs(at(1, batch.b, i) * xi) + std::fabs(at(3, batch.d, i));
      if (i > 0) {
        const long double t = at(0, batch.a, i) * at(4, x, i - 1) * x_scale;
        r += t;
        den += std::fabs(t);
      }
      if (i + 1 < n) {
        const long double t = at(2, batch.c, i) * at(4, x, i + 1) * x_scale;
        r += t;
        den += std::fabs(t);
      }
      const long double e = std::max(std::fabs(r) - floor, 0.0L) / den;
      if (!(e <= worst)) worst = std::isnan(e) ? INFINITY : e;
    }
  }
  return worst;
}

// The batch with d, and a, b, c where `matrix`, scaled by 2^k, exactly.
template <class T>
Batch<T> scaled(const Batch<T>& batch, int k, bool matrix) {
  Batch<T> out = batch;
  // Every element of the buffer once (a broadcast layout visits its elements many times);
  // padding holds NaN, which stays NaN.
  const auto scale = [k](std::vector<T>& v, const Layout&) {
    for (T& e : v) e = std::ldexp(e, k);
  };
  if (matrix) {
    scale(out.a, out.layouts.a);
    scale(out.b, out.layouts.b);
    scale(out.c, out.layouts.c);
  }
  scale(out.d, out.layouts.d);
  return out;
}

TYPED_TEST(FloatingRange, ScaledSystemsSolveAsWellAsUnscaled) {
  using T = TypeParam;
  using limits = std::numeric_limits<T>;
  constexpr std::int64_t n = 33, systems = 40;
  const long double u = limits::epsilon() / 2;
  const long double denorm = limits::denorm_min();
  // Exact scaling: the smallest magnitude 1/8 = 2^-3 with 5 significant bits stays exact down
  // to 2^(k-3) >= denorm_min * 2^4; the largest (below 4 = 2^2) stays finite for k up to
  // max_exponent - 3 (x is below 2 = 1 / the smallest dominance margin 1/2).
  const int k_min = limits::min_exponent - limits::digits - 1 + 3 + 4 + 1;
  const int k_max = limits::max_exponent - 3;
  std::vector<int> ks;
  for (int k = k_min; k <= k_max; k += sizeof(T) == 4 ? 5 : 23) ks.push_back(k);
  for (int k : {k_max, limits::min_exponent - 1, limits::min_exponent - 5, -limits::max_exponent + 3})
    if (k >= k_min && k <= k_max) ks.push_back(k);

  std::vector<HostSolver> solvers(std::begin(host_solvers), std::end(host_solvers));
  const bool one_matrix_kinds[] = {false, true};
  int seed_k = 0;
  for (int axis = 0; axis < 2; ++axis) {
    for (bool one_matrix : one_matrix_kinds) {
      const Layout layout = systems_along(axis, n, systems);
      const Layout coef =
          one_matrix ? (axis == 0 ? Layout::strided({n, systems}, {1, 0})
                                  : Layout::strided({systems, n}, {0, 1}))
                     : layout;
      Batch<T> batch{OperandLayouts(coef, coef, coef, layout, layout)};
      const std::uint64_t seed = test_seed(seed_k++);
      fill_short_values(batch, seed);
      const RowOffsets rows(batch.layouts, axis);
      for (const HostSolver& h : solvers) {
        for (bool checked : {false, true}) {
          Solver<T> s(h.backend, batch.layouts, axis, {.algorithm = h.algorithm, .checked = checked});
          std::vector<int> info(s.system_count(), -1);
          Batch<T> base = batch;
          s.solve(base.a.data(), base.b.data(), base.c.data(), base.d.data(), base.x.data(),
                  checked ? info.data() : nullptr);
          const long double be0 = backward_error(batch, rows, base.x, 1, 0);
          ASSERT_LE(be0, 64 * u) << h.name() << ": the unscaled system itself";
          for (bool matrix : {true, false}) {
            for (int k : ks) {
              SCOPED_TRACE(h.name() + ", axis " + std::to_string(axis) +
                           (one_matrix ? ", one matrix" : "") + (checked ? ", checked" : "") +
                           (matrix ? ", A and d" : ", d alone") + " scaled by 2^" +
                           std::to_string(k) + ", seed " + std::to_string(seed));
              Batch<T> work = scaled(batch, k, matrix);
              std::fill(info.begin(), info.end(), -1);
              s.solve(work.a.data(), work.b.data(), work.c.data(), work.d.data(), work.x.data(),
                      checked ? info.data() : nullptr);
              // In the unscaled frame: x read back as x 2^-k where d alone was scaled; a
              // rounding of about a denorm_min in the scaled system is denorm_min 2^-k here.
              const long double x_scale = matrix ? 1 : std::ldexp(1.0L, -k);
              const long double floor = 32 * denorm * std::ldexp(1.0L, -k);
              const long double be = backward_error(batch, rows, work.x, x_scale, floor);
              ASSERT_LE(be, be0 + 4 * u);
              if (checked) {
                for (std::int64_t j = 0; j < systems; ++j) ASSERT_EQ(info[j], 0) << "system " << j;
              }
            }
          }
        }
      }
    }
  }
}

// The one-row example of issue 34: a subnormal pivot whose reciprocal overflows.
TYPED_TEST(FloatingRange, SubnormalPivotOfOneRow) {
  using T = TypeParam;
  const T tiny = std::ldexp(T(1), std::numeric_limits<T>::min_exponent - 5);  // subnormal
  for (const HostSolver& h : host_solvers) {
    for (int systems : {1, 40}) {
      SCOPED_TRACE(h.name() + ", systems " + std::to_string(systems));
      const Layout layout = Layout::packed({1, systems});
      std::vector<T> a(systems, T(0)), b(systems, tiny), c(systems, T(0)), d(systems, tiny),
          x(systems, T(-1));
      std::vector<int> info(systems, -1);
      Solver<T>(h.backend, layout, 0, {.algorithm = h.algorithm, .checked = true})
          .solve(a.data(), b.data(), c.data(), d.data(), x.data(), info.data());
      for (int j = 0; j < systems; ++j) {
        EXPECT_EQ(x[j], T(1)) << "system " << j;
        EXPECT_EQ(info[j], 0) << "system " << j;
      }
    }
  }
}

}  // namespace
}  // namespace triax::test
