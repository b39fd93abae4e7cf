#include "heat_problem.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numbers>
#include <vector>

#include "fields.hpp"
#ifdef TRIAX_HAS_CUDA
#include "cuda_fields.hpp"
#endif

namespace adi {
namespace {

constexpr double pi = std::numbers::pi;

// Calls f(offset, sin(pi x) sin(pi y) sin(pi z)) for every interior point of the packed grid.
template <class F>
void for_each_sine_mode_point(std::int64_t n, F&& f) {
  const double h = 1.0 / double(n + 1);
#pragma omp parallel for collapse(2) schedule(static)
  for (std::int64_t k = 0; k < n; ++k) {
    for (std::int64_t j = 0; j < n; ++j) {
      const double yz = std::sin(pi * double(j + 1) * h) * std::sin(pi * double(k + 1) * h);
      for (std::int64_t i = 0; i < n; ++i) {
        f((k * n + j) * n + i, std::sin(pi * double(i + 1) * h) * yz);
      }
    }
  }
}

// The time loop, the same for host and device fields: plans are made once, before it.
template <class T, class Fields>
void advance(Fields& fields, const Settings& s, double mu, Result& r) {
  const std::int64_t n = s.n;
  const auto grid = triax::Layout::packed({n, n, n});
  // One value for every row of every system: stride 0 in all three dimensions.
  const auto constant = triax::Layout::strided({n, n, n}, {0, 0, 0});
  const triax::OperandLayouts layouts(constant, constant, constant, grid, grid);
  triax::Solver<T> solve_x(s.backend, layouts, 0), solve_y(s.backend, layouts, 1),
      solve_z(s.backend, layouts, 2);

  // With broadcast coefficients a perfect solver reads d and writes x; in increment mode it
  // also reads u. a, b and c are three numbers and are not counted.
  const double cell_bytes = double(grid.size()) * sizeof(T);
  const double bytes[3] = {2 * cell_bytes, 2 * cell_bytes, 3 * cell_bytes};
  // The first step is reported apart from the rest where there are two or more: its solves
  // are the first launches of their kernels and the first passes over cold caches (before the
  // CUDA plans loaded their kernels when made, the first x solve took 6-9 ms on the H100).
  const int untimed = s.steps > 1 ? 1 : 0;
  double seconds[3] = {0, 0, 0}, first[3] = {0, 0, 0};
  const auto start = std::chrono::steady_clock::now();
  for (int step = 0; step < s.steps; ++step) {
    fields.explicit_rhs(T(mu));
    fields.mark(0);
    solve_x.solve_in_place(fields.a(), fields.b(), fields.c(), fields.d1());
    fields.mark(1);
    solve_y.solve(fields.a(), fields.b(), fields.c(), fields.d1(), fields.d2());
    fields.mark(2);
    solve_z.solve_increment(fields.a(), fields.b(), fields.c(), fields.d2(), fields.u());
    fields.mark(3);
    fields.add_elapsed(step < untimed ? first : seconds);  // on the GPU: waits for this step
  }
  r.total_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (int axis = 0; axis < 3; ++axis) {
    r.axis[axis].seconds = seconds[axis];
    r.axis[axis].steps = s.steps - untimed;
    r.axis[axis].bytes = bytes[axis] * r.axis[axis].steps;
    r.axis[axis].first_seconds = first[axis];
  }
}

}  // namespace

template <class T>
Result run(const Settings& s) {
  const std::int64_t n = s.n;
  const double h = 1.0 / double(n + 1);
  Result r;
  r.dt = s.dt > 0 ? s.dt : h;
  r.t_end = r.dt * s.steps;
  const double mu = r.dt / (h * h);
  const Coefficients<T> matrix{T(-mu / 2), T(1 + mu), T(-mu / 2)};

  std::vector<T> u0(std::size_t(n * n * n));
  for_each_sine_mode_point(n, [&](std::int64_t o, double v) { u0[o] = static_cast<T>(v); });

  std::vector<T> u;
  if (s.backend == triax::Backend::cuda) {
#ifdef TRIAX_HAS_CUDA
    CudaFields<T> fields(n, u0, matrix);
    advance<T>(fields, s, mu, r);
    u = fields.u_on_host();
#else
    throw triax::not_compiled("adi_heat: --backend cuda, but this build has no CUDA");
#endif
  } else {
    HostFields<T> fields(n, u0, matrix);
    advance<T>(fields, s, mu, r);
    u = fields.u_on_host();
  }

  const double decay = std::exp(-3 * pi * pi * r.t_end);
  double err = 0;
  std::vector<double> row_err(std::size_t(n * n), 0.0);
  for_each_sine_mode_point(n, [&](std::int64_t o, double v) {
    double& e = row_err[std::size_t(o / n)];  // one row per (j, k): no two threads share it
    const double d = std::abs(double(u[std::size_t(o)]) - decay * v);
    if (!(d <= e)) e = std::isfinite(d) ? d : HUGE_VAL;  // a NaN must not hide behind max
  });
  for (double e : row_err) err = std::max(err, e);
  r.max_error = err;
  return r;
}

template Result run<float>(const Settings&);
template Result run<double>(const Settings&);

}  // namespace adi
