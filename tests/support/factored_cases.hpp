#pragma once
// Test cases for triax::FactoredSolver shared by the CPU and GPU suites: the matrices (Toeplitz
// converging fast and slowly, boundary rows that differ, matrices whose factors never converge),
// the grids (2-D..4-D, every axis, ghost layers), a componentwise backward-error check in long
// double, and a long-double dense solve with partial pivoting as an independent oracle.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/problems.hpp"
#include "support/quick_mode.hpp"
#include "triax/factored.hpp"

namespace triax::test {

/// One matrix: n rows of a, b, c (a[0] and c[n-1] hold NaN: they must never be read).
template <class T>
struct FactoredMatrixCase {
  std::string name;
  std::vector<T> a, b, c;
  double condition = 1;  // estimate for the forward-error comparison
  bool converges = true;  // whether the factors are expected to reach a limit (compression)
};

template <class T>
FactoredMatrixCase<T> toeplitz(const std::string& name, std::int64_t n, double a, double b,
                               double c, double condition, bool converges = true) {
  FactoredMatrixCase<T> m{name, std::vector<T>(n, T(a)), std::vector<T>(n, T(b)),
                          std::vector<T>(n, T(c)), condition, converges};
  if (n > 0) {
    m.a[0] = std::numeric_limits<T>::quiet_NaN();
    m.c[n - 1] = std::numeric_limits<T>::quiet_NaN();
  }
  return m;
}

/// The fourth-order Pade first derivative with its third-order closures: rows 0 and n-1 differ.
template <class T>
FactoredMatrixCase<T> pade(std::int64_t n) {
  auto m = toeplitz<T>("pade", n, 0.25, 1.0, 0.25, 6.0);
  if (n >= 2) {
    m.c[0] = T(2);
    m.a[n - 1] = T(2);
  }
  return m;
}

/// Every row different (random, diagonally dominant): nothing to compress.
template <class T>
FactoredMatrixCase<T> varying(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1, 1), margin(0.5, 1.5);
  auto m = toeplitz<T>("varying", n, 0, 0, 0, (4 + 1.5) / 0.5, false);
  for (std::int64_t i = 0; i < n; ++i) {
    const double ai = u(g), ci = u(g);
    if (i > 0) m.a[i] = T(ai);
    if (i + 1 < n) m.c[i] = T(ci);
    m.b[i] = T((u(g) < 0 ? -1 : 1) * (std::abs(ai) + std::abs(ci) + margin(g)));
  }
  return m;
}

/// m with every coefficient multiplied by 2^k (exact): a matrix near the ends of T's range, which
/// the plans solve as the unscaled one (their power-of-two scale).
template <class T>
FactoredMatrixCase<T> scaled_matrix(const FactoredMatrixCase<T>& m, int k) {
  auto ms = m;
  const std::int64_t n = static_cast<std::int64_t>(m.b.size());
  for (std::int64_t i = 0; i < n; ++i) {
    if (i > 0) ms.a[i] = std::ldexp(m.a[i], k);
    ms.b[i] = std::ldexp(m.b[i], k);
    if (i + 1 < n) ms.c[i] = std::ldexp(m.c[i], k);
  }
  return ms;
}

/// The exponent of the scaled-matrix tests: pivots near the bottom of T's normal range.
template <class T>
constexpr int low_exponent() {
  return std::is_same_v<T, float> ? -135 : -1060;
}

/// Right-hand sides of the scaled-matrix tests: d0 (a few distinct values) and d0 x 2^k.
template <class T>
void scaled_rhs_pair(std::size_t size, int k, std::vector<T>& d0, std::vector<T>& ds) {
  d0.resize(size);
  ds.resize(size);
  for (std::size_t o = 0; o < size; ++o) {
    d0[o] = T((static_cast<int>(o * 7) % 31 - 15) / 16.0);
    ds[o] = std::ldexp(d0[o], k);
  }
}

