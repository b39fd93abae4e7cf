// The fault catalogue of issues 25 and 34 on the host backends: zero, infinite and overflowing
// pivots, an overflowing d', NaN and Inf in every operand at the first, a middle and the last row,
// each in its own system of a batch, beside clean systems (some with subnormal pivots, some with
// NaN in the never-read a[0] and c[n-1]). Checked mode must report each fault at its documented
// row (options.hpp, `checked`) and 0 elsewhere; without checked mode each faulty system must
// hold a non-finite value and every clean one its right, finite solution; a NaN-poisoned output
// is overwritten; the inputs come back bit for bit. Every host Thomas solver, both axes, every
// output mode, float and double (and both CPU instruction sets: CTest runs the suite twice).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "cpu/host_solvers.hpp"

namespace triax::test {
namespace {

template <class T>
class FaultCatalogue : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FaultCatalogue, ValueTypes);

enum class Kind {
  zero_pivot, inf_pivot, overflowing_pivot, overflowing_dp,
  nan_a, nan_b, nan_c, nan_d, inf_a, inf_b, inf_c, inf_d,
  subnormal_pivots, nan_corners  // clean: solved, info 0
};
constexpr Kind kinds[] = {Kind::zero_pivot, Kind::inf_pivot, Kind::overflowing_pivot,
                          Kind::overflowing_dp, Kind::nan_a, Kind::nan_b, Kind::nan_c,
                          Kind::nan_d, Kind::inf_a, Kind::inf_b, Kind::inf_c, Kind::inf_d};

struct Fault {
  std::int64_t system, row;
  Kind kind;
  int info;  // what checked mode reports: Thomas' first bad forward row + 1, or 0
};

// Plants a fault in `batch`; returns the info Thomas must report.
template <class T>
int plant(Batch<T>& batch, const Layout& layout, int axis, const Fault& f, std::int64_t n) {
  using limits = std::numeric_limits<T>;
  const T nan = limits::quiet_NaN(), inf = limits::infinity();
  const auto at = [&](std::int64_t i) { return system_row_offset(layout, axis, f.system, i); };
  const std::int64_t o = at(f.row);
  const int row = static_cast<int>(f.row + 1);
  switch (f.kind) {
    case Kind::zero_pivot: batch.b[o] = 0; if (f.row > 0) batch.a[o] = 0; return row;
    case Kind::inf_pivot: batch.b[o] = inf; return row;
    case Kind::overflowing_pivot: {
      // c'[r-1] = big / m and a[r] = big: a[r] c'[r-1] overflows, so does the pivot.
      const T big = std::ldexp(T(1), limits::max_exponent / 2 + 2);
      batch.c[at(f.row - 1)] = big;
      batch.a[o] = big;
      return row;
    }
    case Kind::overflowing_dp:
      // d' = (max - 0) / (1/4): finite pivot, infinite d'.
      batch.a[o] = 0;
      batch.b[o] = T(0.25);
      if (f.row + 1 < n) batch.c[o] = T(0.125);
      batch.d[o] = limits::max();
      return row;
    case Kind::nan_a: batch.a[o] = nan; return row;
    case Kind::nan_b: batch.b[o] = nan; return row;
    case Kind::nan_c: batch.c[o] = nan; return row + 1;  // c'[r] NaN: row r + 1's pivot
    case Kind::nan_d: batch.d[o] = nan; return row;
    case Kind::inf_a: batch.a[o] = inf; return row;
    case Kind::inf_b: batch.b[o] = inf; return row;
    case Kind::inf_c: batch.c[o] = inf; return row + 1;
    case Kind::inf_d: batch.d[o] = inf; return row;
    case Kind::subnormal_pivots:
      // The whole system scaled far into the subnormal range: every pivot is subnormal.
      for (std::int64_t i = 0; i < n; ++i) {
        for (std::vector<T>* v : {&batch.a, &batch.b, &batch.c, &batch.d}) {
          T& e = (*v)[at(i)];
          e = std::ldexp(e, limits::min_exponent - 8);
        }
      }
      return 0;
    case Kind::nan_corners: batch.a[at(0)] = nan; batch.c[at(n - 1)] = nan; return 0;
  }
  return 0;
}

// Whether the kind can sit at this row (a is not read on row 0, c not on the last).
bool fits(Kind k, std::int64_t row, std::int64_t n) {
  if (k == Kind::overflowing_pivot || k == Kind::nan_a || k == Kind::inf_a) return row > 0;
  if (k == Kind::nan_c || k == Kind::inf_c) return row < n - 1;
  return true;
}

template <class T>
bool all_finite(const std::vector<T>& v, const std::vector<std::int64_t>& rows) {
  for (std::int64_t o : rows) {
    if (!std::isfinite(v[o])) return false;
  }
  return true;
}

TYPED_TEST(FaultCatalogue, EveryFaultIsReportedAndVisible) {
  using T = TypeParam;
  constexpr std::int64_t n = 40, systems = 90;
  for (int axis = 0; axis < 2; ++axis) {
    const Layout layout = systems_along(axis, n, systems);
    Batch<T> batch{OperandLayouts(layout)};
    const std::uint64_t seed = test_seed(axis);
    batch.fill_random(seed);
    std::vector<Fault> faults;
    std::int64_t next = 1;
    for (Kind k : kinds) {
      for (std::int64_t row : {std::int64_t{0}, std::int64_t{17}, n - 1}) {
        if (fits(k, row, n)) faults.push_back({next, row, k, 0});
        next += 2;  // clean systems between the faulty ones
      }
    }
    faults.push_back({next, 0, Kind::subnormal_pivots, 0});
    faults.push_back({next + 2, 0, Kind::nan_corners, 0});
    ASSERT_LT(next + 2, systems);
    for (Fault& f : faults) f.info = plant(batch, layout, axis, f, n);
    std::vector<int> want_info(systems, 0);
    std::vector<bool> overflows_in_t(systems, false);
    for (const Fault& f : faults) {
      want_info[f.system] = f.info;
      overflows_in_t[f.system] =
          f.kind == Kind::overflowing_pivot || f.kind == Kind::overflowing_dp;
    }

    Batch<T> reference = batch;
    Solver<T>(Backend::reference, layout, axis)
        .solve(reference.a.data(), reference.b.data(), reference.c.data(), reference.d.data(),
               reference.x.data());
    const T x0 = T(0.5);  // x before an increment
    for (const HostSolver& h : thomas_solvers) {
      for (Mode mode : {Mode::separate, Mode::in_place, Mode::increment}) {
        for (bool checked : {true, false}) {
          SCOPED_TRACE(h.name() + ", axis " + std::to_string(axis) + ", " + to_string(mode) +
                       (checked ? ", checked" : ", unchecked") + ", seed " + std::to_string(seed));
          Batch<T> work = batch;  // x is NaN: every element the solve owns must be overwritten
          if (mode == Mode::increment) work.fill_x(x0);
          Solver<T> s(h.backend, layout, axis, {.algorithm = h.algorithm, .checked = checked});
          std::vector<int> info(systems, -1);
          run_mode(s, work, mode, checked ? info.data() : nullptr);
          const std::vector<T>& out = mode == Mode::in_place ? work.d : work.x;
          ASSERT_TRUE(same_bits(work.a, batch.a) && same_bits(work.b, batch.b) &&
                      same_bits(work.c, batch.c))
              << "coefficients changed";
          if (mode != Mode::in_place) ASSERT_TRUE(same_bits(work.d, batch.d)) << "d changed";
          for (std::int64_t sys = 0; sys < systems; ++sys) {
            const std::vector<std::int64_t> rows = system_rows(layout, axis, sys);
            // The reference backend computes in long double, where these do not overflow.
            if (h.backend == Backend::reference && overflows_in_t[sys]) continue;
            if (checked) ASSERT_EQ(info[sys], want_info[sys]) << "system " << sys;
            if (want_info[sys] != 0) {
              // Checked or not, the breakdown shows in x.
              ASSERT_FALSE(all_finite(out, rows)) << "system " << sys << ": finite x";
              continue;
            }
            double scale = 0;
            for (std::int64_t o : rows) scale = std::max(scale, std::abs(double(reference.x[o])));
            const double tol = tolerance<T>(batch.condition, scale);
            for (std::int64_t o : rows) {
              const double want =
                  double(reference.x[o]) + (mode == Mode::increment ? double(x0) : 0.0);
              ASSERT_TRUE(std::isfinite(out[o])) << "system " << sys << ", offset " << o;
              ASSERT_NEAR(double(out[o]), want, tol) << "system " << sys << ", offset " << o;
            }
          }
        }
      }
    }
  }
}

// One matrix for every system (the CPU kernels' shared-pivot path, which checked mode does not
// take): a breakdown in it is a breakdown of every system, and every x must show it; subnormal
// pivots must not be one.
TYPED_TEST(FaultCatalogue, OneMatrixForEverySystem) {
  using T = TypeParam;
  using limits = std::numeric_limits<T>;
  constexpr std::int64_t n = 40, systems = 70;
  for (int axis = 0; axis < 2; ++axis) {
    const Layout layout = systems_along(axis, n, systems);
    const Layout matrix = axis == 0 ? Layout::strided({n, systems}, {1, 0})
                                    : Layout::strided({systems, n}, {0, 1});
    for (int fault = 0; fault < 4; ++fault) {
      Batch<T> batch{OperandLayouts(matrix, matrix, matrix, layout, layout)};
      const std::uint64_t seed = test_seed(axis * 4 + fault);
      batch.fill_random(seed);
      const std::int64_t r = 17;  // the matrix's row r: offset r in a, b, c
      bool breaks = true;
      if (fault == 0) batch.b[r] = limits::infinity();
      if (fault == 1) batch.a[r] = batch.b[r] = 0;
      if (fault == 2) {
        batch.c[r - 1] = std::ldexp(T(1), limits::max_exponent / 2 + 2);
        batch.a[r] = batch.c[r - 1];
      }
      if (fault == 3) {
        breaks = false;
        for (std::vector<T>* v : {&batch.a, &batch.b, &batch.c, &batch.d}) {
          for (T& e : *v) e = std::ldexp(e, limits::min_exponent - 8);
        }
      }
      Batch<T> reference = batch;
      Solver<T>(Backend::reference, batch.layouts, axis)
          .solve(reference.a.data(), reference.b.data(), reference.c.data(), reference.d.data(),
                 reference.x.data());
      for (const HostSolver& h : thomas_solvers) {
        // Long double does not overflow where T does.
        if (fault == 2 && h.backend == Backend::reference) continue;
        SCOPED_TRACE(h.name() + ", axis " + std::to_string(axis) + ", fault " +
                     std::to_string(fault) + ", seed " + std::to_string(seed));
        Batch<T> work = batch;
        Solver<T>(h.backend, batch.layouts, axis, {.algorithm = h.algorithm})
            .solve(work.a.data(), work.b.data(), work.c.data(), work.d.data(), work.x.data());
        for (std::int64_t sys = 0; sys < systems; ++sys) {
          const std::vector<std::int64_t> rows = system_rows(layout, axis, sys);
          if (breaks) {
            ASSERT_FALSE(all_finite(work.x, rows)) << "system " << sys << ": finite x";
          } else {
            ASSERT_TRUE(all_finite(work.x, rows)) << "system " << sys;
          }
        }
        if (!breaks) ASSERT_TRUE(outputs_match(layout, work.x, reference.x, batch.condition));
      }
    }
  }
}

// reference_dense_lu reports a NaN in d where the eliminated right-hand side first becomes
// non-finite, as Thomas does (issue 34: it reported the last bad row of x).
TYPED_TEST(FaultCatalogue, DenseLuReportsTheFirstBadEliminatedRow) {
  using T = TypeParam;
  {
    const Layout layout = Layout::packed({4});
    std::vector<T> a = {0, -1, -1, -1}, b = {4, 4, 4, 4}, c = {-1, -1, -1, 0},
                   d = {1, 1, std::numeric_limits<T>::quiet_NaN(), 1}, x(4);
    for (const HostSolver& h : {reference_dense_lu, reference_thomas}) {
      int info = -1;
      Solver<T>(h.backend, layout, 0, {.algorithm = h.algorithm, .checked = true})
          .solve(a.data(), b.data(), c.data(), d.data(), x.data(), &info);
      EXPECT_EQ(info, 3) << h.name();
    }
  }
  // A NaN or Inf in d at each row of a diagonally dominant system (no row exchanges).
  constexpr std::int64_t n = 12;
  for (T bad : {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity()}) {
    for (std::int64_t row = 0; row < n; ++row) {
      Batch<T> batch{OperandLayouts(Layout::packed({n}))};
      batch.fill_random(test_seed(row));
      batch.d[row] = bad;
      int info = -1;
      Solver<T>(Backend::reference, Layout::packed({n}), 0,
                {.algorithm = Algorithm::reference_dense_lu, .checked = true})
          .solve(batch.a.data(), batch.b.data(), batch.c.data(), batch.d.data(), batch.x.data(),
                 &info);
      EXPECT_EQ(info, row + 1) << "d[" << row << "] = " << bad;
    }
  }
}

// Workspace sizes that would wrap are refused, naming n (issue 25: n = 2^62 + 1 gave the
// reference plan a workspace of 4 values).
TYPED_TEST(FaultCatalogue, HugeNIsRefusedNamingIt) {
  using T = TypeParam;
  const std::int64_t n = (std::int64_t{1} << 62) + 1;
  for (Backend backend : {Backend::reference, Backend::cpu}) {
    try {
      Solver<T> s(backend, Layout::packed({n}), 0);
      ADD_FAILURE() << to_string(backend) << ": accepted n = " << n;
    } catch (const invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(std::to_string(n)), std::string::npos)
          << to_string(backend) << ": " << e.what();
    }
  }
}

}  // namespace
}  // namespace triax::test
