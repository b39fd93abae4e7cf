// Breakdown reporting (checked mode), the ignored corners a[0] and c[n-1], constant-coefficient
// systems with a closed-form solution, and LAPACK ?gtsv as an outside oracle.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#if defined(TRIAX_TEST_HAS_LAPACKE)
#include <lapacke.h>
#endif

#include "support/compare.hpp"

namespace triax::test {
namespace {

template <class T>
class CheckedAndAnalytic : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CheckedAndAnalytic, ValueTypes);

struct Case {
  Backend backend;
  Algorithm algorithm;
};
constexpr Case every_solver[] = {{Backend::reference, Algorithm::reference_thomas},
                                 {Backend::reference, Algorithm::reference_dense_lu},
                                 {Backend::cpu, Algorithm::cpu_thomas},
                                 {Backend::cpu, Algorithm::cpu_thomas_transpose}};

// Checked solve along axis 0 of `layout`; compares info with `want`.
template <class T>
void expect_info(const Case& c, Layout layout, Batch<T> batch, const std::vector<int>& want) {
  SCOPED_TRACE(std::string(to_string(c.algorithm)));
  Solver<T> s(c.backend, layout, 0, {.algorithm = c.algorithm, .checked = true});
  std::vector<int> info(s.system_count(), -1);
  s.solve(batch.a.data(), batch.b.data(), batch.c.data(), batch.d.data(), batch.x.data(),
          info.data());
  for (std::size_t k = 0; k < want.size(); ++k) EXPECT_EQ(info[k], want[k]) << "system " << k;
}

TYPED_TEST(CheckedAndAnalytic, BreakdownIsReportedPerSystem) {
  using T = TypeParam;
  constexpr std::int64_t n = 40, systems = 70;
  const auto layout = Layout::packed({n, systems});
  Batch<T> base{OperandLayouts(layout)};
  base.fill_random(12345);
  std::vector<int> want(systems, 0);
  // System 3: b[0] = 0, the first pivot vanishes (info 1) for Thomas; dense LU pivots past it.
  Batch<T> zero = base;
  zero.b[3 * n + 0] = 0;
  // System 10: NaN in d at row 17.
  zero.d[10 * n + 17] = std::numeric_limits<T>::quiet_NaN();
  // System 65: infinite b at row 39, the last row.
  zero.b[65 * n + 39] = std::numeric_limits<T>::infinity();
  for (const Case& c : every_solver) {
    const bool lu = c.algorithm == Algorithm::reference_dense_lu;
    std::vector<int> w = want;
    w[3] = lu ? 0 : 1;  // dense LU pivots past the zero
    // Thomas: the eliminated right-hand side turns NaN at row 17. Dense LU has no such check:
    // the NaN spreads through the solution and the last non-finite row is reported.
    w[10] = lu ? n : 18;
    w[65] = n;  // the last pivot is infinite
    expect_info<T>(c, layout, zero, w);
  }
}

TYPED_TEST(CheckedAndAnalytic, IgnoredCornersAreNeverUsed) {
  using T = TypeParam;
  constexpr std::int64_t n = 33, systems = 40;
  for (int axis = 0; axis < 2; ++axis) {
    const auto layout = axis == 0 ? Layout::packed({n, systems}) : Layout::packed({systems, n});
    Batch<T> clean{OperandLayouts(layout)};
    clean.fill_random(99);
    Batch<T> dirty = clean;
    for (std::int64_t s = 0; s < systems; ++s) {
      const std::int64_t first = axis == 0 ? s * n : s, last = axis == 0 ? s * n + n - 1 : (n - 1) * systems + s;
      dirty.a[first] = std::numeric_limits<T>::quiet_NaN();
      dirty.c[last] = std::numeric_limits<T>::infinity();
    }
    for (Algorithm alg : {Algorithm::cpu_thomas, Algorithm::cpu_thomas_transpose}) {
      Solver<T> s(Backend::cpu, layout, axis, {.algorithm = alg});
      Batch<T> x1 = clean, x2 = dirty;
      s.solve_in_place(x1.a.data(), x1.b.data(), x1.c.data(), x1.d.data());
      s.solve_in_place(x2.a.data(), x2.b.data(), x2.c.data(), x2.d.data());
      EXPECT_EQ(x1.d, x2.d) << to_string(alg) << ", axis " << axis;
    }
  }
}

TYPED_TEST(CheckedAndAnalytic, ConstantCoefficientsHaveAClosedForm) {
  using T = TypeParam;
  // -x[i-1] + 4 x[i] - x[i+1] = d[i] with x[i] = sin(k (i + 1)): d follows exactly from the
  // identity sin(a - k) + sin(a + k) = 2 sin(a) cos(k), corrected at both ends.
  constexpr std::int64_t n = 257, systems = 19;
  const double k = 0.37;
  const auto layout = Layout::packed({systems, n});
  Batch<T> batch{OperandLayouts(layout)};
  std::vector<double> exact(n);
  for (std::int64_t i = 0; i < n; ++i) exact[i] = std::sin(k * double(i + 1));
  for (std::int64_t s = 0; s < systems; ++s) {
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t o = i * systems + s;
      batch.a[o] = -1;
      batch.b[o] = 4;
      batch.c[o] = -1;
      // Row i holds -x[i-1] + 4 x[i] - x[i+1]; x[-1] = sin(0) = 0 drops out at the first row,
      // x[n] = sin(k (n + 1)) must be moved to the right-hand side at the last.
      double d = (4 - 2 * std::cos(k)) * exact[i];
      if (i == n - 1) d += std::sin(k * double(n + 1));
      batch.d[o] = static_cast<T>(d);
    }
  }
  for (Backend backend : {Backend::reference, Backend::cpu}) {
    Batch<T> work = batch;
    Solver<T> s(backend, layout, 1);
    s.solve_in_place(work.a.data(), work.b.data(), work.c.data(), work.d.data());
    // Condition number of tridiag(-1, 4, -1) is at most 6/2 = 3; d carries its own rounding.
    const double tol = 64 * 3 * std::numeric_limits<T>::epsilon();
    for (std::int64_t s2 = 0; s2 < systems; ++s2) {
      for (std::int64_t i = 0; i < n; ++i) {
        ASSERT_NEAR(double(work.d[i * systems + s2]), exact[i], tol)
            << to_string(backend) << ", system " << s2 << ", row " << i;
      }
    }
  }
}

