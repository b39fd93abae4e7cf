#pragma once
// The arithmetic of the cyclic family (paper 001: CR, PCR, RD and their hybrids), written once
// for every backend: the CPU references and the CUDA kernels differ in who runs which equation
// and where equations are stored, never in the formulas. Backend-free and usable in device code,
// as problem.hpp is.
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/problem.hpp"

namespace triax::detail::cyclic {

/// One row a x[i - s] + b x[i] + c x[i + s] = d of a (possibly reduced) system, s being the
/// distance to its current neighbours.
template <class T>
struct Equation {
  T a, b, c, d;
};

/// The neighbour of a row next to the system's end: the equation x = 0. Rows next to an end have
/// a zero coefficient towards it (a[0] and c[n-1] are never read, and every reduction keeps the
/// zero), so this stand-in changes nothing and spares the algorithms special cases for odd counts.
template <class T>
TRIAX_HOST_DEVICE constexpr Equation<T> outside_equation() {
  return {T(0), T(1), T(0), T(0)};
}

/// Row e with its neighbours' unknowns eliminated by the rows `below` (distance s before) and
/// `above` (distance s after): the result couples x[i - 2s] and x[i + 2s]. CR's forward step and
/// every PCR step.
template <class T>
TRIAX_HOST_DEVICE Equation<T> eliminate_neighbours(const Equation<T>& below, const Equation<T>& e,
                                                   const Equation<T>& above) {
  const T k_below = e.a / below.b;
  const T k_above = e.c / above.b;
  return {-below.a * k_below, e.b - below.c * k_below - above.a * k_above, -above.c * k_above,
          e.d - below.d * k_below - above.d * k_above};
}

/// x[i] from row e once x[i - s] and x[i + s] are known (CR's backward step).
template <class T>
TRIAX_HOST_DEVICE T substitute(const Equation<T>& e, T x_below, T x_above) {
  return (e.d - e.a * x_below - e.c * x_above) / e.b;
}

template <class T>
TRIAX_HOST_DEVICE bool finite(T v) {
#if defined(__CUDA_ARCH__)
  return isfinite(v);
#else
  return std::isfinite(v);
#endif
}

template <class T>
TRIAX_HOST_DEVICE T magnitude(T v) {
#if defined(__CUDA_ARCH__)
  return fabs(v);
#else
  return std::fabs(v);
#endif
}

/// Whether a row's diagonal can be divided by: nonzero and finite.
template <class T>
TRIAX_HOST_DEVICE bool usable_pivot(T b) {
  return b != T(0) && finite(b);
}

/// RD's step from (x[i], x[i-1]) to (x[i+1], x[i]): the 3 x 3 matrix B_i of paper 001, s.2.3,
/// without its constant last row (0 0 1). Row i reads x[i+1] = (d - b x[i] - a x[i-1]) / c.
template <class T>
struct AffineStep {
  T m00, m01, m02;  // x[i+1] = m00 x[i] + m01 x[i-1] + m02
  T m10, m11, m12;  // x[i]   = m10 x[i] + m11 x[i-1] + m12

  /// The step of row e. The last row has no x[n]: it takes c = 1, and its step gives the value
  /// x[n] would have, which must come out 0 (that fixes x[0]).
  TRIAX_HOST_DEVICE static AffineStep of(const Equation<T>& e, bool last_row) {
    const T c = last_row ? T(1) : e.c;
    return {-e.b / c, -e.a / c, e.d / c, T(1), T(0), T(0)};
  }

  /// `later` after `earlier`: the composition of two steps (the scan's operator).
  TRIAX_HOST_DEVICE static AffineStep then(const AffineStep& earlier, const AffineStep& later) {
    return {later.m00 * earlier.m00 + later.m01 * earlier.m10,
            later.m00 * earlier.m01 + later.m01 * earlier.m11,
            later.m00 * earlier.m02 + later.m01 * earlier.m12 + later.m02,
            later.m10 * earlier.m00 + later.m11 * earlier.m10,
            later.m10 * earlier.m01 + later.m11 * earlier.m11,
            later.m10 * earlier.m02 + later.m11 * earlier.m12 + later.m12};
  }

  /// Every entry finite: RD's products grow geometrically on diagonally dominant rows and
  /// overflow (paper 001, s.6); this is how that is detected.
  TRIAX_HOST_DEVICE bool all_finite() const {
    return finite(m00) && finite(m01) && finite(m02) && finite(m10) && finite(m11) && finite(m12);
  }
};

/// RD's x[0] from the product of all n steps (x[-1] = 0, x[n] = 0): m00 x[0] + m02 = 0. A
/// product that overflowed gives NaN, never a finite x[0] from inf / inf-like leftovers.
template <class T>
TRIAX_HOST_DEVICE T first_unknown(const AffineStep<T>& all) {
  const T x0 = -all.m02 / all.m00;
  return all.all_finite() ? x0 : T(NAN);
}

/// x[i + 1] from x[0] and the product of steps 0..i.
template <class T>
TRIAX_HOST_DEVICE T unknown_after(const AffineStep<T>& prefix, T x0) {
  return prefix.m00 * x0 + prefix.m02;
}

/// Checked mode's test of RD's result: RD is not backward stable, and on dominant rows its
/// products grow geometrically; in double they leave x with no correct digit long before they
/// overflow (64 rows of the tests' dominant systems: forward error 1e48, every product finite).
/// A row whose residual a x[i-1] + b x[i] + c x[i+1] - d exceeds residual_limit, a normwise
/// backward error of 16 m epsilon (m rows), is where RD broke down; stable solves stay orders of
/// magnitude below it.
template <class T>
TRIAX_HOST_DEVICE T residual(const Equation<T>& e, T x_below, T x, T x_above) {
  return e.a * x_below + e.b * x + e.c * x_above - e.d;
}
template <class T>
TRIAX_HOST_DEVICE T row_norm(const Equation<T>& e) {
  return magnitude(e.a) + magnitude(e.b) + magnitude(e.c);
}
template <class T>
TRIAX_HOST_DEVICE T residual_limit(std::int64_t m, T largest_row_norm, T largest_x, T largest_d) {
  return T(16) * T(m) * std::numeric_limits<T>::epsilon() *
         (largest_row_norm * largest_x + largest_d);
}

/// The order in which checked mode ranks breakdowns: the earliest reduction step first, then the
/// lowest row. A zero pivot spreads NaN to its neighbours one step later; the key keeps the row
/// that broke, not the rows it spoiled.
inline constexpr std::int64_t no_breakdown = INT64_MAX;
TRIAX_HOST_DEVICE constexpr std::int64_t breakdown_key(int step, std::int64_t row, std::int64_t n) {
  return step * n + row;
}
TRIAX_HOST_DEVICE constexpr int breakdown_info(std::int64_t key, std::int64_t n) {
  return static_cast<int>(key % n + 1);
}

/// Number of rows of CR's reduced system after `level` halvings: rows 0, s, 2s, ... (s = 2^level)
/// of n, an odd count keeping its last row (ceil(n / s)).
TRIAX_HOST_DEVICE constexpr std::int64_t rows_at_level(std::int64_t n, std::int64_t stride) {
  return (n + stride - 1) / stride;
}

}  // namespace triax::detail::cyclic
