// Checked mode on every host solver: breakdown at a known row reported LAPACK style (info = row
// + 1) for that system and 0 for the others, in every output mode and along both axes; dense LU
// solving what Thomas cannot, and reporting singular matrices; the ignored corners a[0] and
// c[n-1].
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "cpu/host_solvers.hpp"

namespace triax::test {
namespace {

template <class T>
class CheckedMode : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CheckedMode, ValueTypes);

// Solves a batch in checked mode; returns info (filled with -1 first, so that an unwritten
// entry shows).
template <class T>
std::vector<int> checked_solve(const HostSolver& h, const Layout& layout, int axis, Mode mode,
                               Batch<T>& batch) {
  Solver<T> s(h.backend, layout, axis, {.algorithm = h.algorithm, .checked = true});
  std::vector<int> info(s.system_count(), -1);
  run_mode(s, batch, mode, info.data());
  return info;
}

// A fault planted in one system, and the info each kind of solver must report for it.
struct Fault {
  std::int64_t system, row;
  enum Kind { zero_b, zero_pivot, nan_d, nan_b, inf_d, inf_b } kind;
  int thomas_info;  // the row + 1 where Thomas breaks down
  int lu_info;      // dense LU: the exact info, or -1 for "any non-zero"
};

TYPED_TEST(CheckedMode, BreakdownIsReportedPerSystem) {
  using T = TypeParam;
  constexpr std::int64_t n = 40, systems = 70;
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  const Fault faults[] = {
      {3, 0, Fault::zero_b, 1, 0},        // first pivot zero; dense LU pivots past it
      {9, 12, Fault::zero_pivot, 13, 0},  // a = b = 0 at row 12: pivot b - a c' = 0
      {10, 17, Fault::nan_d, 18, 18},     // LU too: where the eliminated d first is NaN
      {20, 25, Fault::nan_b, 26, -1},
      {30, 5, Fault::inf_d, 6, -1},
      {65, n - 1, Fault::inf_b, n, n},    // the last pivot is infinite
  };
  for (int axis = 0; axis < 2; ++axis) {
    const Layout layout = systems_along(axis, n, systems);
    Batch<T> batch{OperandLayouts(layout)};
    const std::uint64_t seed = test_seed(axis);
    batch.fill_random(seed);
    batch.fill_x(T(0));
    // The answer for the clean systems, unchecked.
    Batch<T> clean = batch;
    Solver<T>(Backend::reference, layout, axis)
        .solve(clean.a.data(), clean.b.data(), clean.c.data(), clean.d.data(), clean.x.data());
    for (const Fault& f : faults) {
      const std::int64_t o = system_row_offset(layout, axis, f.system, f.row);
      switch (f.kind) {
        case Fault::zero_b: batch.b[o] = 0; break;
        case Fault::zero_pivot: batch.a[o] = batch.b[o] = 0; break;
        case Fault::nan_d: batch.d[o] = nan; break;
        case Fault::nan_b: batch.b[o] = nan; break;
        case Fault::inf_d: batch.d[o] = inf; break;
        case Fault::inf_b: batch.b[o] = inf; break;
      }
    }
    std::vector<HostSolver> solvers(std::begin(thomas_solvers), std::end(thomas_solvers));
    solvers.push_back(reference_dense_lu);
    for (const HostSolver& h : solvers) {
      const bool lu = h.algorithm == Algorithm::reference_dense_lu;
      for (Mode mode : {Mode::in_place, Mode::separate, Mode::increment}) {
        SCOPED_TRACE(h.name() + ", axis " + std::to_string(axis) + ", " + to_string(mode) +
                     ", seed " + std::to_string(seed));
        Batch<T> work = batch;
        const std::vector<int> info = checked_solve(h, layout, axis, mode, work);
        std::vector<bool> faulty(systems, false);
        for (const Fault& f : faults) {
          faulty[f.system] = true;
          const int want = lu ? f.lu_info : f.thomas_info;
          if (want < 0) {
            EXPECT_NE(info[f.system], 0) << "system " << f.system << ": success over NaN";
          } else {
            EXPECT_EQ(info[f.system], want) << "system " << f.system;
          }
        }
        // Every other system is fine and solved right.
        const std::vector<T>& out = mode == Mode::in_place ? work.d : work.x;
        for (std::int64_t s = 0; s < systems; ++s) {
          if (faulty[s]) continue;
          ASSERT_EQ(info[s], 0) << "system " << s;
          for (std::int64_t o : system_rows(layout, axis, s)) {
            ASSERT_NEAR(double(out[o]), double(clean.x[o]),
                        tolerance<T>(batch.condition, 1.0))
                << "system " << s << ", offset " << o;
          }
        }
      }
    }
  }
}

// The n x n system whose matrix has b[0] = 0 but is well conditioned: rows 0 and 1 need a swap.
// Returns the layout of one system; x_true is known and d = A x_true exactly (long double).
template <class T>
Batch<T> needs_pivoting(std::int64_t n, std::vector<long double>& x_true) {
  Batch<T> batch{OperandLayouts(Layout::packed({n}))};
  x_true.resize(n);
  for (std::int64_t i = 0; i < n; ++i) {
    batch.a[i] = T(i % 3 == 0 ? 1 : -1);
    batch.b[i] = T(4);
    batch.c[i] = T(i % 2 == 0 ? 1 : -1);
    // Exact in T: small multiples of 1/8.
    x_true[i] = static_cast<long double>(static_cast<int>((i * 37) % 17) - 8) / 8;
  }
  batch.b[0] = 0;
  batch.c[0] = 2;
  batch.a[1] = 2;
  for (std::int64_t i = 0; i < n; ++i) {
    long double d = static_cast<long double>(batch.b[i]) * x_true[i];
    if (i > 0) d += static_cast<long double>(batch.a[i]) * x_true[i - 1];
    if (i + 1 < n) d += static_cast<long double>(batch.c[i]) * x_true[i + 1];
    batch.d[i] = static_cast<T>(d);  // integers / 8: exact
  }
  return batch;
}

// The infinity-norm condition number of one system's matrix: its inverse comes from the dense LU
// solve of n right-hand sides (the identity's columns) with the diagonals broadcast to each.
template <class T>
double condition_inf(const Batch<T>& one) {
  const std::int64_t n = one.layouts.d.extent(0);
  const auto coef = Layout::strided({n, n}, {1, 0});
  Batch<double> inv{OperandLayouts(coef, coef, coef, Layout::packed({n, n}), Layout::packed({n, n}))};
  double norm = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    inv.a[i] = one.a[i], inv.b[i] = one.b[i], inv.c[i] = one.c[i];
    norm = std::max(norm, (i > 0 ? std::abs(double(one.a[i])) : 0) + std::abs(double(one.b[i])) +
                              (i + 1 < n ? std::abs(double(one.c[i])) : 0));
  }
  for (std::int64_t k = 0; k < n * n; ++k) inv.d[k] = k % (n + 1) == 0 ? 1 : 0;
  Solver<double>(Backend::reference, inv.layouts, 0, {.algorithm = Algorithm::reference_dense_lu})
      .solve(inv.a.data(), inv.b.data(), inv.c.data(), inv.d.data(), inv.x.data());
  double inv_norm = 0;  // the largest row sum of |A^-1|: row i of A^-1 is element i of each column
  for (std::int64_t i = 0; i < n; ++i) {
    double row = 0;
    for (std::int64_t j = 0; j < n; ++j) row += std::abs(inv.x[j * n + i]);
    inv_norm = std::max(inv_norm, row);
  }
  return norm * inv_norm;
}

