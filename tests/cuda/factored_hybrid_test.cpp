// FactoredAlgorithm::cuda_hybrid (triax::Solver's hybrid given the matrix broadcast) against the
// reference backend: every matrix of support/factored_cases.hpp (fast, slow and never converging
// factors, boundary rows that differ), n = 1..4096, every axis of 2-D..4-D grids with ghost
// layers, in place / separate / increment; checked mode, a singular and a scaled matrix (which
// run the factored kernels); which plans the automatic choice and TRIAX_CUDA_FACTORED_ROUTE
// route; and the cuda_thread_thomas kernels at the sizes automatic now routes away from them.
// SKIPPED without a device.
#include <gtest/gtest.h>

#include "support/device_runner.hpp"
#include "support/factored_cases.hpp"
#include "support/factored_device.hpp"
#include "support/scoped_env.hpp"

namespace triax::test {
namespace {

template <class T>
class FactoredHybridCuda : public NeedsDevice<> {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FactoredHybridCuda, Precisions);

TYPED_TEST(FactoredHybridCuda, MatchesReference) {
  using T = TypeParam;
  const std::vector<std::int64_t> sizes =
      quick_mode() ? std::vector<std::int64_t>{1, 3, 33, 257}
                   : std::vector<std::int64_t>{1, 2, 3, 8, 9, 32, 33, 64, 65, 257, 1000};
  const auto run = cuda_factored_runner<T>(FactoredAlgorithm::cuda_hybrid);
  for (std::int64_t n : sizes) check_factored_against_reference<T>(n, run, quick_mode());
  // Long systems: the hybrid's reduce / solve-reduced / finish passes.
  check_factored_against_reference<T>(4096, run, true);
}

TYPED_TEST(FactoredHybridCuda, ThreadThomasStillMatchesReference) {
  // Automatic no longer runs these kernels for long dominant systems: keep them tested.
  using T = TypeParam;
  const std::vector<std::int64_t> sizes =
      quick_mode() ? std::vector<std::int64_t>{64} : std::vector<std::int64_t>{64, 257};
  const auto run = cuda_factored_runner<T>(FactoredAlgorithm::cuda_thread_thomas);
  for (std::int64_t n : sizes) check_factored_against_reference<T>(n, run, quick_mode());
  if (!quick_mode()) check_factored_against_reference<T>(4096, run, true);
}

TYPED_TEST(FactoredHybridCuda, CheckedModeMatchesHostBackends) {
  // Checked mode runs the factored kernels: info as the CPU plan reports it.
  using T = TypeParam;
  for (std::int64_t n : {5, 33, 300}) {
    const std::int64_t count = 24;
    auto m = toeplitz<T>("fast", n, 0.25, 1.0, 0.25, 3);
    const auto l = Layout::packed({count, n});
    FactoredGrid g{"2d", {count, n}, 1, FactoredLayouts(l)};
    std::vector<T> d0(l.size(), T(0.5));
    const T faults[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                        -std::numeric_limits<T>::infinity()};
    for (std::int64_t s = 0; s < count; s += 2) d0[row_of(l, 1, s, (s * 5) % n)] = faults[(s / 2) % 3];
    for (Mode mode : {Mode::in_place, Mode::separate, Mode::increment}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " " + to_string(mode));
      std::vector<int> want(count), got(count, -1);
      std::vector<T> dh = d0, xh(l.size(), T(1)), dg = d0, xg(l.size(), T(1));
      run_factored_host(Backend::cpu, m, g, mode, dh, xh, {.checked = true}, want.data());
      run_factored_cuda(m, g, mode, dg, xg, true, &got, FactoredAlgorithm::cuda_hybrid);
      EXPECT_EQ(got, want);
    }
  }
}

TYPED_TEST(FactoredHybridCuda, BreakdownAndScaledMatrix) {
  using T = TypeParam;
  auto singular = pade<T>(3);
  const auto l = Layout::packed({3, 40});
  FactoredGrid g{"2d", {3, 40}, 0, FactoredLayouts(l)};
  for (bool checked : {true, false}) {
    std::vector<T> d(l.size(), T(1)), x(l.size(), T(2));
    std::vector<int> info(40, -1);
    run_factored_cuda(singular, g, Mode::separate, d, x, checked, checked ? &info : nullptr,
                      FactoredAlgorithm::cuda_hybrid);
    if (checked) {
      for (int i : info) EXPECT_EQ(i, 3);
    }
    for (T v : x) EXPECT_TRUE(std::isnan(v));
  }

  const std::int64_t n = 100;
  auto m = toeplitz<T>("fast", n, 0.25, 1.0, 0.25, 3);
  const int k = low_exponent<T>();
  const auto ms = scaled_matrix(m, k);
  const auto l2 = Layout::packed({n, 70});
  FactoredGrid g2{"2d", {n, 70}, 0, FactoredLayouts(l2)};
  std::vector<T> d0, ds, x0(l2.size()), xs(l2.size());
  scaled_rhs_pair(l2.size(), k, d0, ds);
  run_factored_cuda(m, g2, Mode::separate, d0, x0, false, nullptr, FactoredAlgorithm::cuda_hybrid);
  run_factored_cuda(ms, g2, Mode::separate, ds, xs, false, nullptr, FactoredAlgorithm::cuda_hybrid);
  ASSERT_TRUE(outputs_match(l2, xs, x0, 4.0));
}

template <class T>
FactoredAlgorithm automatic_choice(const FactoredMatrixCase<T>& m, std::int64_t n, bool checked) {
  const auto l = Layout::packed({n, 9});
  FactoredSolver<T> s(Backend::cuda, m.a.data(), m.b.data(), m.c.data(), n, l, 0,
                      {.checked = checked});
  return s.algorithm();
}

TYPED_TEST(FactoredHybridCuda, AutomaticRoute) {
  using T = TypeParam;
  const auto fast = [](std::int64_t n) { return toeplitz<T>("fast", n, 0.25, 1.0, 0.25, 3); };
  {
    const ScopedEnv env("TRIAX_CUDA_FACTORED_ROUTE", nullptr);
    EXPECT_EQ(automatic_choice<T>(fast(64), 64, false), FactoredAlgorithm::cuda_hybrid);
    EXPECT_EQ(automatic_choice<T>(varying<T>(300, 7), 300, false), FactoredAlgorithm::cuda_hybrid);
    EXPECT_EQ(automatic_choice<T>(fast(63), 63, false), FactoredAlgorithm::cuda_thread_thomas);
    EXPECT_EQ(automatic_choice<T>(fast(64), 64, true), FactoredAlgorithm::cuda_thread_thomas);
    // The Pade closures are boundary rows (allowed); an interior row that is not dominant is not.
    EXPECT_EQ(automatic_choice<T>(pade<T>(64), 64, false), FactoredAlgorithm::cuda_hybrid);
    auto weak = fast(64);
    weak.c[10] = T(0.9);
    EXPECT_EQ(automatic_choice<T>(weak, 64, false), FactoredAlgorithm::cuda_thread_thomas);
  }
  {
    const ScopedEnv env("TRIAX_CUDA_FACTORED_ROUTE", "thomas");
    EXPECT_EQ(automatic_choice<T>(fast(512), 512, false), FactoredAlgorithm::cuda_thread_thomas);
  }
  {
    const ScopedEnv env("TRIAX_CUDA_FACTORED_ROUTE", "hybrid");
    EXPECT_EQ(automatic_choice<T>(fast(5), 5, false), FactoredAlgorithm::cuda_hybrid);
    EXPECT_EQ(automatic_choice<T>(pade<T>(64), 64, false), FactoredAlgorithm::cuda_hybrid);
    EXPECT_EQ(automatic_choice<T>(fast(64), 64, true), FactoredAlgorithm::cuda_thread_thomas);
    // A grouped plan keeps its kernels.
    const std::int64_t n = 70;
    std::vector<T> a(n * 3, T(0.25)), b(n * 3, T(1)), c(n * 3, T(0.25));
    FactoredSolver<T> grouped(Backend::cuda, a.data(), b.data(), c.data(),
                              Layout::strided({n, 5, 3}, {1, 0, n}), Layout::packed({n, 5, 3}), 0);
    EXPECT_EQ(grouped.algorithm(), FactoredAlgorithm::cuda_thread_thomas);
  }
}

}  // namespace
}  // namespace triax::test