/// The matrices every suite runs for n rows (quick: fast, Pade and varying only).
template <class T>
std::vector<FactoredMatrixCase<T>> factored_matrices(std::int64_t n, bool quick = false) {
  // Slow: |b| - |a| - |c| small, so c' approaches its limit by a factor close to 1 per row.
  const double slow_margin = std::is_same_v<T, float> ? 1e-2 : 1e-4;
  std::vector<FactoredMatrixCase<T>> all;
  all.push_back(toeplitz<T>("fast", n, 0.25, 1.0, 0.25, 3.0));
  all.push_back(toeplitz<T>("fast_nonsymmetric", n, -0.3, 2.0, 0.9, 4.0));
  all.push_back(toeplitz<T>("slow", n, 1.0, -(2.0 + slow_margin), 1.0, 4.0 / slow_margin));
  // The Pade matrix with its closures is singular for n = 3 (the pivot of row 2 is 0): that one
  // is a breakdown case of the checked-mode tests instead.
  if (n != 3) all.push_back(pade<T>(n));
  all.push_back(varying<T>(n, 1234 + n));
  if (quick) {
    std::vector<FactoredMatrixCase<T>> some;
    for (auto& m : all) {
      if (m.name == "fast" || m.name == "pade" || m.name == "varying") some.push_back(m);
    }
    return some;
  }
  return all;
}

/// Row i of system s along `axis` (test_support's numbering, as info is ordered).
inline std::int64_t row_of(const Layout& l, int axis, std::int64_t s, std::int64_t i) {
  return system_row_offset(l, axis, s, i);
}

/// The largest componentwise backward error of x for A x = d over every system, in units of
/// epsilon, judged against |L||U| (Thomas without pivoting's own bound) computed in long double.
template <class T>
double backward_error_eps(const FactoredMatrixCase<T>& m, const Layout& ld, const std::vector<T>& d,
                          const Layout& lx, const std::vector<T>& x, int axis) {
  const std::int64_t n = static_cast<std::int64_t>(m.b.size());
  const std::int64_t count = n == 0 ? 0 : ld.size() / n;
  std::vector<long double> piv(n);
  long double cp = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    piv[i] = m.b[i] - (i > 0 ? m.a[i] * cp : 0.0L);
    cp = i + 1 < n ? m.c[i] / piv[i] : 0.0L;
  }
  double worst = 0;
  for (std::int64_t s = 0; s < count; ++s) {
    for (std::int64_t i = 0; i < n; ++i) {
      const long double xi = x[row_of(lx, axis, s, i)];
      long double r = static_cast<long double>(m.b[i]) * xi - d[row_of(ld, axis, s, i)];
      long double scale = std::abs(piv[i] * xi) + std::abs(static_cast<long double>(d[row_of(ld, axis, s, i)]));
      if (i > 0) {
        const long double xm = x[row_of(lx, axis, s, i - 1)];
        r += m.a[i] * xm;
        scale += std::abs(m.a[i] * xm) + std::abs(m.a[i] * m.c[i - 1] / piv[i - 1] * xi);
      }
      if (i + 1 < n) {
        const long double xp = x[row_of(lx, axis, s, i + 1)];
        r += m.c[i] * xp;
        scale += std::abs(m.c[i] * xp);
      }
      const double e = scale == 0 ? (r == 0 ? 0.0 : INFINITY) : double(std::abs(r) / scale);
      if (!(e <= worst)) worst = std::isnan(e) ? INFINITY : e;
    }
  }
  return worst / std::numeric_limits<T>::epsilon();
}

/// x of one system by Gaussian elimination with partial pivoting on the dense matrix, long double.
template <class T>
std::vector<long double> dense_solve(const FactoredMatrixCase<T>& m, const std::vector<long double>& d) {
  const std::size_t n = m.b.size();
  std::vector<long double> A(n * n, 0.0L), rhs = d;
  for (std::size_t i = 0; i < n; ++i) {
    A[i * n + i] = m.b[i];
    if (i > 0) A[i * n + i - 1] = m.a[i];
    if (i + 1 < n) A[i * n + i + 1] = m.c[i];
  }
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t p = k;
    for (std::size_t i = k + 1; i < n; ++i) {
      if (std::abs(A[i * n + k]) > std::abs(A[p * n + k])) p = i;
    }
    if (p != k) {
      for (std::size_t j = 0; j < n; ++j) std::swap(A[k * n + j], A[p * n + j]);
      std::swap(rhs[k], rhs[p]);
    }
    for (std::size_t i = k + 1; i < n; ++i) {
      const long double f = A[i * n + k] / A[k * n + k];
      if (f == 0) continue;
      for (std::size_t j = k; j < n; ++j) A[i * n + j] -= f * A[k * n + j];
      rhs[i] -= f * rhs[k];
    }
  }
  std::vector<long double> x(n);
  for (std::size_t i = n; i-- > 0;) {
    long double v = rhs[i];
    for (std::size_t j = i + 1; j < n; ++j) v -= A[i * n + j] * x[j];
    x[i] = v / A[i * n + i];
  }
  return x;
}

