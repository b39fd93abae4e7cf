#pragma once
// The cyclic family on one system held in contiguous scratch, written for clarity: the CPU
// backend's references for the algorithms of paper 001 and their accuracy. Every algorithm is
// the hybrid "CR forward reduction down to at most `switch_rows` rows, an inner solver (PCR or
// RD) on that reduced system, CR back substitution": CR is the hybrid with switch_rows = 1 (the
// inner solve of one row is x = d / b), PCR and RD are the hybrids with switch_rows >= n (no CR
// step). Odd row counts need no padding: a row whose neighbour lies past an end is combined with
// the stand-in x = 0 (outside_equation).
#include <algorithm>
#include <cstdint>
#include <utility>

#include "core/cyclic_equations.hpp"
#include "core/cyclic_variants.hpp"

namespace triax::detail::cpu::cyclic {

using detail::cyclic::AffineStep;
using detail::cyclic::Equation;

/// Checked mode's record of the first breakdown (see breakdown_key): steps are counted across
/// the whole solve, rows are rows of the original system.
struct Breakdown {
  std::int64_t n;
  std::int64_t key = detail::cyclic::no_breakdown;
  int step = 0;
  void note(std::int64_t row) { key = std::min(key, detail::cyclic::breakdown_key(step, row, n)); }
  template <class T>
  void note_if_unusable(T pivot, std::int64_t row) {
    if (!detail::cyclic::usable_pivot(pivot)) note(row);
  }
  int info() const {
    return key == detail::cyclic::no_breakdown ? 0 : detail::cyclic::breakdown_info(key, n);
  }
};

/// Per-system scratch: the rows (n), a second row buffer (n + 1: PCR's double buffer of a
/// reduced system of ceil(n / 2) rows sits after that system), RD's scan buffers (2n) and x (n).
template <class T>
struct Scratch {
  Equation<T>* rows;
  Equation<T>* spare;
  AffineStep<T>* steps;
  T* x;
  static std::size_t bytes(std::int64_t n) {
    const auto rows = static_cast<std::size_t>(n);
    return (2 * rows + 1) * sizeof(Equation<T>) + 2 * rows * sizeof(AffineStep<T>) +
           rows * sizeof(T);
  }
};

/// PCR on m rows (paper 001, s.2.2): every step eliminates each row's neighbours at distance s,
/// doubling s, until no row has a neighbour; then x = d / b. x[r] goes to x[r * x_stride];
/// breakdowns are reported at original row r * row_stride.
template <class T>
void pcr(Equation<T>* rows, Equation<T>* buffer, std::int64_t m, T* x, std::int64_t x_stride,
         std::int64_t row_stride, Breakdown& breakdown) {
  const Equation<T> outside = detail::cyclic::outside_equation<T>();
  for (std::int64_t s = 1; s < m; s *= 2, ++breakdown.step) {
    for (std::int64_t r = 0; r < m; ++r) breakdown.note_if_unusable(rows[r].b, r * row_stride);
    for (std::int64_t r = 0; r < m; ++r) {
      buffer[r] = detail::cyclic::eliminate_neighbours(r >= s ? rows[r - s] : outside, rows[r],
                                                       r + s < m ? rows[r + s] : outside);
    }
    std::swap(rows, buffer);
  }
  for (std::int64_t r = 0; r < m; ++r) {
    breakdown.note_if_unusable(rows[r].b, r * row_stride);
    x[r * x_stride] = rows[r].d / rows[r].b;
  }
  ++breakdown.step;
}

/// RD on m rows (paper 001, s.2.3): the steps of every row, their prefix products by a
/// Hillis-Steele scan (log2 m doubling steps), x[0] from the full product, then every x[r + 1]
/// from x[0] and the product of steps 0..r. The breakdown is the first row whose product is not
/// finite (an overflow, or a zero c), else the first whose residual exceeds residual_limit.
template <class T>
void rd(const Equation<T>* rows, AffineStep<T>* steps, std::int64_t m, T* x, std::int64_t x_stride,
        std::int64_t row_stride, Breakdown& breakdown) {
  AffineStep<T>* prefix = steps;
  AffineStep<T>* buffer = steps + m;
  for (std::int64_t r = 0; r < m; ++r) prefix[r] = AffineStep<T>::of(rows[r], r + 1 == m);
  for (std::int64_t s = 1; s < m; s *= 2) {
    for (std::int64_t r = 0; r < m; ++r) {
      buffer[r] = r >= s ? AffineStep<T>::then(prefix[r - s], prefix[r]) : prefix[r];
    }
    std::swap(prefix, buffer);
  }
  for (std::int64_t r = 0; r < m; ++r) {
    if (!prefix[r].all_finite()) {
      breakdown.note(r * row_stride);
      break;
    }
  }
  const T x0 = detail::cyclic::first_unknown(prefix[m - 1]);
  if (!detail::cyclic::finite(x0)) breakdown.note((m - 1) * row_stride);
  x[0] = x0;
  for (std::int64_t r = 0; r + 1 < m; ++r) {
    x[(r + 1) * x_stride] = detail::cyclic::unknown_after(prefix[r], x0);
  }
  // RD's backward error (residual_limit): the first row the computed x does not satisfy.
  T row_norm = 0, largest_x = 0, largest_d = 0;
  for (std::int64_t r = 0; r < m; ++r) {
    row_norm = std::max(row_norm, detail::cyclic::row_norm(rows[r]));
    largest_x = std::max(largest_x, detail::cyclic::magnitude(x[r * x_stride]));
    largest_d = std::max(largest_d, detail::cyclic::magnitude(rows[r].d));
  }
  const T limit = detail::cyclic::residual_limit(m, row_norm, largest_x, largest_d);
  for (std::int64_t r = 0; r < m; ++r) {
    const T below = r > 0 ? x[(r - 1) * x_stride] : T(0);
    const T above = r + 1 < m ? x[(r + 1) * x_stride] : T(0);
    if (detail::cyclic::magnitude(
            detail::cyclic::residual(rows[r], below, x[r * x_stride], above)) > limit) {
      breakdown.note(r * row_stride);
      break;
    }
  }
  ++breakdown.step;
}

/// CR's forward reduction (paper 001, s.2.1), in place: each level combines the rows at even
/// positions k = 0, 2, 4, ... of the current reduced system (rows k * s) with their odd
/// neighbours, until at most `switch_rows` rows remain. Returns the final distance s.
template <class T>
std::int64_t cr_reduce(Equation<T>* rows, std::int64_t n, std::int64_t switch_rows,
                       Breakdown& breakdown) {
  const Equation<T> outside = detail::cyclic::outside_equation<T>();
  std::int64_t s = 1;
  for (; detail::cyclic::rows_at_level(n, s) > switch_rows; s *= 2, ++breakdown.step) {
    const std::int64_t m = detail::cyclic::rows_at_level(n, s);
    for (std::int64_t k = 1; k < m; k += 2) breakdown.note_if_unusable(rows[k * s].b, k * s);
    for (std::int64_t k = 0; k < m; k += 2) {
      const std::int64_t i = k * s;
      rows[i] = detail::cyclic::eliminate_neighbours(k > 0 ? rows[i - s] : outside, rows[i],
                                                     k + 1 < m ? rows[i + s] : outside);
    }
  }
  return s;
}

/// CR's back substitution: x is known at rows that are multiples of `top`; each level down
/// solves the rows at odd positions from their two solved neighbours.
template <class T>
void cr_substitute(const Equation<T>* rows, std::int64_t n, std::int64_t top, T* x) {
  for (std::int64_t s = top / 2; s >= 1; s /= 2) {
    const std::int64_t m = detail::cyclic::rows_at_level(n, s);
    for (std::int64_t k = 1; k < m; k += 2) {
      const std::int64_t i = k * s;
      x[i] = detail::cyclic::substitute(rows[i], x[i - s], k + 1 < m ? x[i + s] : T(0));
    }
  }
}

/// Solves scratch.rows[0 .. n) into scratch.x; returns checked mode's breakdown info (0 if none
/// in the reductions; the caller adds the check of the stored results).
template <class T>
int solve_system(const Scratch<T>& scratch, std::int64_t n,
                 const detail::cyclic::Variant& variant) {
  Breakdown breakdown{n};
  const std::int64_t s = cr_reduce(scratch.rows, n, variant.switch_rows, breakdown);
  const std::int64_t m = detail::cyclic::rows_at_level(n, s);
  // The reduced system's rows are rows 0, s, 2s, ...: gathered next to each other unless s = 1.
  Equation<T>* reduced = scratch.rows;
  Equation<T>* buffer = scratch.spare;
  if (s > 1) {
    for (std::int64_t r = 0; r < m; ++r) scratch.spare[r] = scratch.rows[r * s];
    reduced = scratch.spare;
    buffer = scratch.spare + m;
  }
  if (variant.inner == detail::cyclic::InnerSolver::pcr) {
    pcr(reduced, buffer, m, scratch.x, s, s, breakdown);
  } else {
    rd(reduced, scratch.steps, m, scratch.x, s, s, breakdown);
  }
  cr_substitute(scratch.rows, n, s, scratch.x);
  return breakdown.info();
}

}  // namespace triax::detail::cpu::cyclic
