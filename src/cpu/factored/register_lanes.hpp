#pragma once
// The factored solve along axis 0 (each system's rows contiguous, neighbouring systems a system
// stride apart) with AVX-512 register transposes: a group of V systems (16 floats / 8 doubles,
// one zmm register) is read V rows at a time, one 64-byte load per system, transposed in
// registers into V rows of V lanes, and the forward step runs on those registers; d' goes to a
// scratch of n x V values (32 KiB at n = 512: in L1). The backward step produces V rows of x in
// registers, transposes them back and stores one 64-byte run per system, streamed past the caches
// where the run is a whole aligned line and x is a separate output. The previous kernel gathered
// the whole group into the scratch first, solved, and scattered it back: three passes, with the
// memory traffic only in the first and the last.
//
// Rows outside whole blocks go through masked blocks; groups of fewer than V systems are left to
// the caller (factored_lanes.hpp's plain loops). Without AVX-512 `register_lanes_usable` is false.

#include <cstdint>
#include <type_traits>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "core/factored/factor_table.hpp"

namespace triax::detail::cpu_factored::TRIAX_FACTORED_ISA {

#if defined(__AVX512F__)
inline constexpr bool register_lanes_usable = true;

// GCC 12's unpack and shuffle intrinsics start from _mm512_undefined_*(), which its own
// -W(maybe-)uninitialized then reports at every use: not ours to fix.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

template <class T>
struct Zmm;
template <>
struct Zmm<float> {
  using type = __m512;
  static constexpr int lanes = 16;
  using mask = __mmask16;
  static mask rows(int lo, int hi) { return mask((1u << hi) - (1u << lo)); }
  static type load(const float* p) { return _mm512_loadu_ps(p); }
  static type load(mask m, const float* p) { return _mm512_maskz_loadu_ps(m, p); }
  static void store(mask m, float* p, type v) { _mm512_mask_storeu_ps(p, m, v); }
  static void store(float* p, type v) { _mm512_storeu_ps(p, v); }
  static void stream(float* p, type v) { _mm512_stream_ps(p, v); }
  static type set1(float v) { return _mm512_set1_ps(v); }
  static type mul(type a, type b) { return _mm512_mul_ps(a, b); }
  static type add(type a, type b) { return _mm512_add_ps(a, b); }
  static type fnmadd(type a, type b, type c) { return _mm512_fnmadd_ps(a, b, c); }
};
template <>
struct Zmm<double> {
  using type = __m512d;
  static constexpr int lanes = 8;
  using mask = __mmask8;
  static mask rows(int lo, int hi) { return mask((1u << hi) - (1u << lo)); }
  static type load(const double* p) { return _mm512_loadu_pd(p); }
  static type load(mask m, const double* p) { return _mm512_maskz_loadu_pd(m, p); }
  static void store(mask m, double* p, type v) { _mm512_mask_storeu_pd(p, m, v); }
  static void store(double* p, type v) { _mm512_storeu_pd(p, v); }
  static void stream(double* p, type v) { _mm512_stream_pd(p, v); }
  static type set1(double v) { return _mm512_set1_pd(v); }
  static type mul(type a, type b) { return _mm512_mul_pd(a, b); }
  static type add(type a, type b) { return _mm512_add_pd(a, b); }
  static type fnmadd(type a, type b, type c) { return _mm512_fnmadd_pd(a, b, c); }
};

/// The 4 x 4 transpose of the 128-bit quarters of b0..b3 (out[q] = quarter q of each, in order):
/// the last two stages of both register transposes below.
template <class V, class Shuffle>
inline void transpose_quarters(V b0, V b1, V b2, V b3, V* out, int step, Shuffle shuf) {
  const V c0 = shuf(b0, b1, std::integral_constant<int, 0x44>{});
  const V c1 = shuf(b0, b1, std::integral_constant<int, 0xEE>{});
  const V c2 = shuf(b2, b3, std::integral_constant<int, 0x44>{});
  const V c3 = shuf(b2, b3, std::integral_constant<int, 0xEE>{});
  out[0 * step] = shuf(c0, c2, std::integral_constant<int, 0x88>{});
  out[1 * step] = shuf(c0, c2, std::integral_constant<int, 0xDD>{});
  out[2 * step] = shuf(c1, c3, std::integral_constant<int, 0x88>{});
  out[3 * step] = shuf(c1, c3, std::integral_constant<int, 0xDD>{});
}

/// r[i] holds row i of a 16 x 16 block; on return r[j] holds column j.
inline void transpose_square(__m512 (&r)[16]) {
  __m512 a[16], b[16];
  for (int p = 0; p < 8; ++p) {
    a[2 * p] = _mm512_unpacklo_ps(r[2 * p], r[2 * p + 1]);
    a[2 * p + 1] = _mm512_unpackhi_ps(r[2 * p], r[2 * p + 1]);
  }
  // b[4q + m], quarter L: column 4L + m, rows 4q .. 4q + 3.
  for (int q = 0; q < 4; ++q) {
    const __m512d a0 = _mm512_castps_pd(a[4 * q]), a1 = _mm512_castps_pd(a[4 * q + 1]);
    const __m512d a2 = _mm512_castps_pd(a[4 * q + 2]), a3 = _mm512_castps_pd(a[4 * q + 3]);
    b[4 * q + 0] = _mm512_castpd_ps(_mm512_unpacklo_pd(a0, a2));
    b[4 * q + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a0, a2));
    b[4 * q + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(a1, a3));
    b[4 * q + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(a1, a3));
  }
  const auto shuf = [](__m512 x, __m512 y, auto imm) { return _mm512_shuffle_f32x4(x, y, decltype(imm)::value); };
  for (int m = 0; m < 4; ++m) transpose_quarters(b[m], b[4 + m], b[8 + m], b[12 + m], r + m, 4, shuf);
}