/// A grid for the solve tests: a shape, the solve axis and layouts of d and x (ghost layers).
struct FactoredGrid {
  std::string name;
  std::vector<std::int64_t> shape;
  int axis;
  FactoredLayouts layouts;
};

/// Grids of rank 2..4 with n rows along each axis in turn: d padded with ghost layers, x packed
/// (or padded differently), so that every stride and offset path is exercised.
inline std::vector<FactoredGrid> factored_grids(std::int64_t n, bool quick) {
  std::vector<FactoredGrid> grids;
  const std::vector<std::vector<std::int64_t>> others = quick
      ? std::vector<std::vector<std::int64_t>>{{5}, {3, 4}}
      : std::vector<std::vector<std::int64_t>>{{7}, {3, 5}, {2, 3, 2}};
  for (const auto& rest : others) {
    const int rank = static_cast<int>(rest.size()) + 1;
    for (int axis = 0; axis < rank; ++axis) {
      std::vector<std::int64_t> shape;
      for (int k = 0, r = 0; k < rank; ++k) shape.push_back(k == axis ? n : rest[r++]);
      std::vector<std::int64_t> alloc_d(shape), begin_d(rank), alloc_x(shape), begin_x(rank);
      for (int k = 0; k < rank; ++k) {
        alloc_d[k] += 2 + k % 2;  // ghost layers of 1-2 points
        begin_d[k] = 1;
        alloc_x[k] += k == axis ? 1 : 0;
        begin_x[k] = k == axis ? 1 : 0;
      }
      FactoredLayouts l(Layout::padded(shape, alloc_d, begin_d), Layout::padded(shape, alloc_x, begin_x));
      grids.push_back({"rank" + std::to_string(rank) + "_axis" + std::to_string(axis), shape, axis, l});
    }
  }
  return grids;
}


/// Solves one (matrix, grid) in the given mode on some backend's memory: fills x (for separate/
/// increment) or d (in place) as the backend wrote it.
template <class T>
using FactoredModeRun = std::function<void(Mode, std::vector<T>& d, std::vector<T>& x)>;

/// Makes the run of one (matrix, grid), which the checks then call once per mode. The CPU and GPU
/// suites differ only in this. A GPU runner builds its plan here, once for the three modes: plans
/// (device tables, cudaMalloc / cudaFree that synchronise) were most of the GPU suite's time when
/// every mode made its own. The run may refer to m and g: it is called while both live.
template <class T>
using FactoredRunner =
    std::function<FactoredModeRun<T>(const FactoredMatrixCase<T>&, const FactoredGrid&)>;

/// A FactoredRunner whose every call makes its own plan: solve(m, g, mode, d, x). The host suites
/// use it (a host plan is cheap), as do runners that must rebuild per call.
template <class T, class Solve>
FactoredRunner<T> per_call_runner(Solve solve) {
  return [solve](const FactoredMatrixCase<T>& m, const FactoredGrid& g) -> FactoredModeRun<T> {
    return [solve, &m, &g](Mode mode, std::vector<T>& d, std::vector<T>& x) {
      solve(m, g, mode, d, x);
    };
  };
}