#if defined(TRIAX_TEST_HAS_LAPACKE)
TYPED_TEST(CheckedAndAnalytic, LapackGtsvAgrees) {
  using T = TypeParam;
  constexpr std::int64_t n = 300, systems = 12;
  const auto layout = Layout::packed({n, systems});
  Batch<T> batch{OperandLayouts(layout)};
  batch.fill_random(4242);
  Batch<T> ours = batch;
  Solver<T> s(Backend::cpu, layout, 0);
  s.solve_in_place(ours.a.data(), ours.b.data(), ours.c.data(), ours.d.data());
  std::vector<T> lapack = batch.d;
  for (std::int64_t k = 0; k < systems; ++k) {
    std::vector<T> dl(batch.a.begin() + k * n + 1, batch.a.begin() + (k + 1) * n);
    std::vector<T> dg(batch.b.begin() + k * n, batch.b.begin() + (k + 1) * n);
    std::vector<T> du(batch.c.begin() + k * n, batch.c.begin() + (k + 1) * n - 1);
    int info;
    if constexpr (std::is_same_v<T, double>) {
      info = LAPACKE_dgtsv(LAPACK_COL_MAJOR, n, 1, dl.data(), dg.data(), du.data(),
                           lapack.data() + k * n, n);
    } else {
      info = LAPACKE_sgtsv(LAPACK_COL_MAJOR, n, 1, dl.data(), dg.data(), du.data(),
                           lapack.data() + k * n, n);
    }
    ASSERT_EQ(info, 0);
  }
  EXPECT_TRUE(outputs_match(layout, ours.d, lapack, batch.condition));
}
#endif

}  // namespace
}  // namespace triax::test
