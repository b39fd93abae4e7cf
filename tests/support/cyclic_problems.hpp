#pragma once
// Test systems for the cyclic family beyond the diagonally dominant ones of problems.hpp: paper
// 001's second matrix set, "random matrices with close values in all rows" (s.6), on which
// recursive doubling does not overflow, with a condition estimate for the tolerance; and the
// strongly dominant rows on which it must overflow.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "support/problems.hpp"

namespace triax::test {

/// One system's rows in long double.
struct WideSystem {
  std::vector<long double> a, b, c;
};

/// Solves A y = r (transposed: A^T y = r) by Thomas in long double, in place in r.
inline void wide_thomas(const WideSystem& s, std::vector<long double>& r, bool transposed) {
  const std::size_t n = r.size();
  std::vector<long double> cp(n);
  long double prev_c = 0, prev_d = 0;
  for (std::size_t i = 0; i < n; ++i) {
    // Row i of A^T: sub-diagonal c[i-1], super-diagonal a[i+1].
    const long double lower = i > 0 ? (transposed ? s.c[i - 1] : s.a[i]) : 0;
    const long double upper = i + 1 < n ? (transposed ? s.a[i + 1] : s.c[i]) : 0;
    const long double m = s.b[i] - lower * prev_c;
    cp[i] = upper / m;
    r[i] = (r[i] - lower * prev_d) / m;
    prev_c = cp[i];
    prev_d = r[i];
  }
  for (std::size_t i = n - 1; i-- > 0;) r[i] -= cp[i] * r[i + 1];
}

/// The 1-norm condition number of a tridiagonal matrix, ||A||_1 times Hager's estimate of
/// ||A^-1||_1 (a lower bound, in practice within a small factor).
inline double condition_estimate(const WideSystem& s) {
  const std::size_t n = s.b.size();
  long double norm = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const long double col = std::fabs(s.b[j]) + (j > 0 ? std::fabs(s.c[j - 1]) : 0) +
                            (j + 1 < n ? std::fabs(s.a[j + 1]) : 0);
    norm = std::max(norm, col);
  }
  std::vector<long double> x(n, 1.0L / n), y, z;
  long double inverse_norm = 0;
  for (int iteration = 0; iteration < 5; ++iteration) {
    y = x;
    wide_thomas(s, y, false);
    inverse_norm = 0;
    for (long double v : y) inverse_norm += std::fabs(v);
    z.resize(n);
    for (std::size_t i = 0; i < n; ++i) z[i] = y[i] < 0 ? -1 : 1;
    wide_thomas(s, z, true);
    std::size_t j = 0;
    long double ztx = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (std::fabs(z[i]) > std::fabs(z[j])) j = i;
      ztx += z[i] * x[i];
    }
    if (std::fabs(z[j]) <= ztx) break;
    std::fill(x.begin(), x.end(), 0.0L);
    x[j] = 1;
  }
  return static_cast<double>(norm * inverse_norm);
}

/// Number of systems and their length when solving along `axis`.
inline std::int64_t rows_along(const Layout& l, int axis) { return l.extent(axis); }
inline std::int64_t systems_of(const Layout& l, int axis) {
  return l.extent(axis) == 0 ? 0 : l.size() / l.extent(axis);
}

/// Paper 001's second set: a, b, c uniform in [1, 1.1] (close values: RD's steps have entries
/// near 1 and their products grow slowly), d uniform in [-1, 1]. Not diagonally dominant, so the
/// tolerance takes the largest condition estimate of the batch's systems. Every operand needs
/// its own elements (no broadcast layouts).
template <class T>
void fill_close_values(Batch<T>& batch, int axis, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> close(1.0, 1.1), u(-1, 1);
  for_each_offset(batch.layouts.a, [&](std::int64_t o) { batch.a[o] = static_cast<T>(close(g)); });
  for_each_offset(batch.layouts.b, [&](std::int64_t o) { batch.b[o] = static_cast<T>(close(g)); });
  for_each_offset(batch.layouts.c, [&](std::int64_t o) { batch.c[o] = static_cast<T>(close(g)); });
  for_each_offset(batch.layouts.d, [&](std::int64_t o) { batch.d[o] = static_cast<T>(u(g)); });
  const std::int64_t n = rows_along(batch.layouts.b, axis);
  double condition = 1;
  for (std::int64_t s = 0; s < systems_of(batch.layouts.b, axis); ++s) {
    WideSystem w;
    for (std::int64_t i = 0; i < n; ++i) {
      w.a.push_back(i > 0 ? batch.a[system_row_offset(batch.layouts.a, axis, s, i)] : 0);
      w.b.push_back(batch.b[system_row_offset(batch.layouts.b, axis, s, i)]);
      w.c.push_back(i + 1 < n ? batch.c[system_row_offset(batch.layouts.c, axis, s, i)] : 0);
    }
    condition = std::max(condition, condition_estimate(w));
  }
  batch.condition = condition;
}

