#pragma once
// triax::FactoredSolver::solve_stencil against its definition, shared by the CPU and GPU suites:
// B f formed here from stencil.hpp's rule as a sparse matrix in long double (an implementation
// of its own, not the library's stencil_rows.hpp), rounded to T, solved by the reference
// backend; the backend under test solves A x = B f from f. f's padding holds NaN (a read
// beyond a system's rows shows in x), x starts as NaN with its padding -7.5 (must stay).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "support/factored_cases.hpp"
#include "triax/stencil.hpp"

namespace triax::test {

/// Every one of the 25 weights drawn from [-1, 1]: each tap of each row matters.
template <class T>
Stencil<T> random_stencil(std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  Stencil<T> s;
  for (T& w : s.interior) w = T(u(g));
  for (int r = 0; r < 2; ++r) {
    for (int t = 0; t < 5; ++t) {
      s.first[r][t] = T(u(g));
      s.last[r][t] = T(u(g));
    }
  }
  return s;
}

/// The example of include/triax/stencil.hpp, verbatim (tests/core/doc_examples_test.cpp keeps
/// the two the same): the fourth-order Pade first derivative's right-hand side, spacing h.
inline triax::Stencil<double> stencil_hpp_example(double h) {
  // The fourth-order Pade first derivative's right-hand side, spacing h:
  //   interior (3/4h)(f[i+1] - f[i-1]); row 0 (-5 f0 + 4 f1 + f2)/(2h) and its mirror at n-1;
  //   rows 1 and n-2 the interior formula.
  triax::Stencil<double> B;
  const double q = 3 / (4 * h), e = 1 / (2 * h);
  B.interior[1] = -q;      B.interior[3] = q;       // offsets -1 and +1
  B.first[0][0] = -5 * e;  B.first[0][1] = 4 * e;  B.first[0][2] = e;
  B.first[1][0] = -q;      B.first[1][2] = q;
  B.last[0][0] = 5 * e;    B.last[0][1] = -4 * e;  B.last[0][2] = -e;
  B.last[1][0] = q;        B.last[1][2] = -q;
  return B;
}

/// A stencil's weights rounded to T.
template <class T>
Stencil<T> stencil_as(const Stencil<double>& s) {
  Stencil<T> out;
  for (int k = 0; k < 5; ++k) {
    out.interior[k] = T(s.interior[k]);
    for (int r = 0; r < 2; ++r) {
      out.first[r][k] = T(s.first[r][k]);
      out.last[r][k] = T(s.last[r][k]);
    }
  }
  return out;
}

/// Row i of B for n rows as (column, weight) pairs, read off stencil.hpp's rule.
template <class T>
std::vector<std::vector<std::pair<std::int64_t, long double>>> stencil_matrix(const Stencil<T>& s,
                                                                             std::int64_t n) {
  std::vector<std::vector<std::pair<std::int64_t, long double>>> rows(n);
  for (std::int64_t i = 0; i < n; ++i) {
    if (i >= 2 && i <= n - 3) {
      for (int k = -2; k <= 2; ++k) rows[i].push_back({i + k, s.interior[k + 2]});
    } else if (i <= n - 1 - i) {  // nearer the start (or a tie): the first closure
      for (std::int64_t t = 0; t < 5 && t < n; ++t) rows[i].push_back({t, s.first[i][t]});
    } else {
      for (std::int64_t t = 0; t < 5 && t < n; ++t) {
        rows[i].push_back({n - 1 - t, s.last[n - 1 - i][t]});
      }
    }
  }
  return rows;
}

/// The largest sum of |weights| of a row: B's infinity norm.
template <class T>
double stencil_row_sum(const Stencil<T>& s) {
  const auto sum = [](const T* w) {
    double v = 0;
    for (int t = 0; t < 5; ++t) v += std::abs(double(w[t]));
    return v;
  };
  return std::max({sum(s.interior), sum(s.first[0]), sum(s.first[1]), sum(s.last[0]), sum(s.last[1])});
}

/// B f along `axis` (f laid out by lf) into a buffer laid out by ld, in long double, rounded.
template <class T>
std::vector<T> apply_stencil_oracle(const Stencil<T>& s, const Layout& lf, const std::vector<T>& f,
                                    const Layout& ld, int axis) {
  const std::int64_t n = lf.extent(axis);
  const std::int64_t count = n == 0 ? 0 : lf.size() / n;
  const auto rows = stencil_matrix(s, n);
  std::vector<T> d(buffer_size(ld), T(0));
  for (std::int64_t sys = 0; sys < count; ++sys) {
    for (std::int64_t i = 0; i < n; ++i) {
      long double sum = 0;
      for (const auto& [col, w] : rows[i]) sum += w * f[system_row_offset(lf, axis, sys, col)];
      d[system_row_offset(ld, axis, sys, i)] = T(sum);
    }
  }
  return d;
}

/// Runs solve_stencil of a plan for matrix m on grid g on some backend: x as it came back.
template <class T>
using StencilRunner = std::function<void(const FactoredMatrixCase<T>&, const FactoredGrid&,
                                         const Stencil<T>&, const std::vector<T>& f,
                                         std::vector<T>& x)>;

/// For each matrix (fast Toeplitz, Pade with closures) and grid of factored_grids(n): the runner's
/// x against the reference backend's solve of the oracle's B f, within 64 eps x condition of the
/// scale of x and of B f; padding of x untouched.
template <class T>
void check_stencil_against_reference(std::int64_t n, const Stencil<T>& B,
                                     const StencilRunner<T>& run, bool quick) {
  std::vector<FactoredMatrixCase<T>> matrices{toeplitz<T>("fast", n, 0.25, 1.0, 0.25, 3.0)};
  if (n != 3) matrices.push_back(pade<T>(n));  // singular at n = 3 (factored_cases.hpp)
  for (const auto& m : matrices) {
    for (const auto& g : factored_grids(n, quick)) {
      SCOPED_TRACE(m.name + " " + g.name + " n=" + std::to_string(n));
      const Layout& lf = g.layouts.d;
      const Layout& lx = g.layouts.x;
      std::vector<T> f(buffer_size(lf), std::numeric_limits<T>::quiet_NaN());
      std::vector<T> x(buffer_size(lx), T(-7.5));
      std::mt19937_64 gen(test_seed(n));
      std::uniform_real_distribution<double> u(-1, 1);
      for_each_offset(lf, [&](std::int64_t o) { f[o] = T(u(gen)); });
      for_each_offset(lx, [&](std::int64_t o) { x[o] = std::numeric_limits<T>::quiet_NaN(); });
      std::vector<T> d_ref = apply_stencil_oracle(B, lf, f, lf, g.axis), x_ref = x;
      run_factored_host(Backend::reference, m, g, Mode::separate, d_ref, x_ref);
      const std::vector<T> f0 = f;
      run(m, g, B, f, x);
      // B f's rounding (5 products: eps x sum |w f|) moves x by up to condition times that
      // too: outputs_match's bound (32 eps x condition x max|x|) widened by that term.
      double x_scale = 1, f_scale = 0;
      for_each_offset(lx, [&](std::int64_t o) { x_scale = std::max(x_scale, std::abs(double(x_ref[o]))); });
      for_each_offset(lf, [&](std::int64_t o) { f_scale = std::max(f_scale, std::abs(double(f[o]))); });
      const double rhs_terms = f_scale * stencil_row_sum(B);
      ASSERT_TRUE(outputs_match(lx, x, x_ref, m.condition * (1 + rhs_terms / x_scale)));
      const auto in_x = covered(lx, x.size());
      for (std::size_t o = 0; o < x.size(); ++o) {
        if (!in_x[o]) ASSERT_EQ(x[o], T(-7.5)) << "padding of x at " << o << " written";
      }
      for (std::size_t o = 0; o < f.size(); ++o) {
        ASSERT_TRUE(f[o] == f0[o] || (std::isnan(f[o]) && std::isnan(f0[o]))) << "f changed at " << o;
      }
    }
  }
}

/// The sizes every suite runs: the brief's boundary sizes (1 and the closures' overlaps, chunk
/// multiples and the table's longest).
inline std::vector<std::int64_t> stencil_test_sizes(bool quick) {
  if (quick) return {1, 2, 3, 4, 5, 7, 64, 129};
  return {1, 2, 3, 4, 5, 7, 64, 129, 512, 1024};
}

}  // namespace triax::test
