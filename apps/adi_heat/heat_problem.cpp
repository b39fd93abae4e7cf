#include "heat_problem.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numbers>

namespace adi {
namespace {

using Clock = std::chrono::steady_clock;

// dt (Lx + Ly + Lz) u with u = 0 outside the interior (7-point stencil, scaled by dt / h^2).
template <class T>
void laplacian_times_dt(const std::vector<T>& u, std::vector<T>& out, std::int64_t n, T scale) {
  const std::int64_t n2 = n * n;
#pragma omp parallel for collapse(2) schedule(static)
  for (std::int64_t k = 0; k < n; ++k) {
    for (std::int64_t j = 0; j < n; ++j) {
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t o = k * n2 + j * n + i;
        const T c = u[o];
        T s = -6 * c;
        s += i > 0 ? u[o - 1] : T(0);
        s += i + 1 < n ? u[o + 1] : T(0);
        s += j > 0 ? u[o - n] : T(0);
        s += j + 1 < n ? u[o + n] : T(0);
        s += k > 0 ? u[o - n2] : T(0);
        s += k + 1 < n ? u[o + n2] : T(0);
        out[o] = scale * s;
      }
    }
  }
}

}  // namespace

template <class T>
Result run(const Settings& s) {
  const std::int64_t n = s.n;
  const double h = 1.0 / double(n + 1);
  Result r;
  r.dt = s.t_end > 0 ? s.t_end / s.steps : h;
  r.t_end = r.dt * s.steps;
  const double mu = r.dt / (h * h);

  const auto grid = triax::Layout::packed({n, n, n});
  // One value for every row of every system: stride 0 in all three dimensions.
  const auto constant = triax::Layout::strided({n, n, n}, {0, 0, 0});
  const triax::OperandLayouts layouts(constant, constant, constant, grid, grid);
  const std::vector<T> a{T(-mu / 2)}, b{T(1 + mu)}, c{T(-mu / 2)};

  std::vector<T> u(grid.size()), d1(grid.size()), d2(grid.size());
  const double pi = std::numbers::pi;
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < n; ++k) {
    for (std::int64_t j = 0; j < n; ++j) {
      for (std::int64_t i = 0; i < n; ++i) {
        u[(k * n + j) * n + i] = static_cast<T>(std::sin(pi * (i + 1) * h) *
                                                std::sin(pi * (j + 1) * h) *
                                                std::sin(pi * (k + 1) * h));
      }
    }
  }

  // Plans once, before the time loop.
  triax::Solver<T> solve_x(s.backend, layouts, 0), solve_y(s.backend, layouts, 1),
      solve_z(s.backend, layouts, 2);
  const double cells = double(grid.size());
  auto timed = [&](int axis, double bytes, auto&& f) {
    const auto t0 = Clock::now();
    f();
    r.axis[axis].seconds += std::chrono::duration<double>(Clock::now() - t0).count();
    r.axis[axis].bytes += bytes;
  };
  const auto start = Clock::now();
  for (int step = 0; step < s.steps; ++step) {
    laplacian_times_dt(u, d1, n, T(mu));
    // Broadcast coefficients are one value each: a perfect solver reads d and writes x (and,
    // in increment mode, reads u too).
    timed(0, 2 * cells * sizeof(T), [&] { solve_x.solve_in_place(a.data(), b.data(), c.data(), d1.data()); });
    timed(1, 2 * cells * sizeof(T), [&] { solve_y.solve(a.data(), b.data(), c.data(), d1.data(), d2.data()); });
    timed(2, 3 * cells * sizeof(T), [&] { solve_z.solve_increment(a.data(), b.data(), c.data(), d2.data(), u.data()); });
  }
  r.total_seconds = std::chrono::duration<double>(Clock::now() - start).count();

  const double decay = std::exp(-3 * pi * pi * r.t_end);
  double err = 0;
#pragma omp parallel for reduction(max : err) schedule(static)
  for (std::int64_t k = 0; k < n; ++k) {
    for (std::int64_t j = 0; j < n; ++j) {
      for (std::int64_t i = 0; i < n; ++i) {
        const double exact = decay * std::sin(pi * (i + 1) * h) * std::sin(pi * (j + 1) * h) *
                             std::sin(pi * (k + 1) * h);
        err = std::max(err, std::abs(double(u[(k * n + j) * n + i]) - exact));
      }
    }
  }
  r.max_error = err;
  return r;
}

template Result run<float>(const Settings&);
template Result run<double>(const Settings&);

}  // namespace adi
