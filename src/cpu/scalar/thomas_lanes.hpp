#pragma once
// The arithmetic of Thomas (paper 000, Algorithm 1) over W independent systems at once, "lanes",
// whose row i is W consecutive values. Both CPU kernels feed it: the strip kernel reads rows of
// neighbouring systems straight from memory, the transpose kernel from a tile it transposed.
// The lane loops are plain loops the compiler vectorises (no ISA intrinsics), and W independent
// dependency chains hide the latency of the division.
//
// Forward:  m = b[i] - a[i] c'[i-1];  c'[i] = c[i] / m;  d'[i] = (d[i] - a[i] d'[i-1]) / m.
// Backward: x[n-1] = d'[n-1];  x[i] = d'[i] - c'[i] x[i+1]   (x overwrites d' in the workspace).

#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/problem.hpp"
#include "cpu/range_guard.hpp"

#if defined(__AVX512F__) && defined(__AVX512VL__)
#include <immintrin.h>
#endif

#ifndef TRIAX_CPU_ISA
#error "kernel headers are included through cpu/solve_batch.inc, which names the instruction set"
#endif

namespace triax::detail::cpu::TRIAX_CPU_ISA {

template <class T>
inline bool is_finite(T v) {
  // NaN fails the comparison, inf exceeds max; unlike std::isfinite this vectorises.
  return (v < T(0) ? -v : v) <= std::numeric_limits<T>::max();
}

/// Integer view of T's bits: the exponent field's position, width and bias.
template <class T>
struct FloatBits;
template <>
struct FloatBits<float> {
  using Int = std::int32_t;
  static constexpr int mantissa = 23;
  static constexpr Int exponent_mask = 0xff, bias = 127;
};
template <>
struct FloatBits<double> {
  using Int = std::int64_t;
  static constexpr int mantissa = 52;
  static constexpr Int exponent_mask = 0x7ff, bias = 1023;
};

/// binade_scale on the bits: I is T's integer (FloatBits<T>::Int) or a vector of them, so that
/// the lane loops and the explicit vector code (partitioned_thomas.hpp) share one rule.
template <class T, class I>
inline I binade_scale_bits(I bits) {
  // On the exponent field in place: no shifts (AVX2 has no 64-bit arithmetic shift, and the
  // emulated one cost double along x about 10%), an and, a subtract and a compare. The field
  // (2 bias - E) one is a multiple of `one`: 0 for the top binade (E = 2 bias), whose s is the
  // smallest normal instead, and -one for inf and NaN (E all ones), whose bits are -inf.
  using B = FloatBits<T>;
  using Int = typename B::Int;
  constexpr Int one = Int(1) << B::mantissa;
  const I field = (2 * B::bias) * one - (bits & (B::exponent_mask << B::mantissa));
  return field == 0 ? one + I{} : field;
}

/// A power of two s with |m s| in [1, 2) for normal m below the top binade, in [2^-p, 1) for
/// subnormal m (p = T's mantissa bits) and in [2, 4) in the top binade (where 2^-e itself would
/// be subnormal): 1 / (m s) is always normal, and m s is exact. For inf and NaN, s is -inf, so
/// that c s / (m s) and d s / (m s) are NaN: a non-finite pivot shows in x without the (m - m)
/// term an earlier version added to every right-hand side.
/// Taken from m's exponent bits, which vectorises, where frexp/ldexp do not.
template <class T>
inline T binade_scale(T m) {
  using Int = typename FloatBits<T>::Int;
  return std::bit_cast<T>(binade_scale_bits<T>(std::bit_cast<Int>(m)));
}

/// Whether a system of n rows reads operand op at all: a and c from two rows on (a[0] and
/// c[n-1] are never read, and the caller's array may not hold them), b and d from one.
inline bool operand_read(int op, std::int64_t n) {
  return n >= ((op == op_a || op == op_c) ? 2 : 1);
}

/// Breakdown bookkeeping for checked mode, per lane: the first bad forward row, and the last row
/// whose stored solution is not finite.
struct LaneInfo {
  int* forward;   // W entries, 0 = clean
  int* backward;  // W entries, 0 = clean