TYPED_TEST(CheckedMode, DenseLuSolvesWhatThomasCannot) {
  using T = TypeParam;
  for (std::int64_t n : {2, 3, 17, 100}) {
    SCOPED_TRACE("n " + std::to_string(n));
    std::vector<long double> x_true;
    const Batch<T> batch = needs_pivoting<T>(n, x_true);
    const Layout& layout = batch.layouts.d;
    Batch<T> lu = batch;
    const std::vector<int> info = checked_solve(reference_dense_lu, layout, 0, Mode::separate, lu);
    EXPECT_EQ(info[0], 0);
    const double condition = condition_inf(batch);
    ASSERT_LT(condition, 100);  // well conditioned: only the missing pivot defeats Thomas
    for (std::int64_t i = 0; i < n; ++i) {
      EXPECT_NEAR(double(lu.x[i]), double(x_true[i]), tolerance<T>(condition, 1.0))
          << "row " << i;
    }
    for (const HostSolver& h : thomas_solvers) {
      Batch<T> work = batch;
      EXPECT_EQ(checked_solve(h, layout, 0, Mode::separate, work)[0], 1) << h.name();
    }
  }
}

TYPED_TEST(CheckedMode, SingularMatricesAreReported) {
  using T = TypeParam;
  constexpr std::int64_t n = 6;
  Batch<T> base{OperandLayouts(Layout::packed({n}))};
  base.fill_random(test_seed());
  const Layout& layout = base.layouts.d;
  // Column 0 vanishes (b[0] = a[1] = 0): no pivot at all in step 0.
  Batch<T> zero_column = base;
  zero_column.b[0] = 0;
  zero_column.a[1] = 0;
  Batch<T> lu = zero_column;
  EXPECT_EQ(checked_solve(reference_dense_lu, layout, 0, Mode::in_place, lu)[0], 1);
  // Rows 0 and 1 equal ([1 1 0 ...] twice): Thomas breaks down at row 1, dense LU somewhere.
  Batch<T> equal_rows = base;
  equal_rows.b[0] = equal_rows.c[0] = 1;
  equal_rows.a[1] = equal_rows.b[1] = 1;
  equal_rows.c[1] = 0;
  lu = equal_rows;
  EXPECT_NE(checked_solve(reference_dense_lu, layout, 0, Mode::in_place, lu)[0], 0);
  for (const HostSolver& h : thomas_solvers) {
    Batch<T> w1 = zero_column, w2 = equal_rows;
    EXPECT_EQ(checked_solve(h, layout, 0, Mode::in_place, w1)[0], 1) << h.name();
    EXPECT_EQ(checked_solve(h, layout, 0, Mode::in_place, w2)[0], 2) << h.name();
  }
}

