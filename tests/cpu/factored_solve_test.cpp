// triax::FactoredSolver on the cpu backend against the reference backend and a long-double dense
// solve: every matrix family of support/factored_cases.hpp, n = 1..4096, every axis of 2-D..4-D
// grids with ghost layers, in place / separate / increment.
#include <gtest/gtest.h>

#include "support/factored_cases.hpp"

namespace triax::test {
namespace {

template <class T>
class FactoredCpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FactoredCpu, Precisions);

template <class T>
FactoredRunner<T> cpu_runner(int threads = 0) {
  return per_call_runner<T>([=](const FactoredMatrixCase<T>& m, const FactoredGrid& g, Mode mode,
                                std::vector<T>& d, std::vector<T>& x) {
    run_factored_host(Backend::cpu, m, g, mode, d, x, {.num_threads = threads});
  });
}

TYPED_TEST(FactoredCpu, MatchesReferenceShortSystems) {
  for (std::int64_t n : {1, 2, 3, 4, 5, 8}) {
    check_factored_against_reference<TypeParam>(n, cpu_runner<TypeParam>(), false);
  }
}

TYPED_TEST(FactoredCpu, MatchesReferenceAroundWarpSizes) {
  for (std::int64_t n : {31, 32, 33, 64}) {
    check_factored_against_reference<TypeParam>(n, cpu_runner<TypeParam>(), quick_mode());
  }
}

TYPED_TEST(FactoredCpu, MatchesReferenceLongSystems) {
  for (std::int64_t n : {257, 4096}) {
    check_factored_against_reference<TypeParam>(n, cpu_runner<TypeParam>(2), true);
  }
}

TYPED_TEST(FactoredCpu, ReferenceMatchesDenseSolve) {
  using T = TypeParam;
  for (std::int64_t n : {1, 2, 3, 17, 64}) {
    for (const auto& m : factored_matrices<T>(n)) {
      SCOPED_TRACE(m.name + " n=" + std::to_string(n));
      const auto l = Layout::packed({n, 3});
      FactoredGrid g{"2d", {n, 3}, 0, FactoredLayouts(l)};
      std::vector<T> d(l.size()), x(l.size(), std::numeric_limits<T>::quiet_NaN());
      std::mt19937_64 gen(test_seed(n));
      std::uniform_real_distribution<double> u(-1, 1);
      for (auto& v : d) v = T(u(gen));
      for (Backend be : {Backend::reference, Backend::cpu}) {
        run_factored_host(be, m, g, Mode::separate, d, x);
        for (std::int64_t s = 0; s < 3; ++s) {
          std::vector<long double> ds(n);
          for (std::int64_t i = 0; i < n; ++i) ds[i] = d[i + n * s];
          const auto want = dense_solve(m, ds);
          long double scale = 1;
          for (auto v : want) scale = std::max(scale, std::abs(v));
          for (std::int64_t i = 0; i < n; ++i) {
            const double err = double(std::abs(x[i + n * s] - want[i]) / scale);
            ASSERT_LE(err, 32 * m.condition * std::numeric_limits<T>::epsilon())
                << to_string(be) << " row " << i << " system " << s;
          }
        }
      }
    }
  }
}

TYPED_TEST(FactoredCpu, CompressesConvergingFactorsOnly) {
  using T = TypeParam;
  const std::int64_t n = 4096;
  auto fast = toeplitz<T>("fast", n, 0.25, 1.0, 0.25, 3);
  FactoredSolver<T> sf(Backend::cpu, fast.a.data(), fast.b.data(), fast.c.data(), n,
                       Layout::packed({n}), 0);
  EXPECT_TRUE(sf.compressed());
  EXPECT_LT(sf.stored_rows(), 64);  // converges to rounding within a few dozen rows
  EXPECT_GE(sf.tail_rows(), 1);     // c'[n-1] = 0 always differs
  EXPECT_EQ(sf.factor_info(), 0);
  EXPECT_FALSE(sf.scaled());

  auto p = pade<T>(n);
  FactoredSolver<T> sp(Backend::cpu, p.a.data(), p.b.data(), p.c.data(), n, Layout::packed({n}), 0);
  EXPECT_TRUE(sp.compressed());
  EXPECT_LT(sp.stored_rows(), 64);
  EXPECT_GE(sp.head_rows(), 1);

  // Slowly converging: more rows before the limit than the fast matrix, still compressed at 4096.
  const double margin = std::is_same_v<T, float> ? 1e-2 : 1e-4;
  auto slow = toeplitz<T>("slow", n, 1.0, -(2.0 + margin), 1.0, 4 / margin);
  FactoredSolver<T> ss(Backend::cpu, slow.a.data(), slow.b.data(), slow.c.data(), n,
                       Layout::packed({n}), 0);
  EXPECT_GT(ss.head_rows(), sf.head_rows());
  EXPECT_TRUE(ss.compressed());

  // Never converging: every row stored (plus the unused limit row).
  auto v = varying<T>(n, 99);
  FactoredSolver<T> sv(Backend::cpu, v.a.data(), v.b.data(), v.c.data(), n, Layout::packed({n}), 0);
  EXPECT_FALSE(sv.compressed());
  EXPECT_EQ(sv.stored_rows(), n + 1);
  // Non-dominant, oscillating pivots (m -> 1.5 - 1 / m has no real fixed point).
  auto osc = toeplitz<T>("oscillating", 200, 1.0, 1.5, 1.0, 1, false);
  FactoredSolver<T> so(Backend::cpu, osc.a.data(), osc.b.data(), osc.c.data(), 200,
                       Layout::packed({200}), 0);
  EXPECT_FALSE(so.compressed());
  EXPECT_EQ(so.stored_rows(), 201);
}

TYPED_TEST(FactoredCpu, NonConvergingMatrixSolvedAsReference) {
  using T = TypeParam;
  // The oscillating non-dominant matrix: all rows stored, the solve must still match the
  // reference (backward error against |L||U|; its condition is moderate for n = 40).
  const std::int64_t n = 40;
  auto osc = toeplitz<T>("oscillating", n, 1.0, 1.5, 1.0, 1, false);
  const auto l = Layout::packed({6, n});
  FactoredGrid g{"osc", {6, n}, 1, FactoredLayouts(l)};
  std::vector<T> d(l.size()), x(l.size(), std::numeric_limits<T>::quiet_NaN());
  std::mt19937_64 gen(test_seed());
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& v : d) v = T(u(gen));
  run_factored_host(Backend::cpu, osc, g, Mode::separate, d, x);
  EXPECT_LE(backward_error_eps(osc, l, d, l, x, 1), 64.0);
}