/// r[i] holds row i of an 8 x 8 block; on return r[j] holds column j.
inline void transpose_square(__m512d (&r)[8]) {
  __m512d a[8];
  // a[2p + m], quarter L: column 2L + m, rows 2p, 2p + 1.
  for (int p = 0; p < 4; ++p) {
    a[2 * p] = _mm512_unpacklo_pd(r[2 * p], r[2 * p + 1]);
    a[2 * p + 1] = _mm512_unpackhi_pd(r[2 * p], r[2 * p + 1]);
  }
  const auto shuf = [](__m512d x, __m512d y, auto imm) { return _mm512_shuffle_f64x2(x, y, decltype(imm)::value); };
  for (int m = 0; m < 2; ++m) transpose_quarters(a[m], a[2 + m], a[4 + m], a[6 + m], r + m, 2, shuf);
}

/// Lines ahead of the block being read that each system's next lines are asked for: the group's
/// V streams run in parallel, more than the hardware prefetcher tracks at once.
inline constexpr int lines_ahead = 4;

/// p + offset elements, for a run whose first rows lie before the system (masked off): formed
/// as an address, since the pointer itself may point before the array.
template <class T>
inline T* shifted(T* p, std::int64_t offset) {
  return reinterpret_cast<T*>(reinterpret_cast<std::intptr_t>(p) +
                              offset * static_cast<std::intptr_t>(sizeof(T)));
}

/// The forward step over one block of V rows base .. base + V - 1 of V systems (system k's row
/// i at d[k * ld + i]), of which rows base + lo .. base + hi - 1 are the system's (Whole: all;
/// else the others are neither read nor computed), given d' of the row before in `prev`
/// (zero before row 0: a of row 0 is stored as 0). d'[i * V + k] goes to dp; returns the last.
template <bool Whole, bool Scaled, class T>
inline typename Zmm<T>::type forward_block(const T* d, std::int64_t ld, std::int64_t base, int lo,
                                           int hi, typename Zmm<T>::type prev,
                                           const FactorView<T>& f, T* dp) {
  using Z = Zmm<T>;
  constexpr int V = Z::lanes;
  if constexpr (Whole) lo = 0, hi = V;
  typename Z::type r[V];
#pragma GCC unroll 16
  for (int k = 0; k < V; ++k) {
    const T* run = shifted(d + k * ld, base);
    if constexpr (Whole) {
      __builtin_prefetch(shifted(run, lines_ahead * V), 0, 3);  // past the end: never faults
      r[k] = Z::load(run);
    } else {
      r[k] = Z::load(Z::rows(lo, hi), run);
    }
  }
  transpose_square(r);
#pragma GCC unroll 16
  for (int k = lo; k < hi; ++k) {
    const T* fr = f.rows + 3 * f.index(base + k);
    typename Z::type v = r[k];
    if constexpr (Scaled) v = Z::mul(Z::mul(v, Z::set1(f.scale[0])), Z::set1(f.scale[1]));
    // d r - (a r) d'[i-1]: one fused step on the chain from row to row instead of two (the
    // products with r are off it), which the chain's latency, not the memory, limits in the caches.
    prev = Z::fnmadd(Z::set1(fr[0] * fr[1]), prev, Z::mul(v, Z::set1(fr[1])));
    Z::store(dp + (base + k) * V, prev);
  }
  return prev;
}