template <class T>
void run_factored_host(Backend backend, const FactoredMatrixCase<T>& m, const FactoredGrid& g,
                       Mode mode, std::vector<T>& d, std::vector<T>& x, const Options& o = {},
                       int* info = nullptr,
                       FactoredAlgorithm algorithm = FactoredAlgorithm::automatic) {
  FactoredSolver<T> s(backend, m.a.data(), m.b.data(), m.c.data(),
                      static_cast<std::int64_t>(m.b.size()), g.layouts, g.axis, o, algorithm);
  solve_in_mode(s, mode, std::tuple(), d.data(), x.data(), info);
}

/// The comparison every backend runs: for each matrix, grid and mode, the backend's solve against
/// the reference backend's (forward error within 32 eps x condition x max|x|), a componentwise
/// backward error within 64 eps, the padding around x and d untouched, d untouched unless in place.
template <class T>
void check_factored_on_grids(std::int64_t n, const std::vector<FactoredGrid>& grids,
                             const FactoredRunner<T>& run, bool quick) {
  // Grids outside, matrices inside: a device runner sizes its buffers once per grid.
  const auto matrices = factored_matrices<T>(n, quick && quick_mode());
  for (const auto& g : grids) {
    for (const auto& m : matrices) {
      // One plan per (matrix, grid) on each side, serving the three modes.
      const FactoredModeRun<T> run_mode = run(m, g);
      FactoredSolver<T> reference(Backend::reference, m.a.data(), m.b.data(), m.c.data(),
                                  static_cast<std::int64_t>(m.b.size()), g.layouts, g.axis);
      for (Mode mode : {Mode::in_place, Mode::separate, Mode::increment}) {
        SCOPED_TRACE(m.name + " " + g.name + " n=" + std::to_string(n) + " " + to_string(mode));
        const Layout& ld = g.layouts.d;
        const Layout& lx = mode == Mode::in_place ? g.layouts.d : g.layouts.x;
        std::vector<T> d(buffer_size(ld), T(-7.5)), x(buffer_size(g.layouts.x), T(-7.5));
        std::mt19937_64 gen(test_seed(n));
        std::uniform_real_distribution<double> u(-1, 1);
        for_each_offset(ld, [&](std::int64_t o) { d[o] = T(u(gen)); });
        if (mode == Mode::separate) {
          for_each_offset(g.layouts.x, [&](std::int64_t o) { x[o] = std::numeric_limits<T>::quiet_NaN(); });
        } else if (mode == Mode::increment) {
          for_each_offset(g.layouts.x, [&](std::int64_t o) { x[o] = T(u(gen)); });
        }
        const std::vector<T> d0 = d, x0 = x;
        std::vector<T> d_ref = d, x_ref = x;
        solve_in_mode(reference, mode, std::tuple(), d_ref.data(), x_ref.data(), nullptr);
        run_mode(mode, d, x);
        if (::testing::Test::HasFatalFailure()) return;
        const std::vector<T>& got = mode == Mode::in_place ? d : x;
        const std::vector<T>& want = mode == Mode::in_place ? d_ref : x_ref;
        ASSERT_TRUE(outputs_match(lx, got, want, m.condition));
        // Padding (and d outside in-place solves) untouched.
        const auto in_x = covered(lx, got.size());
        for (std::size_t o = 0; o < got.size(); ++o) {
          if (!in_x[o]) ASSERT_EQ(got[o], T(-7.5)) << "padding at " << o << " written";
        }
        if (mode != Mode::in_place) {
          for (std::size_t o = 0; o < d.size(); ++o) ASSERT_EQ(d[o], d0[o]) << "d changed at " << o;
        }
        // Backward error of the solution part (u - u0 for increment).
        std::vector<T> sol = got;
        if (mode == Mode::increment) {
          for_each_offset(lx, [&](std::int64_t o) { sol[o] = got[o] - x0[o]; });
        } else {
          const double be = backward_error_eps(m, ld, d0, lx, sol, g.axis);
          ASSERT_LE(be, 64.0) << "backward error in eps";
        }
      }
    }
  }
}

/// check_factored_on_grids over factored_grids(n, quick).
template <class T>
void check_factored_against_reference(std::int64_t n, const FactoredRunner<T>& run, bool quick) {
  check_factored_on_grids(n, factored_grids(n, quick), run, quick);
}

}  // namespace triax::test
