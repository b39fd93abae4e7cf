// triax::FactoredSolver on the cuda backend against the reference backend: the matrices and grids
// of support/factored_cases.hpp (n = 1..4096 across the register and general kernels, every axis
// of 2-D..4-D grids with ghost layers, in place / separate / increment), checked mode on device
// info, breakdowns, scaled matrices, and host pointers refused. SKIPPED without a device.
#include <gtest/gtest.h>

#include "support/device_runner.hpp"
#include "support/factored_cases.hpp"
#include "support/factored_device.hpp"

namespace triax::test {
namespace {

template <class T>
class FactoredCuda : public NeedsDevice<> {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FactoredCuda, Precisions);

TYPED_TEST(FactoredCuda, MatchesReferenceRegisterKernel) {
  // n <= 8 and n <= 32: d' in registers.
  const std::vector<std::int64_t> sizes = quick_mode()
                                              ? std::vector<std::int64_t>{1, 3, 9, 32}
                                              : std::vector<std::int64_t>{1, 2, 3, 8, 9, 31, 32};
  const auto run = cuda_factored_runner<TypeParam>();
  for (std::int64_t n : sizes) check_factored_against_reference<TypeParam>(n, run, quick_mode());
}

TYPED_TEST(FactoredCuda, MatchesReferenceGeneralKernel) {
  const std::vector<std::int64_t> sizes =
      quick_mode() ? std::vector<std::int64_t>{33, 257} : std::vector<std::int64_t>{33, 64, 257};
  const auto run = cuda_factored_runner<TypeParam>();
  for (std::int64_t n : sizes) check_factored_against_reference<TypeParam>(n, run, quick_mode());
  // Long systems: past the staged kernel's shared memory (the tiled and one-thread kernels).
  if (!quick_mode()) {
    check_factored_against_reference<TypeParam>(4096, run, true);
  }
}

TYPED_TEST(FactoredCuda, CheckedModeMatchesHostBackends) {
  using T = TypeParam;
  for (std::int64_t n : {5, 33}) {
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
      run_factored_cuda(m, g, mode, dg, xg, true, &got);
      EXPECT_EQ(got, want);
    }
  }
}

TYPED_TEST(FactoredCuda, BreakdownAndScaledMatrix) {
  using T = TypeParam;
  auto singular = pade<T>(3);
  const auto l = Layout::packed({3, 40});
  FactoredGrid g{"2d", {3, 40}, 0, FactoredLayouts(l)};
  std::vector<T> d(l.size(), T(1)), x(l.size(), T(2));
  std::vector<int> info(40, -1);
  run_factored_cuda(singular, g, Mode::separate, d, x, true, &info);
  for (int i : info) EXPECT_EQ(i, 3);
  for (T v : x) EXPECT_TRUE(std::isnan(v));

  const std::int64_t n = 50;
  auto m = pade<T>(n);
  const int k = low_exponent<T>();
  const auto ms = scaled_matrix(m, k);
  const auto l2 = Layout::packed({n, 70});
  FactoredGrid g2{"2d", {n, 70}, 0, FactoredLayouts(l2)};
  std::vector<T> d0, ds, x0(l2.size()), xs(l2.size());
  scaled_rhs_pair(l2.size(), k, d0, ds);
  run_factored_cuda(m, g2, Mode::separate, d0, x0);
  run_factored_cuda(ms, g2, Mode::separate, ds, xs);
  ASSERT_TRUE(outputs_match(l2, xs, x0, 4.0));
}

TYPED_TEST(FactoredCuda, HostPointersRefused) {
  using T = TypeParam;
  auto m = toeplitz<T>("fast", 8, 0.25, 1.0, 0.25, 3);
  const auto l = Layout::packed({8, 4});
  FactoredSolver<T> s(Backend::cuda, m.a.data(), m.b.data(), m.c.data(), 8, l, 0);
  std::vector<T> host(l.size(), T(1));
  DeviceBuffer<T> dev(host);
  EXPECT_THROW(s.solve_in_place(host.data()), invalid_argument);
  EXPECT_THROW(s.solve(dev.get(), host.data()), invalid_argument);
  EXPECT_EQ(host, std::vector<T>(l.size(), T(1)));
}


TYPED_TEST(FactoredCuda, MatchesGeneralSolverOnManyRightHandSides) {
  // triax::Solver on the device with the matrix broadcast to every system: every axis of a
  // padded 40 x 36 x 33 grid, n = 33..40 (the staged kernel) and along x the long path (n = 300).
  using T = TypeParam;
  for (const std::vector<std::int64_t>& shape :
       {std::vector<std::int64_t>{40, 36, 33}, std::vector<std::int64_t>{300, 9, 5}}) {
    for (int axis = 0; axis < 3; ++axis) {
      const std::int64_t n = shape[axis];
      auto m = pade<T>(n);
      std::vector<std::int64_t> strides(3, 0), alloc(shape), begin(3, 1);
      strides[axis] = 1;
      for (auto& e : alloc) e += 2;
      const auto coef = Layout::strided(shape, strides);
      const auto ld = Layout::padded(shape, alloc, begin);
      const auto lx = Layout::packed(shape);
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
      SCOPED_TRACE("n " + std::to_string(n) + " axis " + std::to_string(axis));
      std::vector<T> want(lx.size(), T(0.5)), got(lx.size(), T(0.5));
      DeviceBuffer<T> da(a), db(b), dc(c), dd(d), dw(want), dg(got);
      Solver<T> general(Backend::cuda, OperandLayouts(coef, coef, coef, ld, lx), axis);
      FactoredSolver<T> factored(Backend::cuda, a.data(), b.data(), c.data(), n,
                                 FactoredLayouts(ld, lx), axis);
      general.solve_increment(da.get(), db.get(), dc.get(), dd.get(), dw.get());
      factored.solve_increment(dd.get(), dg.get());
      TRIAX_TEST_CUDA_OK(cudaDeviceSynchronize());
      dw.download(want);
      dg.download(got);
      ASSERT_TRUE(outputs_match(lx, got, want, m.condition));
    }
  }
}

}  // namespace
}  // namespace triax::test
