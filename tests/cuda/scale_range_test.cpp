// Issue 34: a system multiplied by 2^k is the same system, and every CUDA path must solve it as
// well as the unscaled one, for every k that keeps the inputs (and so the solution) exactly
// representable, subnormal inputs included: float and double, every axis of a 3-D grid, every
// CUDA algorithm and hybrid kernel that takes the shape, lengths from 1 to the long path. Each
// system's backward error must stay within 4 units of rounding of the unscaled system's, with
// every x finite (the output starts as NaN) and info = 0 in checked mode; before the fix the
// hybrid returned finite, wrong x with info = 0 above 2^126 / 2^1022 and every path broke down on
// subnormal pivots. A test per precision and length (scripts/gpu-check runs the suite in shards);
// a default run takes both sides of every edge of the range, TRIAX_FULL_RANGE_TESTS=1 the whole
// sweep of scales (scripts/gpu-check tests-full), TRIAX_TEST_QUICK=1 (the sanitizers) fewer.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "scaled_systems.hpp"

namespace triax::test {
namespace {

/// The scales tried: both ends of the exact range (subnormal and near overflow), the edge of the
/// normal range, the kernels' scaling window (row_scale.cuh: first diagonal 2^2 here, so k = -66
/// and 62 are the last unscaled) and 0, each edge from both sides. TRIAX_FULL_RANGE_TESTS=1 adds
/// neighbours of the edges and points in between (18 scales against 9); the sanitizer runs take
/// one side of each edge.
template <class T>
std::vector<int> scales() {
  const int lo = min_exact_scale<T>(), hi = max_exact_scale<T>();
  const int emin = std::numeric_limits<T>::min_exponent - 1;  // -126 / -1022
  const int w = sizeof(T) == 4 ? 64 : 512;
  std::vector<int> k = {lo, emin - 1, emin, -w - 3, -w - 2, 0, w - 2, w - 1, hi};
  if (full_range_tests()) {
    k.insert(k.end(), {lo + 1, emin - 5, emin + 1, -w - 1, -w / 2, w / 2, w - 3, hi - 10, hi - 1});
  }
  if (quick_mode()) k = {lo, emin - 1, -w - 3, 0, w - 1, hi};
  std::sort(k.begin(), k.end());
  k.erase(std::unique(k.begin(), k.end()), k.end());
  return k;
}

/// Grids with the systems along `axis`: a few systems per length (more for short ones), the
/// first batch dimension a multiple of 32 along axes >= 1 so the hybrid's group kernels apply.
std::vector<std::int64_t> grid_extents(std::int64_t n, int axis) {
  const std::int64_t w = n <= 65 ? 64 : 32, h = n <= 65 ? 3 : 2;
  if (axis == 0) return {n, w / 4, h};
  if (axis == 1) return {w, n, h};
  return {w, h, n};
}

/// The lengths, from 1 to the long path.
std::vector<std::int64_t> lengths() {
  if (quick_mode()) return {1, 2, 33, 65, 513, 2049};
  return {1, 2, 3, 31, 32, 33, 65, 257, 513, 1025, 2049, 5000};
}

/// Every axis, variant, mode and scale for systems of c.n rows; the seeds are those of the suite
/// when it was a test per precision (the same systems as then).
template <class T>
void expect_scaled_systems_solve(const SweepCase& c) {
  const long double eps = std::numeric_limits<T>::epsilon();
  const std::int64_t n = c.n;
  const int first_seed = 3402 + 3 * c.index;
  for (int axis = 0; axis < 3; ++axis) {
    const GridSystems<T> base = random_grid<T>(grid_extents(n, axis), axis, first_seed + axis);
    // The oracle: the reference backend's x (long double Thomas) on the unscaled systems is
    // backward stable, which checks the construction.
    {
      std::vector<T> x(base.a.size());
      Solver<T> ref(Backend::reference, OperandLayouts(base.layout()), axis);
      ref.solve(base.a.data(), base.b.data(), base.c.data(), base.d.data(), x.data());
      const auto be = backward_errors(base, x);
      ASSERT_LE(*std::max_element(be.begin(), be.end()), 2 * eps) << "reference, n " << n;
    }
    for (const Variant& v : cuda_variants()) {
      for (bool checked : {false, true}) {
        const ScopedEnv env(v.env, "1");
        DeviceSolve<T> unscaled;
        bool accepted = true;
        ASSERT_NO_FATAL_FAILURE(device_solve(base, v.algorithm, checked, unscaled, &accepted));
        if (!accepted) continue;
        const std::string what = "n " + std::to_string(n) + ", axis " + std::to_string(axis) +
                                 ", " + v.name() + (checked ? ", checked" : "");
        const auto be0 = backward_errors(base, unscaled.x);
        ASSERT_LE(*std::max_element(be0.begin(), be0.end()), 16 * eps) << what << ", k 0";
        for (int k : scales<T>()) {
          const GridSystems<T> g = scaled(base, k);
          DeviceSolve<T> got;
          ASSERT_NO_FATAL_FAILURE(device_solve(g, v.algorithm, checked, got));
          const auto be = backward_errors(g, got.x);
          int failures = 0;
          for (std::int64_t s = 0; s < g.count() && failures < 3; ++s) {
            const bool ok = be[s] <= be0[s] + 4 * eps && (!checked || got.info[s] == 0);
            if (!ok) {
              ++failures;
              ADD_FAILURE() << what << ", k " << k << ", system " << s << ": backward error "
                            << static_cast<double>(be[s]) << " against "
                            << static_cast<double>(be0[s]) << " unscaled"
                            << (checked ? ", info " + std::to_string(got.info[s]) : "");
            }
          }
          if (failures != 0) break;  // one scale's failures tell enough
        }
      }
    }
  }
}

using ScaleRange = SweepTest;

TEST_P(ScaleRange, ScaledSystemsSolveAsTheUnscaledOne) {
  for_precision([&](auto zero) { expect_scaled_systems_solve<decltype(zero)>(GetParam()); });
}

INSTANTIATE_TEST_SUITE_P(, ScaleRange,
                         ::testing::ValuesIn(sweep_cases(lengths(), SweepOrder::longest_first)),
                         sweep_case_name);

template <class T>
class ScaleRangeOneRow : public NeedsDevice<> {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ScaleRangeOneRow, ValueTypes);

// The one-row example, and its mirror at the top of the range: a = c = 0, b = d = 2^k
// gives x = 1 with info = 0 on every path.
TYPED_TEST(ScaleRangeOneRow, OneRowSystemsAtBothEnds) {
  using T = TypeParam;
  const int emin = std::numeric_limits<T>::min_exponent - 1;
  const int emax = std::numeric_limits<T>::max_exponent - 1;
  for (int k : {emin - 4, emin - 1, emin, emax - 1, emax}) {
    for (int axis = 0; axis < 2; ++axis) {
      GridSystems<T> g{axis == 0 ? std::vector<std::int64_t>{1, 64} : std::vector<std::int64_t>{64, 1},
                       axis, {}, {}, {}, {}};
      g.a.assign(64, T(0));
      g.c.assign(64, T(0));
      g.b.assign(64, std::ldexp(T(1), k));
      g.d = g.b;
      for (const Variant& v : cuda_variants()) {
        for (bool checked : {false, true}) {
          const ScopedEnv env(v.env, "1");
          DeviceSolve<T> got;
          bool accepted = true;
          ASSERT_NO_FATAL_FAILURE(device_solve(g, v.algorithm, checked, got, &accepted));
          if (!accepted) continue;
          for (std::size_t s = 0; s < 64; ++s) {
            ASSERT_EQ(got.x[s], T(1)) << "2^" << k << ", axis " << axis << ", " << v.name()
                                      << (checked ? ", checked" : "");
            if (checked) ASSERT_EQ(got.info[s], 0) << "2^" << k << ", " << v.name();
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace triax::test