/// The backward step over one block (rows as forward_block's) given x of the row after in
/// `next` (zero after the last row: c' of the last row is 0), d' in dp; system k's row i of x at
/// x[k * lx + i], added to where Accumulate, streamed where `stream` and the run is one aligned
/// line. Returns x of row base + lo.
template <bool Whole, bool Accumulate, class T>
inline typename Zmm<T>::type backward_block(typename Zmm<T>::type next, std::int64_t base, int lo,
                                            int hi, const FactorView<T>& f, const T* dp, T* x,
                                            std::int64_t lx, bool stream) {
  using Z = Zmm<T>;
  constexpr int V = Z::lanes;
  if constexpr (Whole) lo = 0, hi = V;
  typename Z::type r[V];
#pragma GCC unroll 16
  for (int k = V - 1; k >= 0; --k) {
    if (k >= hi || k < lo) {
      r[k] = Z::set1(T(0));
      continue;
    }
    const T cp = f.rows[3 * f.index(base + k) + 2];
    next = Z::fnmadd(Z::set1(cp), next, Z::load(dp + (base + k) * V));
    r[k] = next;
  }
  transpose_square(r);
#pragma GCC unroll 16
  for (int k = 0; k < V; ++k) {
    T* run = shifted(x + k * lx, base);
    if constexpr (!Whole) {
      const auto m = Z::rows(lo, hi);
      Z::store(m, run, Accumulate ? Z::add(Z::load(m, run), r[k]) : r[k]);
    } else if constexpr (Accumulate) {
      Z::store(run, Z::add(Z::load(run), r[k]));
    } else if (stream && (reinterpret_cast<std::uintptr_t>(run) & 63) == 0) {
      Z::stream(run, r[k]);
    } else {
      Z::store(run, r[k]);
    }
  }
  return next;
}

/// Lanes of one group: the systems a register holds.
template <class T>
inline constexpr int register_group = Zmm<T>::lanes;

/// One group of V systems, n >= V rows (system k's row i at d[k * ld + i] and x[k * lx + i];
/// x may be d). The blocks start at the row where x's runs begin a cache line when every
/// system's do (so that they can be streamed whole); the rows before that and after the last
/// whole block go through masked blocks. d' in dp (n x V values). d is read completely before x
/// is written.
template <bool Accumulate, bool Scaled, class T>
void solve_register_group(const T* d, std::int64_t ld, T* x, std::int64_t lx, std::int64_t n,
                          const FactorView<T>& f, T* dp, bool stream) {
  using Z = Zmm<T>;
  constexpr int V = Z::lanes;
  const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(x);
  const bool same_phase = (lx * std::int64_t(sizeof(T))) % 64 == 0 && at % sizeof(T) == 0;
  const int head = same_phase ? int((64 - at % 64) % 64 / sizeof(T)) : 0;
  const std::int64_t end = head + (n - head) / V * V;
  const int tail = static_cast<int>(n - end);
  typename Z::type v = Z::set1(T(0));
  if (head > 0) v = forward_block<false, Scaled>(d, ld, head - V, V - head, V, v, f, dp);
  for (std::int64_t b = head; b < end; b += V) v = forward_block<true, Scaled>(d, ld, b, 0, V, v, f, dp);
  if (tail > 0) forward_block<false, Scaled>(d, ld, end, 0, tail, v, f, dp);
  v = Z::set1(T(0));
  if (tail > 0) v = backward_block<false, Accumulate>(v, end, 0, tail, f, dp, x, lx, stream);
  // While x goes out, the next V systems' d comes in: one line of each per block, into L2
  // (a block is one line of each system), so the next group's forward step finds its rows there
  // instead of waiting for memory with nothing else to do. Past the last group the addresses
  // are another line's systems or nothing; a prefetch never faults.
  const T* following = shifted(d, V * ld);
  std::int64_t line = 0;
  for (std::int64_t b = end - V; b >= head; b -= V, line += V) {
#pragma GCC unroll 16
    for (int k = 0; k < V; ++k) __builtin_prefetch(shifted(following, k * ld + line), 0, 2);
    v = backward_block<true, Accumulate>(v, b, 0, V, f, dp, x, lx, stream);
  }
  for (; line < n; line += V) {
    for (int k = 0; k < V; ++k) __builtin_prefetch(shifted(following, k * ld + line), 0, 2);
  }
  if (head > 0) backward_block<false, Accumulate>(v, head - V, V - head, V, f, dp, x, lx, stream);
}

#pragma GCC diagnostic pop

#else
inline constexpr bool register_lanes_usable = false;
template <class T>
inline constexpr int register_group = 1;
template <bool Accumulate, bool Scaled, class T>
void solve_register_group(const T*, std::int64_t, T*, std::int64_t, std::int64_t,
                          const FactorView<T>&, T*, bool) {}
#endif

}  // namespace triax::detail::cpu_factored::TRIAX_FACTORED_ISA
