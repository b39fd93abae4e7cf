// Constant-coefficient systems whose solution is known in closed form, on every host solver,
// along both axes: the answer is checked against the formula, not against another solver.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "cpu/host_solvers.hpp"

namespace triax::test {
namespace {

template <class T>
class ClosedForm : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ClosedForm, ValueTypes);

// A constant-coefficient family: a x[i-1] + b x[i] + c x[i+1] = d[i] with a known solution.
struct Family {
  const char* name;
  double a, b, c;
  std::function<long double(std::int64_t i, std::int64_t n)> x;  // the solution
  std::function<double(std::int64_t n)> condition;                // infinity-norm bound
};

// d = A x exactly enough: long double, then rounded once to T.
template <class T>
void expect_closed_form(const Family& f, std::int64_t n, std::int64_t systems) {
  const std::vector<HostSolver> solvers = [] {
    std::vector<HostSolver> v(std::begin(host_solvers), std::end(host_solvers));
    v.push_back(reference_dense_lu);
    return v;
  }();
  for (int axis = 0; axis < 2; ++axis) {
    const Layout layout = systems_along(axis, n, systems);
    Batch<T> batch{OperandLayouts(layout)};
    long double scale = 0;
    for (std::int64_t s = 0; s < systems; ++s) {
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t o = system_row_offset(layout, axis, s, i);
        batch.a[o] = T(f.a), batch.b[o] = T(f.b), batch.c[o] = T(f.c);
        long double d = f.b * f.x(i, n);
        if (i > 0) d += f.a * f.x(i - 1, n);
        if (i + 1 < n) d += f.c * f.x(i + 1, n);
        batch.d[o] = static_cast<T>(d);
        scale = std::max(scale, std::abs(f.x(i, n)));
      }
    }
    // d carries one rounding (relative eps): the forward error is at most about
    // condition * eps * |x| from it, plus the solver's own, of the same order.
    const double tol = tolerance<T>(f.condition(n), double(scale));
    for (const HostSolver& h : solvers) {
      Batch<T> work = batch;
      Solver<T> s(h.backend, layout, axis, {.algorithm = h.algorithm});
      run_mode(s, work, Mode::in_place);
      for (std::int64_t k = 0; k < systems; ++k) {
        for (std::int64_t i = 0; i < n; ++i) {
          const std::int64_t o = system_row_offset(layout, axis, k, i);
          ASSERT_NEAR(double(work.d[o]), double(f.x(i, n)), tol)
              << f.name << ", " << h.name() << ", axis " << axis << ", n " << n << ", system "
              << k << ", row " << i;
        }
      }
    }
  }
}

// tridiag(-1, 4, -1) with x[i] = sin(k (i + 1)): rows away from the ends give
// (4 - 2 cos k) x[i]. Strictly dominant by 2: ||A|| <= 6, ||A^-1|| <= 1/2, condition <= 3.
const Family sine{"sine", -1, 4, -1,
                  [](std::int64_t i, std::int64_t) { return std::sin(0.37L * (i + 1)); },
                  [](std::int64_t) { return 3.0; }};
// tridiag(1, 4, 1): the same bound, the other sign of the off-diagonals.
const Family cosine{"cosine", 1, 4, 1,
                    [](std::int64_t i, std::int64_t) { return std::cos(1.3L * i) + 0.5L; },
                    [](std::int64_t) { return 3.0; }};
// The 1-D Poisson matrix tridiag(-1, 2, -1) with d = 1: x[i] = (i + 1)(n - i) / 2, the discrete
// parabola. Only weakly dominant; ||A|| = 4 and ||A^-1|| = max x = (n + 1)^2 / 8.
const Family parabola{"parabola", -1, 2, -1,
                      [](std::int64_t i, std::int64_t n) { return (i + 1.0L) * (n - i) / 2; },
                      [](std::int64_t n) { return 4.0 * (n + 1.0) * (n + 1.0) / 8.0; }};

TYPED_TEST(ClosedForm, DominantSystems) {
  for (std::int64_t n : {1, 2, 3, 31, 257}) {
    expect_closed_form<TypeParam>(sine, n, 19);
    expect_closed_form<TypeParam>(cosine, n, 19);
  }
}

TYPED_TEST(ClosedForm, PoissonParabola) {
  for (std::int64_t n : {1, 2, 33, 200}) expect_closed_form<TypeParam>(parabola, n, 11);
}

}  // namespace
}  // namespace triax::test
