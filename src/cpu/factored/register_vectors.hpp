#pragma once
// The vector registers of the register-transpose kernel (register_lanes.hpp) for the instruction
// set the including copy is compiled for: zmm (AVX-512: 16 floats / 8 doubles), ymm (AVX2 + FMA:
// 8 / 4) or xmm (SSE2, every x86-64: 4 / 2). Each gives V = lanes per register, whole and
// partial loads and stores of one run of V values, streaming stores, the few arithmetic
// operations of the two sweeps, and the V x V transpose of V registers. Other processors get
// `register_vectors_usable = false` and the kernel is not compiled for them.
//
// A partial run (rows lo .. hi - 1 of V) neither reads nor writes the other rows: masked
// instructions where the set has them (they do not fault on masked-off elements, so a run may
// start before the array), an element loop through a small buffer on SSE2.

#include <cstdint>
#include <type_traits>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace triax::detail::cpu_factored::TRIAX_FACTORED_ISA {

// GCC 12's unpack and shuffle intrinsics start from _mm*_undefined_*(), which its own
// -W(maybe-)uninitialized then reports at every use: not ours to fix.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

/// The 4 x 4 transpose of the 128-bit quarters of b0..b3 (out[q] = quarter q of each, in order):
/// the last two stages of the AVX-512 register transposes.
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

#if defined(__AVX512F__)
inline constexpr bool register_vectors_usable = true;

template <class T>
struct Vec;
template <>
struct Vec<float> {
  using type = __m512;
  static constexpr int lanes = 16;
  static __mmask16 rows(int lo, int hi) { return __mmask16((1u << hi) - (1u << lo)); }
  static type load(const float* p) { return _mm512_loadu_ps(p); }
  static type load(int lo, int hi, const float* p) { return _mm512_maskz_loadu_ps(rows(lo, hi), p); }
  static void store(float* p, type v) { _mm512_storeu_ps(p, v); }
  static void store(int lo, int hi, float* p, type v) { _mm512_mask_storeu_ps(p, rows(lo, hi), v); }
  static void stream(float* p, type v) { _mm512_stream_ps(p, v); }
  static type set1(float v) { return _mm512_set1_ps(v); }
  static type mul(type a, type b) { return _mm512_mul_ps(a, b); }
  static type add(type a, type b) { return _mm512_add_ps(a, b); }
  static type fnmadd(type a, type b, type c) { return _mm512_fnmadd_ps(a, b, c); }
  /// r[i] holds row i of a 16 x 16 block; on return r[j] holds column j.
  static void transpose(type (&r)[16]) {
    type a[16], b[16];
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
    const auto shuf = [](type x, type y, auto imm) { return _mm512_shuffle_f32x4(x, y, decltype(imm)::value); };
    for (int m = 0; m < 4; ++m) transpose_quarters(b[m], b[4 + m], b[8 + m], b[12 + m], r + m, 4, shuf);
  }
};
template <>
struct Vec<double> {
  using type = __m512d;
  static constexpr int lanes = 8;
  static __mmask8 rows(int lo, int hi) { return __mmask8((1u << hi) - (1u << lo)); }
  static type load(const double* p) { return _mm512_loadu_pd(p); }
  static type load(int lo, int hi, const double* p) { return _mm512_maskz_loadu_pd(rows(lo, hi), p); }
  static void store(double* p, type v) { _mm512_storeu_pd(p, v); }
  static void store(int lo, int hi, double* p, type v) { _mm512_mask_storeu_pd(p, rows(lo, hi), v); }
  static void stream(double* p, type v) { _mm512_stream_pd(p, v); }
  static type set1(double v) { return _mm512_set1_pd(v); }
  static type mul(type a, type b) { return _mm512_mul_pd(a, b); }
  static type add(type a, type b) { return _mm512_add_pd(a, b); }
  static type fnmadd(type a, type b, type c) { return _mm512_fnmadd_pd(a, b, c); }
  /// r[i] holds row i of an 8 x 8 block; on return r[j] holds column j.
  static void transpose(type (&r)[8]) {
    type a[8];
    // a[2p + m], quarter L: column 2L + m, rows 2p, 2p + 1.
    for (int p = 0; p < 4; ++p) {
      a[2 * p] = _mm512_unpacklo_pd(r[2 * p], r[2 * p + 1]);
      a[2 * p + 1] = _mm512_unpackhi_pd(r[2 * p], r[2 * p + 1]);
    }
    const auto shuf = [](type x, type y, auto imm) { return _mm512_shuffle_f64x2(x, y, decltype(imm)::value); };
    for (int m = 0; m < 2; ++m) transpose_quarters(a[m], a[2 + m], a[4 + m], a[6 + m], r + m, 2, shuf);
  }
};

