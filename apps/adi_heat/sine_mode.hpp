#pragma once
// The problem's pieces that one rank and many ranks share: the time step, the initial sine mode
// over a block of the n^3 interior grid, and the error against its exact decay.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include "fields.hpp"
#include "heat_problem.hpp"

namespace adi {

inline constexpr double pi = std::numbers::pi;

// The part of the n^3 interior grid that one rank holds (all of it on one rank).
struct GridBlock {
  std::int64_t begin[3] = {0, 0, 0};
  std::int64_t extents[3] = {0, 0, 0};
  static GridBlock whole(std::int64_t n) { return {{0, 0, 0}, {n, n, n}}; }
};

// dt, t_end and the matrix (1 - dt/2 L) of every axis; mu = dt / h^2.
struct TimeStep {
  double mu = 0;
  Result result;  // dt and t_end filled in
  TimeStep(const Settings& s) {
    const double h = 1.0 / double(s.n + 1);
    result.dt = s.dt > 0 ? s.dt : h;
    result.t_end = result.dt * s.steps;
    mu = result.dt / (h * h);
  }
  template <class T>
  Coefficients<T> matrix() const {
    return {T(-mu / 2), T(1 + mu), T(-mu / 2)};
  }
};

// Calls f(i, j, k, sin(pi x) sin(pi y) sin(pi z)) for every point of the block, (i, j, k) local.
template <class F>
void for_each_sine_mode_point(std::int64_t n, const GridBlock& b, F&& f) {
  const double h = 1.0 / double(n + 1);
  const std::int64_t ex = b.extents[0], ey = b.extents[1], ez = b.extents[2];
#pragma omp parallel for collapse(2) schedule(static)
  for (std::int64_t k = 0; k < ez; ++k) {
    for (std::int64_t j = 0; j < ey; ++j) {
      const double yz = std::sin(pi * double(b.begin[1] + j + 1) * h) *
                        std::sin(pi * double(b.begin[2] + k + 1) * h);
      for (std::int64_t i = 0; i < ex; ++i) {
        f(i, j, k, std::sin(pi * double(b.begin[0] + i + 1) * h) * yz);
      }
    }
  }
}

// max |u - exp(-3 pi^2 t_end) sine mode| over the block; u_at(i, j, k) reads u. NaN -> HUGE_VAL.
template <class UAt>
double max_error(std::int64_t n, const GridBlock& b, double t_end, UAt&& u_at) {
  const double decay = std::exp(-3 * pi * pi * t_end);
  std::vector<double> row_err(std::size_t(b.extents[1] * b.extents[2]), 0.0);
  for_each_sine_mode_point(n, b, [&](std::int64_t i, std::int64_t j, std::int64_t k, double v) {
    double& e = row_err[std::size_t(k * b.extents[1] + j)];  // one row per (j, k): no two
                                                             // threads share it
    const double d = std::abs(double(u_at(i, j, k)) - decay * v);
    if (!(d <= e)) e = std::isfinite(d) ? d : HUGE_VAL;  // a NaN must not hide behind max
  });
  double err = 0;
  for (double e : row_err) err = std::max(err, e);
  return err;
}

}  // namespace adi