  /// The bookkeeping of lanes j0 onwards.
  LaneInfo from(int j0) const { return {forward + j0, backward + j0}; }
};

/// The elimination before the division, at lane (or vector) j: m = b - a c'_prev and
/// rhs = d - a d'_prev; `load` reads one lane or one vector. One copy for the lane loops and the
/// AVX-512 vector loops, so that all compute the same expression (the same bits). Returned by
/// value: out-parameters made the lane loops' m and rhs addressable, which GCC's `omp simd`
/// turns into per-lane arrays in memory (the strip kernel's guarded rows ran 2x slower).
template <class V>
struct Eliminated {
  V m, rhs;
};
template <bool HasA, class V, class Load, class T>
inline Eliminated<V> eliminate(Load load, int j, const T* a, const T* b, const T* d,
                               const T* cp_prev, const T* dp_prev) {
  V m = load(b + j);
  V rhs = load(d + j);
  if constexpr (HasA) {
    const V aj = load(a + j);
    m -= aj * load(cp_prev + j);
    rhs -= aj * load(dp_prev + j);
  }
  return {m, rhs};
}

/// eliminate's `load` for the lane loops.
inline constexpr auto load_lane = [](const auto* p) { return *p; };

#if defined(__AVX512F__) && defined(__AVX512VL__)
/// Guard::getexp's instructions (AVX-512 copy only, 32-byte vectors as the
/// copy is compiled): one template, the intrinsic of each precision picked at compile time.
template <class T>
struct Vector256 {
  using type = __m256;
};
template <>
struct Vector256<double> {
  using type = __m256d;
};
template <class T>
struct ExponentOps {
  static constexpr bool dbl = sizeof(T) == 8;
  using V = typename Vector256<T>::type;
  static constexpr int lanes = 32 / sizeof(T);
  static V load(const T* p) {
    V v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  static void store(T* p, V v) { std::memcpy(p, &v, sizeof v); }
  static V mant(V m) {
    if constexpr (dbl) return _mm256_getmant_pd(m, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_src);
    else return _mm256_getmant_ps(m, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_src);
  }
  static V exponent(V m) {
    if constexpr (dbl) return _mm256_getexp_pd(m);
    else return _mm256_getexp_ps(m);
  }
  static V scale(V x, V e) {
    if constexpr (dbl) return _mm256_scalef_pd(x, e);
    else return _mm256_scalef_ps(x, e);
  }
  /// Checked mode's breakdown test (forward_row's, per vector): lanes where m is zero or not
  /// finite, or d' is not finite (x - x is 0 exactly for finite x).
  static __mmask8 broken(V m, V dp) {
    if constexpr (dbl) {
      return _mm256_cmp_pd_mask(m, V{}, _CMP_EQ_OQ) | _mm256_cmp_pd_mask(m - m, V{}, _CMP_NEQ_UQ) |
             _mm256_cmp_pd_mask(dp - dp, V{}, _CMP_NEQ_UQ);
    } else {
      return _mm256_cmp_ps_mask(m, V{}, _CMP_EQ_OQ) | _mm256_cmp_ps_mask(m - m, V{}, _CMP_NEQ_UQ) |
             _mm256_cmp_ps_mask(dp - dp, V{}, _CMP_NEQ_UQ);
    }
  }
};

/// The whole vectors of a Guard::getexp row (checked mode's bookkeeping too, as forward_row's);
/// returns how many lanes it did. On the chain
/// m -> 1/m -> the next row's m only getmant (m's mantissa in [1, 2), exact, subnormal m
/// included) is added; c and rhs are scaled by 2^-e (scalef, e = getexp(m)) beside the
/// division. The exponent is taken as (m - m) - e, NaN for inf and NaN m, so that c', d' are
/// NaN there; a zero m gives e = -inf and c', d' infinite or NaN. In the normal range the
/// results are those of the plain reciprocal bit for bit (every scaling exact).
template <bool HasA, bool HasC, bool Checked, class T>
inline int forward_row_getexp(int w, std::int64_t i, const T* a, const T* b, const T* c,
                              const T* d, const T* cp_prev, const T* dp_prev, T* cp, T* dp,
                              LaneInfo info) {
  using O = ExponentOps<T>;
  using V = typename O::V;
  constexpr int L = O::lanes;
  const V one = V{} + T(1);
  int j = 0;
  for (; j + L <= w; j += L) {
    const Eliminated<V> e = eliminate<HasA, V>(O::load, j, a, b, d, cp_prev, dp_prev);
    const V m = e.m;
    const V rhs = e.rhs;
    const V ne = (m - m) - O::exponent(m);
    const V r = one / O::mant(m);
    O::store(cp + j, HasC ? O::scale(O::load(c + j), ne) * r : V{});
    const V dpv = O::scale(rhs, ne) * r;
    O::store(dp + j, dpv);
    if constexpr (Checked) {
      // Rare: the lanes of a broken row one at a time, as forward_row's lane loop records them.
      const unsigned bad = O::broken(m, dpv);
      for (int k = 0; bad != 0 && k < L; ++k) {
        if (((bad >> k) & 1u) != 0 && info.forward[j + k] == 0) info.forward[j + k] = int(i + 1);
      }
    }
  }
  return j;
}
#endif

/// One forward row over w lanes. HasA is false on row 0 (a[0] is never read); HasC is false on
/// row n-1 (c[n-1] is never read). G picks the range guard (cpu/range_guard.hpp): Guard::none is
/// a diagnostic copy for timing only (TRIAX_CPU_RANGE_GUARD=0, cpu_plan.cpp), the plain
/// reciprocal r = 1/m of the code before the range work, so that one process can time both
/// (bench/ab_range); systems outside the normal range then come back wrong. Row i's c', d' go to
/// cp, dp; row i-1's are cp_prev, dp_prev. d and dp may be the same row (the strip kernel in place
/// writes d' over d): each lane reads its d before it writes its d', so they are not `__restrict`.
template <bool HasA, bool HasC, bool Checked, Guard G, class T>
inline void forward_row(int w, std::int64_t i, const T* __restrict a, const T* __restrict b,
                        const T* __restrict c, const T* d, const T* __restrict cp_prev,
                        const T* dp_prev, T* __restrict cp, T* dp, LaneInfo info) {
  if constexpr (G == Guard::getexp) {
#if defined(__AVX512F__) && defined(__AVX512VL__)
    const int done =
        forward_row_getexp<HasA, HasC, Checked>(w, i, a, b, c, d, cp_prev, dp_prev, cp, dp, info);
#else
    const int done = 0;
#endif
    if (done < w) {
      const auto at = [done](const T* p) { return p != nullptr ? p + done : nullptr; };
      forward_row<HasA, HasC, Checked, Guard::scaled>(w - done, i, at(a), b + done, at(c),
                                                      d + done, at(cp_prev), at(dp_prev),
                                                      cp + done, dp + done, info.from(done));
    }
    return;
  }
#pragma omp simd
  for (int j = 0; j < w; ++j) {
    const Eliminated<T> e = eliminate<HasA, T>(load_lane, j, a, b, d, cp_prev, dp_prev);
    const T m = e.m;
    const T rhs = e.rhs;
    // 1/m leaves the range where m is subnormal (inf) or above 1/min_normal (subnormal or 0),
    // so that a system scaled by a power of two came back wrong. m is first brought into a
    // binade near 1 by an exact power of two s (binade_scale), and c' = (c s) (1/(m s)): as
    // accurate as c (1/m) was, identical bit for bit under scaling by 2^k, and one division
    // (two, c / m and rhs / m, cost double along x 9-25%: docs/algorithms.md, "Breakdowns and
    // the floating-point range"). An infinite pivot would make c' = d' = 0 and cut the system
    // in two with finite x; binade_scale's s = -inf for it makes d' NaN, so the breakdown shows
    // in x, as checked mode would report it.
    if constexpr (G == Guard::scaled) {
      const T s = binade_scale(m);
      const T r = T(1) / (m * s);
      cp[j] = HasC ? (c[j] * s) * r : T(0);
      dp[j] = (rhs * s) * r;
    } else {
      const T r = T(1) / m;
      cp[j] = HasC ? c[j] * r : T(0);
      dp[j] = rhs * r;
    }
    if constexpr (Checked) {
      const bool ok = m != T(0) && is_finite(m) && is_finite(dp[j]);
      info.forward[j] = (!ok && info.forward[j] == 0) ? static_cast<int>(i + 1) : info.forward[j];
    }
  }
}

/// Forward rows [i0, i1) of an n-row system; row r of each operand is at base + (r - i0) * step
/// (lane-contiguous rows), c' rows at cp + r * cs and d' rows at dp + r * ds (row pitches).
template <bool Checked, Guard G, class T>
inline void forward_rows(int w, std::int64_t n, std::int64_t i0, std::int64_t i1, const T* a,
                         const T* b, const T* c, const T* d, std::int64_t step, T* cp,
                         std::int64_t cs, T* dp, std::int64_t ds, LaneInfo info) {
  // The row dispatch written out, not through a shared lambda: with one GCC stopped inlining
  // the guarded forward_row into the strip kernel's line loop (2.1-2.4x in the caches).
  for (std::int64_t i = i0; i < i1; ++i) {
    const std::int64_t k = (i - i0) * step;
    T* cpi = cp + i * cs;
    T* dpi = dp + i * ds;
    const bool last = i == n - 1;
    if (i == 0) {
      if (last) {
        forward_row<false, false, Checked, G, T>(w, i, a, b + k, c, d + k, nullptr, nullptr, cpi,
                                                 dpi, info);
      } else {
        forward_row<false, true, Checked, G, T>(w, i, a, b + k, c + k, d + k, nullptr, nullptr,
                                                cpi, dpi, info);
      }
    } else if (last) {
      forward_row<true, false, Checked, G>(w, i, a + k, b + k, c, d + k, cpi - cs, dpi - ds, cpi,
                                           dpi, info);
    } else {
      forward_row<true, true, Checked, G>(w, i, a + k, b + k, c + k, d + k, cpi - cs, dpi - ds,
                                          cpi, dpi, info);
    }
  }
}

/// Whether x * (1/m) is as good as x / m: m and 1/m both normal. Outside that range the
/// reciprocal overflows (m subnormal) or loses digits or vanishes (|m| above 1/min_normal).
template <class T>
inline bool reciprocal_in_range(T m) {
  constexpr T lo = std::numeric_limits<T>::min();
  const T mag = m < T(0) ? -m : m;
  return mag >= lo && mag <= T(1) / lo;
}

/// One matrix for every lane (a, b, c the same in all systems, as constant-coefficient schemes
/// pass them): Thomas' pivots do not depend on the right-hand side, so the pivot m, c' and 1/m
/// are computed once per row (m, cp, r), a (av) beside them, and the lanes carry only d' and x.
/// Each lane then multiplies by r instead of dividing by m, which is the point of the path; a
/// row whose reciprocal leaves the range (reciprocal_in_range) has r = 0 and its lanes divide.
/// The four rows of n values live in the kernels' c' scratch (at least 4n values), which this
/// path does not otherwise need.
template <class T>
struct SharedMatrix {
  T* r;
  T* cp;
  T* av;
  T* m;