#elif defined(__AVX2__) && defined(__FMA__)
inline constexpr bool register_vectors_usable = true;

/// Lane i of the mask set where lo <= i < hi (maskload / maskstore read the top bits).
inline __m256i lane_mask32(int lo, int hi) {
  const __m256i i = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_and_si256(_mm256_cmpgt_epi32(i, _mm256_set1_epi32(lo - 1)),
                          _mm256_cmpgt_epi32(_mm256_set1_epi32(hi), i));
}
inline __m256i lane_mask64(int lo, int hi) {
  const __m256i i = _mm256_setr_epi64x(0, 1, 2, 3);
  return _mm256_and_si256(_mm256_cmpgt_epi64(i, _mm256_set1_epi64x(lo - 1)),
                          _mm256_cmpgt_epi64(_mm256_set1_epi64x(hi), i));
}

template <class T>
struct Vec;
template <>
struct Vec<float> {
  using type = __m256;
  static constexpr int lanes = 8;
  static type load(const float* p) { return _mm256_loadu_ps(p); }
  static type load(int lo, int hi, const float* p) { return _mm256_maskload_ps(p, lane_mask32(lo, hi)); }
  static void store(float* p, type v) { _mm256_storeu_ps(p, v); }
  static void store(int lo, int hi, float* p, type v) { _mm256_maskstore_ps(p, lane_mask32(lo, hi), v); }
  static void stream(float* p, type v) { _mm256_stream_ps(p, v); }
  static type set1(float v) { return _mm256_set1_ps(v); }
  static type mul(type a, type b) { return _mm256_mul_ps(a, b); }
  static type add(type a, type b) { return _mm256_add_ps(a, b); }
  static type fnmadd(type a, type b, type c) { return _mm256_fnmadd_ps(a, b, c); }
  /// r[i] holds row i of an 8 x 8 block; on return r[j] holds column j.
  static void transpose(type (&r)[8]) {
    type t[8], u[8];
    for (int p = 0; p < 4; ++p) {
      t[2 * p] = _mm256_unpacklo_ps(r[2 * p], r[2 * p + 1]);
      t[2 * p + 1] = _mm256_unpackhi_ps(r[2 * p], r[2 * p + 1]);
    }
    // u[4h + m]: columns m and 4 + m (one per 128-bit half), rows 4h .. 4h + 3.
    for (int h = 0; h < 2; ++h) {
      const type* s = t + 4 * h;
      u[4 * h + 0] = _mm256_shuffle_ps(s[0], s[2], _MM_SHUFFLE(1, 0, 1, 0));
      u[4 * h + 1] = _mm256_shuffle_ps(s[0], s[2], _MM_SHUFFLE(3, 2, 3, 2));
      u[4 * h + 2] = _mm256_shuffle_ps(s[1], s[3], _MM_SHUFFLE(1, 0, 1, 0));
      u[4 * h + 3] = _mm256_shuffle_ps(s[1], s[3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int m = 0; m < 4; ++m) {
      r[m] = _mm256_permute2f128_ps(u[m], u[4 + m], 0x20);
      r[4 + m] = _mm256_permute2f128_ps(u[m], u[4 + m], 0x31);
    }
  }
};
template <>
struct Vec<double> {
  using type = __m256d;
  static constexpr int lanes = 4;
  static type load(const double* p) { return _mm256_loadu_pd(p); }
  static type load(int lo, int hi, const double* p) { return _mm256_maskload_pd(p, lane_mask64(lo, hi)); }
  static void store(double* p, type v) { _mm256_storeu_pd(p, v); }
  static void store(int lo, int hi, double* p, type v) { _mm256_maskstore_pd(p, lane_mask64(lo, hi), v); }
  static void stream(double* p, type v) { _mm256_stream_pd(p, v); }
  static type set1(double v) { return _mm256_set1_pd(v); }
  static type mul(type a, type b) { return _mm256_mul_pd(a, b); }
  static type add(type a, type b) { return _mm256_add_pd(a, b); }
  static type fnmadd(type a, type b, type c) { return _mm256_fnmadd_pd(a, b, c); }
  /// r[i] holds row i of a 4 x 4 block; on return r[j] holds column j.
  static void transpose(type (&r)[4]) {
    const type t0 = _mm256_unpacklo_pd(r[0], r[1]), t1 = _mm256_unpackhi_pd(r[0], r[1]);
    const type t2 = _mm256_unpacklo_pd(r[2], r[3]), t3 = _mm256_unpackhi_pd(r[2], r[3]);
    r[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
    r[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
    r[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
    r[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
  }
};

#elif defined(__SSE2__)
inline constexpr bool register_vectors_usable = true;

/// SSE2 has no masked loads or stores: the rows of a partial run go through a buffer one by one.
/// Reg: the register's whole-run aligned load and store (Vec<T> below).
template <class T, class Reg>
struct PartsByBuffer {
  struct Buffer {
    alignas(16) T v[16 / sizeof(T)] = {};
  };
  static auto load(int lo, int hi, const T* p) {
    Buffer b;
    for (int i = lo; i < hi; ++i) b.v[i] = p[i];
    return Reg::load_aligned(b.v);
  }
  template <class V>
  static void store(int lo, int hi, T* p, V v) {
    Buffer b;
    Reg::store_aligned(b.v, v);
    for (int i = lo; i < hi; ++i) p[i] = b.v[i];
  }
};

template <class T>
struct Vec;
template <>
struct Vec<float> : PartsByBuffer<float, Vec<float>> {
  using type = __m128;
  static constexpr int lanes = 4;
  using PartsByBuffer::load;
  using PartsByBuffer::store;
  static type load_aligned(const float* p) { return _mm_load_ps(p); }
  static void store_aligned(float* p, type v) { _mm_store_ps(p, v); }
  static type load(const float* p) { return _mm_loadu_ps(p); }
  static void store(float* p, type v) { _mm_storeu_ps(p, v); }
  static void stream(float* p, type v) { _mm_stream_ps(p, v); }
  static type set1(float v) { return _mm_set1_ps(v); }
  static type mul(type a, type b) { return _mm_mul_ps(a, b); }
  static type add(type a, type b) { return _mm_add_ps(a, b); }
  static type fnmadd(type a, type b, type c) { return _mm_sub_ps(c, _mm_mul_ps(a, b)); }
  static void transpose(type (&r)[4]) { _MM_TRANSPOSE4_PS(r[0], r[1], r[2], r[3]); }
};
template <>
struct Vec<double> : PartsByBuffer<double, Vec<double>> {
  using type = __m128d;
  static constexpr int lanes = 2;
  using PartsByBuffer::load;
  using PartsByBuffer::store;
  static type load_aligned(const double* p) { return _mm_load_pd(p); }
  static void store_aligned(double* p, type v) { _mm_store_pd(p, v); }
  static type load(const double* p) { return _mm_loadu_pd(p); }
  static void store(double* p, type v) { _mm_storeu_pd(p, v); }
  static void stream(double* p, type v) { _mm_stream_pd(p, v); }
  static type set1(double v) { return _mm_set1_pd(v); }
  static type mul(type a, type b) { return _mm_mul_pd(a, b); }
  static type add(type a, type b) { return _mm_add_pd(a, b); }
  static type fnmadd(type a, type b, type c) { return _mm_sub_pd(c, _mm_mul_pd(a, b)); }
  static void transpose(type (&r)[2]) {
    const type t0 = _mm_unpacklo_pd(r[0], r[1]), t1 = _mm_unpackhi_pd(r[0], r[1]);
    r[0] = t0;
    r[1] = t1;
  }
};

#else
inline constexpr bool register_vectors_usable = false;
#endif

#pragma GCC diagnostic pop

}  // namespace triax::detail::cpu_factored::TRIAX_FACTORED_ISA
