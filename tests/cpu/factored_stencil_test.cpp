// triax::FactoredSolver::solve_stencil on the host backends (cpu, reference), which form B f in
// a workspace and solve it: against stencil.hpp's rule applied here and the reference backend's
// solve (support/factored_stencil.hpp), every axis of 2-D..4-D grids with ghost layers, the
// boundary sizes of the closures; the Pade stencil differentiating cubics exactly; the argument
// checks (f and x overlapping, null f) and the workspace made once.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "support/factored_stencil.hpp"

namespace triax::test {
namespace {

template <class T>
class FactoredStencilHost : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FactoredStencilHost, Precisions);

template <class T>
StencilRunner<T> host_stencil_runner(Backend backend) {
  return [backend](const FactoredMatrixCase<T>& m, const FactoredGrid& g, const Stencil<T>& B,
                   const std::vector<T>& f, std::vector<T>& x) {
    FactoredSolver<T> s(backend, m.a.data(), m.b.data(), m.c.data(),
                        static_cast<std::int64_t>(m.b.size()), g.layouts, g.axis);
    ASSERT_FALSE(s.fuses_stencil());
    s.solve_stencil(B, f.data(), x.data());
  };
}

TYPED_TEST(FactoredStencilHost, MatchesReferenceEveryAxis) {
  using T = TypeParam;
  for (Backend backend : {Backend::cpu, Backend::reference}) {
    for (std::int64_t n : stencil_test_sizes(false)) {
      SCOPED_TRACE(std::string(to_string(backend)));
      check_stencil_against_reference<T>(n, random_stencil<T>(test_seed(n)),
                                         host_stencil_runner<T>(backend), n > 129);
      const double h = 1.0 / double(std::max<std::int64_t>(1, n - 1));
      check_stencil_against_reference<T>(n, stencil_as<T>(stencil_hpp_example(h)),
                                         host_stencil_runner<T>(backend), true);
    }
  }
}

// The Pade scheme is exact for cubics (interior: degree 4; closures: degree 3), so the derivative
// of p(t) = 1 + 2t - 3t^2 + 0.5t^3 along each axis of a 3-D grid is p' to rounding.
TYPED_TEST(FactoredStencilHost, PadeDifferentiatesCubicsExactly) {
  using T = TypeParam;
  const auto p = [](double t) { return 1 + 2 * t - 3 * t * t + 0.5 * t * t * t; };
  const auto dp = [](double t) { return 2 - 6 * t + 1.5 * t * t; };
  for (std::int64_t n : {4, 5, 7, 64, 129}) {
    for (int axis = 0; axis < 3; ++axis) {
      SCOPED_TRACE("n=" + std::to_string(n) + " axis=" + std::to_string(axis));
      std::vector<std::int64_t> shape{3, 4, 5};
      shape[axis] = n;
      const auto l = Layout::packed(shape);
      const double h = 1.0 / double(n - 1);
      std::vector<T> f(l.size()), x(l.size(), std::numeric_limits<T>::quiet_NaN());
      for (std::int64_t o = 0; o < l.size(); ++o) {
        const std::int64_t idx[3] = {o % shape[0], (o / shape[0]) % shape[1], o / (shape[0] * shape[1])};
        f[o] = T(p(double(idx[axis]) * h) + double(idx[(axis + 1) % 3]));  // constant along others
      }
      const auto m = pade<T>(n);
      FactoredSolver<T> s(Backend::cpu, m.a.data(), m.b.data(), m.c.data(), n, l, axis);
      s.solve_stencil(stencil_as<T>(stencil_hpp_example(h)), f.data(), x.data());
      // f's rounding (|f| <= 6, divided by h) through a matrix of condition ~ 6.
      const double tol = 200 * std::numeric_limits<T>::epsilon() * 6 / h;
      for (std::int64_t o = 0; o < l.size(); ++o) {
        const std::int64_t idx[3] = {o % shape[0], (o / shape[0]) % shape[1], o / (shape[0] * shape[1])};
        ASSERT_NEAR(double(x[o]), dp(double(idx[axis]) * h), tol) << "at " << o;
      }
    }
  }
}

TYPED_TEST(FactoredStencilHost, RejectsOverlapAndNullNamingF) {
  using T = TypeParam;
  const auto m = pade<T>(16);
  const auto l = Layout::packed({16, 4});
  FactoredSolver<T> s(Backend::cpu, m.a.data(), m.b.data(), m.c.data(), 16, l, 0);
  std::vector<T> buf(2 * l.size() + 1, T(1));
  const std::vector<T> before = buf;
  const Stencil<T> B = random_stencil<T>(1);
  const auto message = [&](const T* f, T* x) -> std::string {
    try {
      s.solve_stencil(B, f, x);
    } catch (const invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  for (const std::int64_t shift : {0, 1, 63}) {  // x over f: the same array, shifted within it
    const std::string what = message(buf.data(), buf.data() + shift);
    EXPECT_NE(what.find("solve_stencil: x shares elements with f"), std::string::npos)
        << "shift " << shift << ": " << what;
  }
  EXPECT_NE(message(nullptr, buf.data()).find("pointer f is null"), std::string::npos);
  EXPECT_EQ(buf, before) << "a rejected call wrote";
  // Separate arrays (x right after f) are fine.
  EXPECT_EQ(message(buf.data(), buf.data() + l.size()), "");
}

TYPED_TEST(FactoredStencilHost, WorkspaceMadeOnceAndCheckedInfo) {
  using T = TypeParam;
  const std::int64_t n = 32;
  const auto m = pade<T>(n);
  const auto l = Layout::padded({n, 6}, {n + 2, 8}, {1, 1});
  FactoredSolver<T> s(Backend::cpu, m.a.data(), m.b.data(), m.c.data(), n, l, 0,
                      {.checked = true});
  const std::size_t before = s.workspace_bytes();
  std::vector<T> f(buffer_size(l), T(0.5)), x(buffer_size(l), T(0));
  std::vector<int> info(6, -1);
  s.solve_stencil(random_stencil<T>(2), f.data(), x.data(), info.data());
  const std::size_t after = s.workspace_bytes();
  EXPECT_EQ(after, before + buffer_size(l) * sizeof(T));  // laid out as d
  for (int v : info) EXPECT_EQ(v, 0);
  // A NaN inside system 3 spoils rows near it there only (checked mode's info, as solve()).
  f[system_row_offset(l, 0, 3, 10)] = std::numeric_limits<T>::quiet_NaN();
  s.solve_stencil(random_stencil<T>(2), f.data(), x.data(), info.data());
  EXPECT_EQ(s.workspace_bytes(), after);
  for (int sys = 0; sys < 6; ++sys) {
    if (sys == 3) {
      EXPECT_GT(info[sys], 0);
    } else {
      EXPECT_EQ(info[sys], 0) << "system " << sys;
    }
  }
}

TYPED_TEST(FactoredStencilHost, EmptyBatchReadsNothing) {
  using T = TypeParam;
  const auto m = pade<T>(8);
  FactoredSolver<T> s(Backend::cpu, m.a.data(), m.b.data(), m.c.data(), 8,
                      Layout::packed({8, 0}), 0);
  EXPECT_NO_THROW(s.solve_stencil(random_stencil<T>(3), nullptr, nullptr));
}

}  // namespace
}  // namespace triax::test