TYPED_TEST(CheckedMode, IgnoredCornersAreNeverUsed) {
  using T = TypeParam;
  constexpr std::int64_t n = 33, systems = 40;
  for (int axis = 0; axis < 2; ++axis) {
    const Layout layout = systems_along(axis, n, systems);
    Batch<T> clean{OperandLayouts(layout)};
    clean.fill_random(test_seed(axis));
    Batch<T> dirty = clean;
    for (std::int64_t s = 0; s < systems; ++s) {
      dirty.a[system_row_offset(layout, axis, s, 0)] = std::numeric_limits<T>::quiet_NaN();
      dirty.c[system_row_offset(layout, axis, s, n - 1)] = std::numeric_limits<T>::infinity();
    }
    std::vector<HostSolver> solvers(std::begin(thomas_solvers), std::end(thomas_solvers));
    solvers.push_back(reference_dense_lu);
    for (const HostSolver& h : solvers) {
      Solver<T> s(h.backend, layout, axis, {.algorithm = h.algorithm, .checked = true});
      Batch<T> x1 = clean, x2 = dirty;
      std::vector<int> info(systems, -1);
      run_mode(s, x1, Mode::in_place, info.data());
      run_mode(s, x2, Mode::in_place, info.data());
      EXPECT_EQ(x1.d, x2.d) << h.name() << ", axis " << axis;
      EXPECT_EQ(info, std::vector<int>(systems, 0)) << h.name() << ", axis " << axis;
    }
  }
}

}  // namespace
}  // namespace triax::test