TYPED_TEST(FactoredCpu, MatchesGeneralSolverOnManyRightHandSides) {
  // The same grid through triax::Solver with the matrix broadcast to every system (stride 0
  // across the batch): many right-hand sides (up to 40 x 36 = 1440 systems), every axis, with a
  // padded d, several threads.
  using T = TypeParam;
  const std::vector<std::int64_t> shape{40, 36, 33};
  for (int axis = 0; axis < 3; ++axis) {
    const std::int64_t n = shape[axis];
    auto m = pade<T>(n);
    std::vector<std::int64_t> strides(3, 0);
    strides[axis] = 1;
    const auto coef = Layout::strided(shape, strides);
    const auto ld = Layout::padded({40, 36, 33}, {42, 38, 35}, {1, 1, 1});
    const auto lx = Layout::packed({40, 36, 33});
    std::vector<T> a(n), b(n), c(n);
    for (std::int64_t i = 0; i < n; ++i) {
      a[i] = i > 0 ? m.a[i] : T(0);
      b[i] = m.b[i];
      c[i] = i + 1 < n ? m.c[i] : T(0);
    }
    std::vector<T> d(buffer_size(ld), T(0));
    std::mt19937_64 gen(test_seed(axis));
    std::uniform_real_distribution<double> u(-1, 1);
    for_each_offset(ld, [&](std::int64_t o) { d[o] = T(u(gen)); });
    for (Mode mode : {Mode::separate, Mode::increment}) {
      SCOPED_TRACE("axis " + std::to_string(axis) + " " + to_string(mode));
      std::vector<T> want(lx.size(), T(0.5)), got(lx.size(), T(0.5));
      Solver<T> general(Backend::cpu, OperandLayouts(coef, coef, coef, ld, lx), axis, {.num_threads = 2});
      FactoredSolver<T> factored(Backend::cpu, a.data(), b.data(), c.data(), n,
                                 FactoredLayouts(ld, lx), axis, {.num_threads = 2});
      EXPECT_EQ(factored.system_count(), general.system_count());
      if (mode == Mode::separate) {
        general.solve(a.data(), b.data(), c.data(), d.data(), want.data());
        factored.solve(d.data(), got.data());
      } else {
        general.solve_increment(a.data(), b.data(), c.data(), d.data(), want.data());
        factored.solve_increment(d.data(), got.data());
      }
      ASSERT_TRUE(outputs_match(lx, got, want, m.condition));
    }
  }
}

}  // namespace
}  // namespace triax::test