/// Strongly dominant rows (b = 1000, a and c in [0.5, 1]): RD's step products grow like 1000^n
/// and overflow in float and double alike once n exceeds about 110 (double) or 15 (float).
template <class T>
void make_rd_overflow(Batch<T>& batch, int axis, std::int64_t system, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> coupling(0.5, 1.0);
  const std::int64_t n = rows_along(batch.layouts.b, axis);
  for (std::int64_t i = 0; i < n; ++i) {
    batch.a[system_row_offset(batch.layouts.a, axis, system, i)] = static_cast<T>(coupling(g));
    batch.b[system_row_offset(batch.layouts.b, axis, system, i)] = T(1000);
    batch.c[system_row_offset(batch.layouts.c, axis, system, i)] = static_cast<T>(coupling(g));
  }
}

/// The five cyclic algorithms of a backend (cpu or cuda).
struct CyclicAlgorithms {
  Algorithm cr, pcr, rd, cr_pcr, cr_rd;
};
inline CyclicAlgorithms cyclic_algorithms(Backend backend) {
  if (backend == Backend::cpu) {
    return {Algorithm::cpu_cr, Algorithm::cpu_pcr, Algorithm::cpu_rd, Algorithm::cpu_cr_pcr,
            Algorithm::cpu_cr_rd};
  }
  return {Algorithm::cuda_cr, Algorithm::cuda_pcr, Algorithm::cuda_rd, Algorithm::cuda_cr_pcr,
          Algorithm::cuda_cr_rd};
}

/// One algorithm of the cyclic family and the systems it is tested on: diagonally dominant for
/// CR, PCR and CR+PCR; close values for RD and CR+RD, on which dominant systems overflow.
template <class T>
struct CyclicCase {
  Algorithm algorithm;
  bool close_values;
  std::function<void(Batch<T>&, int, std::uint64_t)> fill() const {
    if (!close_values) return {};
    return fill_close_values<T>;
  }
  /// Fills a batch with this case's systems (for the checks that do not go through a Runner).
  void fill_batch(Batch<T>& batch, int axis, std::uint64_t seed) const {
    if (close_values) {
      fill_close_values(batch, axis, seed);
    } else {
      batch.fill_random(seed);
    }
  }
};

/// The five algorithms of a backend with their systems.
template <class T>
std::vector<CyclicCase<T>> cyclic_cases(Backend backend) {
  const CyclicAlgorithms a = cyclic_algorithms(backend);
  return {{a.cr, false}, {a.pcr, false}, {a.cr_pcr, false}, {a.rd, true}, {a.cr_rd, true}};
}

/// The hybrids of a backend with a switch size forced through TRIAX_CYCLIC_SWITCH_ROWS, on
/// systems each variant solves accurately: CR+PCR on dominant systems at any size; CR+RD on
/// dominant systems when RD gets one row (CR's levels shrink the couplings of dominant rows
/// doubly exponentially: RD divides by them and breaks down already on two reduced rows of 517),
/// on close values without CR steps (CR is not accurate on them: up to 7 times the tolerance in
/// double).
struct SwitchOverride {
  const char* rows;
  Algorithm algorithm;
  bool close_values;
};
inline std::vector<SwitchOverride> switch_overrides(Backend backend) {
  const CyclicAlgorithms a = cyclic_algorithms(backend);
  return {{"1", a.cr_pcr, false},  {"2", a.cr_pcr, false},    {"17", a.cr_pcr, false},
          {"32", a.cr_pcr, false}, {"33", a.cr_pcr, false},   {"1000", a.cr_pcr, false},
          {"1", a.cr_rd, false},   {"1000", a.cr_rd, true}};
}

}  // namespace triax::test