  /// Whether a, b and c are one matrix for every system of p (batch strides 0). Checked mode
  /// keeps the general path, whose checks are per lane.
  static bool applies(const Problem& p, bool checked) { return !checked && p.one_matrix(); }

  /// Rows 0..n-1 of the matrix whose row i is a[i * ra], b[i * rb], c[i * rc], into scratch.
  SharedMatrix(T* scratch, std::int64_t n, const T* a, std::int64_t ra, const T* b, std::int64_t rb,
               const T* c, std::int64_t rc)
      : r(scratch), cp(scratch + n), av(scratch + 2 * n), m(scratch + 3 * n) {
    T cp_prev = T(0);
    for (std::int64_t i = 0; i < n; ++i) {
      const T ai = i > 0 ? a[i * ra] : T(0);
      T mi = b[i * rb];
      if (i > 0) mi -= ai * cp_prev;
      m[i] = mi;
      r[i] = reciprocal_in_range(mi) ? T(1) / mi : T(0);
      cp[i] = i + 1 < n ? c[i * rc] / mi : T(0);
      av[i] = ai;
      cp_prev = cp[i];
    }
  }
};

/// Forward row i of w lanes with a shared matrix: d'[i] = (d[i] - a[i] d'[i-1]) / m[i], as
/// a product with ri = 1/m[i], or where ri is 0 a quotient, with (m - m) making a non-finite
/// pivot show in x as forward_row does. d and dp may be the same row, as in forward_row.
template <class T>
inline void forward_row_shared(int w, std::int64_t i, T ai, T mi, T ri, const T* d,
                               const T* dp_prev, T* dp) {
  if (ri != T(0)) {
    if (i == 0) {
#pragma omp simd
      for (int j = 0; j < w; ++j) dp[j] = d[j] * ri;
      return;
    }
#pragma omp simd
    for (int j = 0; j < w; ++j) dp[j] = (d[j] - ai * dp_prev[j]) * ri;
    return;
  }
  const T poison = mi - mi;
  if (i == 0) {
    for (int j = 0; j < w; ++j) dp[j] = (d[j] + poison) / mi;
    return;
  }
  for (int j = 0; j < w; ++j) dp[j] = (d[j] - ai * dp_prev[j] + poison) / mi;
}

/// Back substitution of row i < n-1 with a shared matrix: x[i] = d'[i] - c'[i] x[i+1].
template <class T>
inline void backward_row_shared(int w, T cpi, T* __restrict dpi, const T* __restrict next) {
#pragma omp simd
  for (int j = 0; j < w; ++j) dpi[j] -= cpi * next[j];
}

/// Back substitution of rows [i0, i1) (descending), given row i1's solution already in dp (or
/// i1 == n). Leaves x in dp. Row pitches as in forward_rows.
template <class T>
inline void backward_rows(int w, std::int64_t n, std::int64_t i0, std::int64_t i1, const T* cp,
                          std::int64_t cs, T* dp, std::int64_t ds) {
  for (std::int64_t i = i1 - 1; i >= i0; --i) {
    if (i == n - 1) continue;  // x[n-1] = d'[n-1]
    const T* __restrict cpi = cp + i * cs;
    T* __restrict dpi = dp + i * ds;
    const T* __restrict next = dp + (i + 1) * ds;
#pragma omp simd
    for (int j = 0; j < w; ++j) dpi[j] -= cpi[j] * next[j];
  }
}

/// Stores (or adds) one lane-contiguous row of solutions; in checked mode records the last row
/// whose stored value is not finite.
template <bool Accumulate, bool Checked, class T>
inline void store_row(int w, std::int64_t i, const T* __restrict xs, T* __restrict out,
                      LaneInfo info) {
#pragma omp simd
  for (int j = 0; j < w; ++j) {
    const T v = Accumulate ? out[j] + xs[j] : xs[j];
    out[j] = v;
    if constexpr (Checked) {
      const int row = static_cast<int>(i + 1);
      info.backward[j] = (!is_finite(v) && row > info.backward[j]) ? row : info.backward[j];
    }
  }
}

/// Final info of a lane: the forward breakdown if any, else the backward one.
inline int final_info(const LaneInfo& info, int j) {
  return info.forward[j] != 0 ? info.forward[j] : info.backward[j];
}

}  // namespace triax::detail::cpu::TRIAX_CPU_ISA
