// Paper 004's near-Toeplitz cyclic reduction on the cuda backend (FactoredAlgorithm::
// cuda_block_cr_shared and cuda_block_cr_global) against the reference backend, the cpu_cr
// form of the algorithm and the factored Thomas kernels: n = 1..4097 with primes and 2^k +- 1
// (every n up to 65 with TRIAX_FULL_RANGE_TESTS=1),
// every axis of 2-D..4-D grids with ghost layers whose sentinel must survive (outputs poisoned
// with NaN before the run), in place / separate / increment, many right-hand sides, checked mode
// on device info, breakdowns and scaled matrices. SKIPPED without a device.
#include <gtest/gtest.h>

#include "support/device_runner.hpp"
#include "support/factored_cases.hpp"
#include "support/factored_device.hpp"

namespace triax::test {
namespace {

template <class T>
class FactoredCrCuda : public NeedsDevice<> {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FactoredCrCuda, Precisions);

constexpr FactoredAlgorithm cr_variants[] = {FactoredAlgorithm::cuda_block_cr_shared,
                                             FactoredAlgorithm::cuda_block_cr_global};

/// run_factored_cuda with the algorithm named.
template <class T>
void run_cr_cuda(FactoredAlgorithm algorithm, const FactoredMatrixCase<T>& m, const FactoredGrid& g,
                 Mode mode, std::vector<T>& d, std::vector<T>& x, bool checked = false,
                 std::vector<int>* info = nullptr) {
  run_factored_cuda(m, g, mode, d, x, checked, info, algorithm);
}

/// The short sizes. CR's shape follows ceil(log2 n) (its levels, and which rows each level
/// keeps or eliminates: cr_table.hpp), so the default run takes n = 1..5 and the powers of two
/// +-1 up to 65 (a level added or a last level of one, two or three rows), and 37 (neither);
/// TRIAX_FULL_RANGE_TESTS=1 takes every n = 1..65.
std::vector<std::int64_t> cr_short_sizes() {
  if (quick_mode()) return {1, 2, 3, 5, 8, 33};
  if (!full_range_tests()) return {1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 32, 33, 37, 63, 64, 65};
  std::vector<std::int64_t> sizes;
  for (std::int64_t n = 1; n <= 65; ++n) sizes.push_back(n);
  return sizes;
}

TYPED_TEST(FactoredCrCuda, MatchesReferenceShortSystems) {
  for (FactoredAlgorithm a : cr_variants) {
    SCOPED_TRACE(std::string(to_string(a)));
    const auto run = cuda_factored_runner<TypeParam>(a);
    for (std::int64_t n : cr_short_sizes())
      check_factored_against_reference<TypeParam>(n, run, quick_mode());
  }
}

TYPED_TEST(FactoredCrCuda, MatchesReferenceLongSystems) {
  const std::vector<std::int64_t> sizes =
      quick_mode() ? std::vector<std::int64_t>{127, 257}
                   : std::vector<std::int64_t>{127, 128, 129, 251,  255,  256, 257,
                                               511, 512, 513, 1021, 1024, 1025};
  for (FactoredAlgorithm a : cr_variants) {
    SCOPED_TRACE(std::string(to_string(a)));
    const auto run = cuda_factored_runner<TypeParam>(a);
    for (std::int64_t n : sizes) check_factored_against_reference<TypeParam>(n, run, true);
    if (!quick_mode()) {
      for (std::int64_t n : {4095, 4096, 4097}) {
        check_factored_against_reference<TypeParam>(n, run, true);
      }
    }
  }
}

TYPED_TEST(FactoredCrCuda, GlobalVariantBeyondSharedMemory) {
  // Longer than the shared-memory variant holds: only the global one runs it.
  using T = TypeParam;
  const std::int64_t n = (std::is_same_v<T, float> ? 12032 : 6016) + 3;
  check_factored_against_reference<T>(
      n, cuda_factored_runner<T>(FactoredAlgorithm::cuda_block_cr_global), true);
}

TYPED_TEST(FactoredCrCuda, MatchesCpuCrAndThomasOnManyRightHandSides) {
  // A 3-D grid, every axis (the lanes-contiguous and the rows-contiguous loads, several systems
  // per block), padded d and packed x: the device CR against cpu_cr (the same algorithm) and
  // against the factored Thomas kernels.
  using T = TypeParam;
  const std::vector<std::vector<std::int64_t>> shapes =
      quick_mode() ? std::vector<std::vector<std::int64_t>>{{40, 9, 7}}
                   : std::vector<std::vector<std::int64_t>>{{128, 64, 33}, {300, 17, 40}};
  for (const auto& shape : shapes) {
    for (int axis = 0; axis < 3; ++axis) {
      const std::int64_t n = shape[axis];
      for (const auto& m : {pade<T>(n), toeplitz<T>("slow", n, 1.0, -2.01, 1.0, 400.0)}) {
        std::vector<std::int64_t> alloc(shape), begin(3, 1);
        for (auto& e : alloc) e += 2;
        FactoredGrid g{"3d", shape, axis,
                       FactoredLayouts(Layout::padded(shape, alloc, begin), Layout::packed(shape))};
        std::vector<T> d(buffer_size(g.layouts.d), T(-7.5));
        std::mt19937_64 gen(test_seed(axis + 7));
        std::uniform_real_distribution<double> u(-1, 1);
        for_each_offset(g.layouts.d, [&](std::int64_t o) { d[o] = T(u(gen)); });
        const T nan = std::numeric_limits<T>::quiet_NaN();
        std::vector<T> x_cpu(g.layouts.x.size(), nan), x_thomas = x_cpu;
        std::vector<T> dc = d;
        run_factored_host(Backend::cpu, m, g, Mode::separate, dc, x_cpu, {}, nullptr,
                          FactoredAlgorithm::cpu_cr);
        for (FactoredAlgorithm a : cr_variants) {
          SCOPED_TRACE(m.name + " " + std::string(to_string(a)) + " n " + std::to_string(n) +
                       " axis " + std::to_string(axis));
          std::vector<T> dg = d, xg(g.layouts.x.size(), nan);
          run_cr_cuda(a, m, g, Mode::separate, dg, xg);
          ASSERT_TRUE(outputs_match(g.layouts.x, xg, x_cpu, m.condition));  // FMA on the device
        }
        std::vector<T> dt = d;
        std::vector<T> xt(g.layouts.x.size(), nan), xcr(g.layouts.x.size(), nan);
        {
          cudaStream_t stream = nullptr;
          DeviceBuffer<T> ddev(dt), xdev(xt);
          FactoredSolver<T> thomas(Backend::cuda, m.a.data(), m.b.data(), m.c.data(), n, g.layouts,
                                   axis, {.stream = stream}, FactoredAlgorithm::cuda_thread_thomas);
          thomas.solve(ddev.get(), xdev.get());
          TRIAX_TEST_CUDA_OK(cudaDeviceSynchronize());
          xdev.download(xt);
        }
        std::vector<T> dg = d;
        run_cr_cuda(FactoredAlgorithm::cuda_block_cr_shared, m, g, Mode::separate, dg, xcr);
        ASSERT_TRUE(outputs_match(g.layouts.x, xcr, xt, m.condition));
      }
    }
  }
}

TYPED_TEST(FactoredCrCuda, CheckedModeMatchesCpuCr) {
  using T = TypeParam;
  for (std::int64_t n : {5, 33, 300}) {
    const std::int64_t count = 24;
    auto m = toeplitz<T>("fast", n, 0.25, 1.0, 0.25, 3);
    for (int axis : {0, 1}) {
      const auto l = axis == 0 ? Layout::packed({n, count}) : Layout::packed({count, n});
      FactoredGrid g{
          "2d",
          axis == 0 ? std::vector<std::int64_t>{n, count} : std::vector<std::int64_t>{count, n},
          axis, FactoredLayouts(l)};
      std::vector<T> d0(l.size(), T(0.5));
      const T faults[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                          -std::numeric_limits<T>::infinity()};
      for (std::int64_t s = 0; s < count; s += 2)
        d0[row_of(l, axis, s, (s * 5) % n)] = faults[(s / 2) % 3];
      for (FactoredAlgorithm a : cr_variants) {
        for (Mode mode : {Mode::in_place, Mode::separate, Mode::increment}) {
          SCOPED_TRACE("n=" + std::to_string(n) + " axis " + std::to_string(axis) + " " +
                       std::string(to_string(a)) + " " + to_string(mode));
          std::vector<int> want(count), got(count, -1);
          std::vector<T> dh = d0, xh(l.size(), T(1)), dg = d0, xg(l.size(), T(1));
          run_factored_host(Backend::cpu, m, g, mode, dh, xh, {.checked = true}, want.data(),
                            FactoredAlgorithm::cpu_cr);
          run_cr_cuda(a, m, g, mode, dg, xg, true, &got);
          EXPECT_EQ(got, want);
        }
      }
    }
  }
}

TYPED_TEST(FactoredCrCuda, BreakdownAndScaledMatrix) {
  using T = TypeParam;
  auto singular = pade<T>(3);
  const auto l = Layout::packed({3, 40});
  FactoredGrid g{"2d", {3, 40}, 0, FactoredLayouts(l)};
  for (FactoredAlgorithm a : cr_variants) {
    SCOPED_TRACE(std::string(to_string(a)));
    std::vector<T> d(l.size(), T(1)), x(l.size(), T(2));
    std::vector<int> info(40, -1);
    run_cr_cuda(a, singular, g, Mode::separate, d, x, true, &info);
    for (int i : info) EXPECT_EQ(i, 2);
    for (T v : x) EXPECT_TRUE(std::isnan(v));

    const std::int64_t n = 50;
    auto m = pade<T>(n);
    const int k = low_exponent<T>();
    const auto ms = scaled_matrix(m, k);
    const auto l2 = Layout::packed({n, 70});
    FactoredGrid g2{"2d", {n, 70}, 0, FactoredLayouts(l2)};
    std::vector<T> d0, ds, x0(l2.size()), xs(l2.size());
    scaled_rhs_pair(l2.size(), k, d0, ds);
    run_cr_cuda(a, m, g2, Mode::separate, d0, x0);
    run_cr_cuda(a, ms, g2, Mode::separate, ds, xs);
    ASSERT_TRUE(outputs_match(l2, xs, x0, 4.0));
  }
}

}  // namespace
}  // namespace triax::test
