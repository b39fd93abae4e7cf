// Paper 004's cyclic reduction with precomputed coefficients on the cpu backend
// (FactoredAlgorithm::cpu_cr) against the reference backend and against the factored Thomas
// path: the matrices of support/factored_cases.hpp (Toeplitz converging fast and slowly, Pade
// closures, rows that never repeat), n = 1..4097 with primes and 2^k +- 1, every axis of 2-D..4-D
// grids with ghost layers whose sentinel must survive, in place / separate / increment; the
// O(log n) storage of a near-Toeplitz matrix, checked mode, breakdowns, scaled matrices and bad
// arguments.
#include <gtest/gtest.h>

#include <cmath>

#include "support/factored_cases.hpp"

namespace triax::test {
namespace {

template <class T>
class FactoredCrCpu : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FactoredCrCpu, Precisions);

template <class T>
FactoredRunner<T> cpu_cr_runner() {
  return per_call_runner<T>([](const FactoredMatrixCase<T>& m, const FactoredGrid& g, Mode mode,
                               std::vector<T>& d, std::vector<T>& x) {
    run_factored_host(Backend::cpu, m, g, mode, d, x, {}, nullptr, FactoredAlgorithm::cpu_cr);
  });
}

TYPED_TEST(FactoredCrCpu, MatchesReferenceSmallAndBoundarySizes) {
  for (std::int64_t n : {1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 31, 32, 33, 37, 63, 64, 65}) {
    check_factored_against_reference<TypeParam>(n, cpu_cr_runner<TypeParam>(), false);
  }
}

TYPED_TEST(FactoredCrCpu, MatchesReferenceLongSystems) {
  for (std::int64_t n : {127, 128, 129, 251, 255, 256, 257, 511, 1021, 1024}) {
    check_factored_against_reference<TypeParam>(n, cpu_cr_runner<TypeParam>(), true);
  }
  for (std::int64_t n : {4095, 4096, 4097}) {
    check_factored_against_reference<TypeParam>(n, cpu_cr_runner<TypeParam>(), true);
  }
}

TYPED_TEST(FactoredCrCpu, StoresLogNCoefficientsForNearToeplitz) {
  using T = TypeParam;
  for (std::int64_t n : {1000, 4096, 4097, 65536}) {
    const auto l = Layout::packed({n, 2});
    for (const auto& m : {toeplitz<T>("fast", n, 0.25, 1.0, 0.25, 3), pade<T>(n)}) {
      FactoredSolver<T> s(Backend::cpu, m.a.data(), m.b.data(), m.c.data(), n, l, 0, {},
                          FactoredAlgorithm::cpu_cr);
      EXPECT_EQ(s.algorithm(), FactoredAlgorithm::cpu_cr);
      const double levels = std::ceil(std::log2(double(n))) + 1;
      // Per level: two sequences of at most head + limit + tail entries, a few each.
      EXPECT_LE(s.stored_rows(), 16 * levels) << m.name << " n=" << n;
      EXPECT_EQ(s.factor_info(), 0);
    }
    // A matrix whose rows never repeat stores every coefficient (about 2n entries).
    const auto v = varying<T>(n, 99);
    FactoredSolver<T> s(Backend::cpu, v.a.data(), v.b.data(), v.c.data(), n, l, 0, {},
                        FactoredAlgorithm::cpu_cr);
    EXPECT_GE(s.stored_rows(), n);
  }
}

TYPED_TEST(FactoredCrCpu, MatchesThomasPathOnManyRightHandSides) {
  // 3-D grid, every axis, padded d and packed x: the two factored algorithms agree within the
  // reference's tolerance (they round differently, so not bit for bit).
  using T = TypeParam;
  const std::vector<std::int64_t> shape{67, 24, 19};
  for (int axis = 0; axis < 3; ++axis) {
    const std::int64_t n = shape[axis];
    for (const auto& m : factored_matrices<T>(n)) {
      std::vector<std::int64_t> alloc(shape), begin(3, 2);
      for (auto& e : alloc) e += 4;
      FactoredGrid g{"3d", shape, axis,
                     FactoredLayouts(Layout::padded(shape, alloc, begin), Layout::packed(shape))};
      std::vector<T> d(buffer_size(g.layouts.d), T(-7.5)), x_cr(g.layouts.x.size(), T(0)),
          x_th = x_cr;
      std::mt19937_64 gen(test_seed(axis + 100));
      std::uniform_real_distribution<double> u(-1, 1);
      for_each_offset(g.layouts.d, [&](std::int64_t o) { d[o] = T(u(gen)); });
      std::vector<T> d2 = d;
      run_factored_host(Backend::cpu, m, g, Mode::separate, d, x_cr, {}, nullptr,
                        FactoredAlgorithm::cpu_cr);
      run_factored_host(Backend::cpu, m, g, Mode::separate, d2, x_th, {}, nullptr,
                        FactoredAlgorithm::cpu_thomas);
      SCOPED_TRACE(m.name + " axis " + std::to_string(axis));
      ASSERT_TRUE(outputs_match(g.layouts.x, x_cr, x_th, m.condition));
    }
  }
}

TYPED_TEST(FactoredCrCpu, CheckedModeReportsFirstNonFiniteRow) {
  // A non-finite d at row r: info r + 1, as the Thomas path reports it (its d'[r] is the first
  // non-finite value); clean systems 0.
  using T = TypeParam;
  const std::int64_t n = 33, count = 24;
  auto m = toeplitz<T>("fast", n, 0.25, 1.0, 0.25, 3);
  for (int axis : {0, 1}) {
    const auto l = axis == 0 ? Layout::packed({n, count}) : Layout::packed({count, n});
    FactoredGrid g{
        "2d", axis == 0 ? std::vector<std::int64_t>{n, count} : std::vector<std::int64_t>{count, n},
        axis, FactoredLayouts(l)};
    std::vector<T> d0(l.size(), T(0.5));
    const T faults[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                        -std::numeric_limits<T>::infinity()};
    for (std::int64_t s = 0; s < count; s += 2)
      d0[row_of(l, axis, s, (s * 5) % n)] = faults[(s / 2) % 3];
    for (Mode mode : {Mode::in_place, Mode::separate, Mode::increment}) {
      SCOPED_TRACE("axis " + std::to_string(axis) + " " + to_string(mode));
      std::vector<int> cr(count, -1), thomas(count, -1);
      std::vector<T> d = d0, x(l.size(), T(1)), d2 = d0, x2 = x;
      run_factored_host(Backend::cpu, m, g, mode, d, x, {.checked = true}, cr.data(),
                        FactoredAlgorithm::cpu_cr);
      run_factored_host(Backend::cpu, m, g, mode, d2, x2, {.checked = true}, thomas.data(),
                        FactoredAlgorithm::cpu_thomas);
      EXPECT_EQ(cr, thomas);
      for (std::int64_t s = 0; s < count; ++s) {
        EXPECT_EQ(cr[s], s % 2 == 0 ? int((s * 5) % n) + 1 : 0) << "system " << s;
      }
    }
  }
}

TYPED_TEST(FactoredCrCpu, BreakdownMakesEveryResultNaN) {
  using T = TypeParam;
  // Pade with closures, n = 3: the reduced pivot of level 1 (slot 1) is 1 - 2/4 - 2/4 = 0.
  auto singular = pade<T>(3);
  const auto l = Layout::packed({3, 10});
  FactoredGrid g{"2d", {3, 10}, 0, FactoredLayouts(l)};
  for (Mode mode : {Mode::separate, Mode::increment}) {
    std::vector<T> d(l.size(), T(1)), x(l.size(), T(2));
    std::vector<int> info(10, -1);
    run_factored_host(Backend::cpu, singular, g, mode, d, x, {.checked = true}, info.data(),
                      FactoredAlgorithm::cpu_cr);
    for (int i : info) EXPECT_EQ(i, 2);
    for (T v : x) EXPECT_TRUE(std::isnan(v));
  }
  FactoredSolver<T> s(Backend::cpu, singular.a.data(), singular.b.data(), singular.c.data(), 3, l,
                      0, {}, FactoredAlgorithm::cpu_cr);
  EXPECT_EQ(s.factor_info(), 2);
  // A zero first pivot: slot 0.
  auto zero = toeplitz<T>("fast", 8, 0.25, 1.0, 0.25, 3);
  zero.b[0] = T(0);
  FactoredSolver<T> z(Backend::cpu, zero.a.data(), zero.b.data(), zero.c.data(), 8,
                      Layout::packed({8, 2}), 0, {}, FactoredAlgorithm::cpu_cr);
  EXPECT_EQ(z.factor_info(), 1);
}

TYPED_TEST(FactoredCrCpu, ScaledMatrixSolvesAsUnscaled) {
  using T = TypeParam;
  const std::int64_t n = 50;
  auto m = pade<T>(n);
  const int k = low_exponent<T>();
  const auto ms = scaled_matrix(m, k);
  const auto l = Layout::packed({n, 30});
  FactoredGrid g{"2d", {n, 30}, 0, FactoredLayouts(l)};
  std::vector<T> d0, ds, x0(l.size()), xs(l.size());
  scaled_rhs_pair(l.size(), k, d0, ds);
  run_factored_host(Backend::cpu, m, g, Mode::separate, d0, x0, {}, nullptr,
                    FactoredAlgorithm::cpu_cr);
  run_factored_host(Backend::cpu, ms, g, Mode::separate, ds, xs, {}, nullptr,
                    FactoredAlgorithm::cpu_cr);
  for (std::size_t o = 0; o < x0.size(); ++o) ASSERT_EQ(xs[o], x0[o]) << "at " << o;
}

TYPED_TEST(FactoredCrCpu, RejectsAlgorithmOfAnotherBackend) {
  using T = TypeParam;
  auto m = toeplitz<T>("fast", 8, 0.25, 1.0, 0.25, 3);
  const auto l = Layout::packed({8, 4});
  for (FactoredAlgorithm a :
       {FactoredAlgorithm::cuda_thread_thomas, FactoredAlgorithm::cuda_block_cr_shared,
        FactoredAlgorithm::cuda_block_cr_global}) {
    EXPECT_THROW(
        FactoredSolver<T>(Backend::cpu, m.a.data(), m.b.data(), m.c.data(), 8, l, 0, {}, a),
        invalid_argument);
  }
  EXPECT_THROW(FactoredSolver<T>(Backend::reference, m.a.data(), m.b.data(), m.c.data(), 8, l, 0,
                                 {}, FactoredAlgorithm::cpu_cr),
               invalid_argument);
  EXPECT_THROW(FactoredSolver<T>(Backend::cpu, m.a.data(), m.b.data(), m.c.data(), 8, l, 0, {},
                                 static_cast<FactoredAlgorithm>(77)),
               invalid_argument);
  // The shared-memory variant refuses a system longer than it holds, before any device work.
  const std::int64_t big = std::is_same_v<T, float> ? 12033 : 6017;
  auto long_m = toeplitz<T>("fast", big, 0.25, 1.0, 0.25, 3);
  try {
    FactoredSolver<T>(Backend::cuda, long_m.a.data(), long_m.b.data(), long_m.c.data(), big,
                      Layout::packed({big, 2}), 0, {}, FactoredAlgorithm::cuda_block_cr_shared);
    ADD_FAILURE() << "no exception";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(big)), std::string::npos) << e.what();
  }
  FactoredSolver<T> automatic(Backend::cpu, m.a.data(), m.b.data(), m.c.data(), 8, l, 0);
  EXPECT_EQ(automatic.algorithm(), FactoredAlgorithm::cpu_thomas);
  EXPECT_EQ(to_string(FactoredAlgorithm::cuda_block_cr_global), "cuda_block_cr_global");
}

}  // namespace
}  // namespace triax::test
