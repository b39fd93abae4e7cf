#pragma once
// Register transposes of small square blocks, one vector per row (2 x 2 doubles and 4 x 4
// floats with 16-byte vectors; 4 x 4 doubles and 8 x 8 floats where AVX gives 32-byte vectors):
// the local transpose of paper 000, section 5. The shuffles are GCC/Clang vector extensions,
// which every target lowers to its own instructions; with AVX the 16-byte halves of a register
// are loaded and stored with intrinsics (see load_halves).

#include <cstdint>

#if defined(__AVX__)
#include <immintrin.h>
#endif

#ifndef TRIAX_CPU_ISA
#error "kernel headers are included through cpu/solve_batch.inc, which names the instruction set"
#endif

namespace triax::detail::cpu::TRIAX_CPU_ISA {

// Attributes on a dependent alias are dropped by GCC, so each vector type is spelled out. The
// _u types are the same vectors aligned only to their element, for loads and stores at any row.
#if defined(__AVX__)
typedef float float_v __attribute__((vector_size(32)));
typedef float float_u __attribute__((vector_size(32), aligned(4)));
typedef double double_v __attribute__((vector_size(32)));
typedef double double_u __attribute__((vector_size(32), aligned(8)));
#else
typedef float float_v __attribute__((vector_size(16)));
typedef float float_u __attribute__((vector_size(16), aligned(4)));
typedef double double_v __attribute__((vector_size(16)));
typedef double double_u __attribute__((vector_size(16), aligned(8)));
#endif
// The integer vectors of the same width, for the bits of a float or double vector.
typedef std::int32_t float_bits_v __attribute__((vector_size(sizeof(float_v))));
typedef std::int64_t double_bits_v __attribute__((vector_size(sizeof(double_v))));

template <class T>
struct Vec;
template <>
struct Vec<double> {
  static constexpr int bytes = sizeof(double_v);
  static constexpr int lanes = bytes / sizeof(double);
  using type = double_v;
  using unaligned = double_u;
  using bits = double_bits_v;
};
template <>
struct Vec<float> {
  static constexpr int bytes = sizeof(float_v);
  static constexpr int lanes = bytes / sizeof(float);
  using type = float_v;
  using unaligned = float_u;
  using bits = float_bits_v;
};

// Typed vector accesses rather than memcpy: a memcpy may alias anything, which would make the
// compiler reload every row pointer after each store.
template <class T>
inline typename Vec<T>::type load_vec(const T* p) {
  return *reinterpret_cast<const typename Vec<T>::unaligned*>(p);
}

template <class T>
inline void store_vec(T* p, typename Vec<T>::type v) {
  *reinterpret_cast<typename Vec<T>::unaligned*>(p) = v;
}

#if defined(__clang__)
#define TRIAX_SHUFFLE(a, b, index_type, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#else
#define TRIAX_SHUFFLE(a, b, index_type, ...) __builtin_shuffle(a, b, index_type{__VA_ARGS__})
#endif

#if defined(__AVX__)
// With 32-byte vectors the data never moves between the two 16-byte halves of a register: each
// half is loaded from (or stored to) its own system, and the shuffles stay within halves. A
// whole-register V x V transpose needs shuffles across the halves (vperm2f128, vpermpd), which
// AMD's first Zen cores split into 3 to 8 micro-ops each; loading or storing a half takes a load
// or store port and at most one cheap insert or extract.

/// Two 16-byte pieces as one vector: lo in elements [0, V/2), hi in [V/2, V).
inline float_v load_halves(const float* lo, const float* hi) {
  return reinterpret_cast<float_v>(
      _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(lo)), _mm_loadu_ps(hi), 1));
}
inline double_v load_halves(const double* lo, const double* hi) {
  return reinterpret_cast<double_v>(
      _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(lo)), _mm_loadu_pd(hi), 1));
}
inline void store_halves(float* lo, float* hi, float_v v) {
  const __m256 r = reinterpret_cast<__m256>(v);
  _mm_storeu_ps(lo, _mm256_castps256_ps128(r));
  _mm_storeu_ps(hi, _mm256_extractf128_ps(r, 1));
}
inline void store_halves(double* lo, double* hi, double_v v) {
  const __m256d r = reinterpret_cast<__m256d>(v);
  _mm_storeu_pd(lo, _mm256_castpd256_pd128(r));
  _mm_storeu_pd(hi, _mm256_extractf128_pd(r, 1));
}

/// Transposes the 4 x 4 block in each half of four float vectors (v[k] holds row k of both).
inline void transpose_halves(float_v (&v)[4]) {
  using Index = std::int32_t __attribute__((vector_size(32)));
  const float_v t0 = TRIAX_SHUFFLE(v[0], v[1], Index, 0, 8, 1, 9, 4, 12, 5, 13);
  const float_v t1 = TRIAX_SHUFFLE(v[0], v[1], Index, 2, 10, 3, 11, 6, 14, 7, 15);
  const float_v t2 = TRIAX_SHUFFLE(v[2], v[3], Index, 0, 8, 1, 9, 4, 12, 5, 13);
  const float_v t3 = TRIAX_SHUFFLE(v[2], v[3], Index, 2, 10, 3, 11, 6, 14, 7, 15);
  v[0] = TRIAX_SHUFFLE(t0, t2, Index, 0, 1, 8, 9, 4, 5, 12, 13);
  v[1] = TRIAX_SHUFFLE(t0, t2, Index, 2, 3, 10, 11, 6, 7, 14, 15);
  v[2] = TRIAX_SHUFFLE(t1, t3, Index, 0, 1, 8, 9, 4, 5, 12, 13);
  v[3] = TRIAX_SHUFFLE(t1, t3, Index, 2, 3, 10, 11, 6, 7, 14, 15);
}
/// Transposes the 2 x 2 block in each half of two double vectors.
inline void transpose_halves(double_v (&v)[2]) {
  using Index = std::int64_t __attribute__((vector_size(32)));
  const double_v lo = TRIAX_SHUFFLE(v[0], v[1], Index, 0, 4, 2, 6);
  const double_v hi = TRIAX_SHUFFLE(v[0], v[1], Index, 1, 5, 3, 7);
  v[0] = lo;
  v[1] = hi;
}

/// v[r] = row first + r of the V systems whose rows start at in[0 .. V) (contiguous rows).
/// For each half of the rows (H = V / 2 rows), a vector is loaded with system k's H rows in its
/// low half and system k + H's in its high half; transposing within the halves turns that into
/// the H rows across systems 0 .. H - 1 (low half) and H .. V - 1 (high half). Both halves of
/// the rows of a system are loaded back to back: they share a cache line, which with systems a
/// power-of-two apart may be evicted by the other systems' loads in between (float, 4 KiB apart:
/// 52 ms against 42.5 for 1024x128x128 along x when all first halves came first).
template <class T>
inline void load_rows(const T* const* in, std::int64_t first, typename Vec<T>::type* v) {
  constexpr int H = Vec<T>::lanes / 2;
  typename Vec<T>::type h[2][H];
  for (int k = 0; k < H; ++k) {
    for (int q = 0; q < 2; ++q)
      h[q][k] = load_halves(in[k] + first + q * H, in[k + H] + first + q * H);
  }
  for (int q = 0; q < 2; ++q) {
    transpose_halves(h[q]);
    for (int k = 0; k < H; ++k) v[q * H + k] = h[q][k];
  }
}

/// load_rows' transposes undone: h[q][k] holds system k's rows q H .. q H + H - 1 in its low
/// half and system k + H's in its high half.
template <class T>
inline void untranspose_rows(const typename Vec<T>::type* v,
                             typename Vec<T>::type (&h)[2][Vec<T>::lanes / 2]) {
  constexpr int H = Vec<T>::lanes / 2;
  for (int q = 0; q < 2; ++q) {
    for (int k = 0; k < H; ++k) h[q][k] = v[q * H + k];
    transpose_halves(h[q]);
  }
}

/// One vector of untranspose_rows to its two systems' H rows at lo and hi (or added to them).
template <bool Accumulate, class T>
inline void store_half_rows(T* lo, T* hi, typename Vec<T>::type h) {
  if constexpr (Accumulate) h += load_halves(lo, hi);
  store_halves(lo, hi, h);
}

/// The inverse of load_rows: rows first .. first + V of the V systems out[0 .. V) from v (or
/// added to them); both halves of a system back to back, as load_rows reads them.
template <bool Accumulate, class T>
inline void store_rows(T* const* out, std::int64_t first, const typename Vec<T>::type* v) {
  constexpr int H = Vec<T>::lanes / 2;
  typename Vec<T>::type h[2][H];
  untranspose_rows<T>(v, h);
  for (int k = 0; k < H; ++k) {
    for (int q = 0; q < 2; ++q)
      store_half_rows<Accumulate, T>(out[k] + first + q * H, out[k + H] + first + q * H, h[q][k]);
  }
}

// The first `count` (< 16 bytes) elements of a 16-byte half, stored or loaded by plain 4- and
// 8-byte moves. (AVX-512 masked stores were tried: GCC fuses the high half's extract into a
// masked vextractf64x2 to memory, which faulted on the guard page past a row its mask left out,
// on the development VM's Zen 4.)
inline void store_first(float* p, __m128 v, int count) {
  if (count >= 2) {
    _mm_storel_pi(reinterpret_cast<__m64*>(p), v);
    if (count == 3) _mm_store_ss(p + 2, _mm_movehl_ps(v, v));
  } else {
    _mm_store_ss(p, v);
  }
}
inline void store_first(double* p, __m128d v, int /*count: 1*/) { _mm_store_sd(p, v); }
inline __m128 load_first(const float* p, int count) {
  if (count >= 2) {
    // loadl_pi, not load_sd through a double pointer: p is only float-aligned.
    const __m128 two = _mm_loadl_pi(_mm_setzero_ps(), reinterpret_cast<const __m64*>(p));
    return count == 3 ? _mm_movelh_ps(two, _mm_load_ss(p + 2)) : two;
  }
  return _mm_load_ss(p);
}
inline __m128d load_first(const double* p, int /*count: 1*/) { return _mm_load_sd(p); }
inline __m128 low_half(float_v v) { return _mm256_castps256_ps128(reinterpret_cast<__m256>(v)); }
inline __m128 high_half(float_v v) { return _mm256_extractf128_ps(reinterpret_cast<__m256>(v), 1); }
inline __m128d low_half(double_v v) { return _mm256_castpd256_pd128(reinterpret_cast<__m256d>(v)); }
inline __m128d high_half(double_v v) { return _mm256_extractf128_pd(reinterpret_cast<__m256d>(v), 1); }

/// store_rows for the first `rows` (< V) of the V rows in v: each system's rows past them are
/// left as they are (partial stores, store_first), so that systems shorter than a vector, and
/// the last rows of longer ones, leave through the transpose too.
template <bool Accumulate, class T>
inline void store_rows_first(T* const* out, std::int64_t first, const typename Vec<T>::type* v,
                             int rows) {
  constexpr int H = Vec<T>::lanes / 2;
  typename Vec<T>::type h[2][H];
  untranspose_rows<T>(v, h);
  for (int q = 0; q < 2; ++q) {
    const int count = rows - q * H < H ? rows - q * H : H;
    if (count <= 0) break;
    for (int k = 0; k < H; ++k) {
      T* lo = out[k] + first + q * H;
      T* hi = out[k + H] + first + q * H;
      if (count == H) {
        store_half_rows<Accumulate, T>(lo, hi, h[q][k]);
        continue;
      }
      auto l = low_half(h[q][k]);
      auto u = high_half(h[q][k]);
      if constexpr (Accumulate) {
        l = l + load_first(lo, count);
        u = u + load_first(hi, count);
      }
      store_first(lo, l, count);
      store_first(hi, u, count);
    }
  }
}
#define TRIAX_CPU_HAS_STORE_ROWS_FIRST 1

/// Rows one register transpose gives: the H = V / 2 rows of a half (load_group).
template <class T>
inline constexpr int group_rows = Vec<T>::lanes / 2;

/// v[k] = row first + k (k < H) of the V systems whose rows start at in[0 .. V): one 16-byte
/// piece of each system and one transpose within halves, for kernels that take rows straight
/// into their arithmetic.
template <class T>
inline void load_group(const T* const* in, std::int64_t first, typename Vec<T>::type* v) {
  constexpr int H = Vec<T>::lanes / 2;
  typename Vec<T>::type h[H];
  for (int k = 0; k < H; ++k) h[k] = load_halves(in[k] + first, in[k + H] + first);
  transpose_halves(h);
  for (int k = 0; k < H; ++k) v[k] = h[k];
}

/// The inverse of load_group: rows first .. first + H of the V systems out[0 .. V) from v (or
/// added to them).
template <bool Accumulate, class T>
inline void store_group(T* const* out, std::int64_t first, const typename Vec<T>::type* v) {
  constexpr int H = Vec<T>::lanes / 2;
  typename Vec<T>::type h[H];
  for (int k = 0; k < H; ++k) h[k] = v[k];
  transpose_halves(h);
  for (int k = 0; k < H; ++k) {
    store_half_rows<Accumulate, T>(out[k] + first, out[k + H] + first, h[k]);
  }
}
#else
/// Transposes a V x V block in registers: v[k] is row k; on return v[k] is column k.
inline void transpose_block(double_v (&v)[2]) {
  using Index = std::int64_t __attribute__((vector_size(16)));
  const double_v lo = TRIAX_SHUFFLE(v[0], v[1], Index, 0, 2);
  const double_v hi = TRIAX_SHUFFLE(v[0], v[1], Index, 1, 3);
  v[0] = lo;
  v[1] = hi;
}
inline void transpose_block(float_v (&v)[4]) {
  using Index = std::int32_t __attribute__((vector_size(16)));
  const float_v t0 = TRIAX_SHUFFLE(v[0], v[1], Index, 0, 4, 1, 5);
  const float_v t1 = TRIAX_SHUFFLE(v[0], v[1], Index, 2, 6, 3, 7);
  const float_v t2 = TRIAX_SHUFFLE(v[2], v[3], Index, 0, 4, 1, 5);
  const float_v t3 = TRIAX_SHUFFLE(v[2], v[3], Index, 2, 6, 3, 7);
  v[0] = TRIAX_SHUFFLE(t0, t2, Index, 0, 1, 4, 5);
  v[1] = TRIAX_SHUFFLE(t0, t2, Index, 2, 3, 6, 7);
  v[2] = TRIAX_SHUFFLE(t1, t3, Index, 0, 1, 4, 5);
  v[3] = TRIAX_SHUFFLE(t1, t3, Index, 2, 3, 6, 7);
}

/// v[r] = row first + r of the V systems whose rows start at in[0 .. V) (contiguous rows).
template <class T>
inline void load_rows(const T* const* in, std::int64_t first, typename Vec<T>::type* v) {
  constexpr int V = Vec<T>::lanes;
  typename Vec<T>::type b[V];
  for (int k = 0; k < V; ++k) b[k] = load_vec(in[k] + first);
  transpose_block(b);
  for (int k = 0; k < V; ++k) v[k] = b[k];
}

/// The inverse of load_rows: rows first .. first + V of the V systems out[0 .. V) from v (or
/// added to them).
template <bool Accumulate, class T>
inline void store_rows(T* const* out, std::int64_t first, const typename Vec<T>::type* v) {
  constexpr int V = Vec<T>::lanes;
  typename Vec<T>::type b[V];
  for (int k = 0; k < V; ++k) b[k] = v[k];
  transpose_block(b);
  for (int k = 0; k < V; ++k) {
    if constexpr (Accumulate) b[k] += load_vec(out[k] + first);
    store_vec(out[k] + first, b[k]);
  }
}

/// Without halves a group is the whole V x V block.
template <class T>
inline constexpr int group_rows = Vec<T>::lanes;
template <class T>
inline void load_group(const T* const* in, std::int64_t first, typename Vec<T>::type* v) {
  load_rows(in, first, v);
}
template <bool Accumulate, class T>
inline void store_group(T* const* out, std::int64_t first, const typename Vec<T>::type* v) {
  store_rows<Accumulate, T>(out, first, v);
}
#endif

#undef TRIAX_SHUFFLE

/// Reads rows [first, first + rows) of W systems (system j's row 0 at src[j], contiguous rows)
/// into tile[r * W + j]; rows is a multiple of the vector length.
template <class T, int W>
inline void load_transposed(const T* const* src, std::int64_t first, int rows, T* __restrict tile) {
  constexpr int V = Vec<T>::lanes;
  for (int jb = 0; jb < W; jb += V) {
    for (int rb = 0; rb < rows; rb += V) {
      typename Vec<T>::type v[V];
      load_rows(src + jb, first + rb, v);
      for (int k = 0; k < V; ++k) store_vec(tile + (rb + k) * W + jb, v[k]);
    }
  }
}

/// Writes (or adds) tile[r * W + j] to rows [first, first + rows) of W systems (system j's row 0
/// at dst[j]); rows is a multiple of the vector length.
template <bool Accumulate, class T, int W>
inline void store_transposed(const T* __restrict tile, int rows, T* const* dst,
                             std::int64_t first) {
  constexpr int V = Vec<T>::lanes;
  for (int jb = 0; jb < W; jb += V) {
    for (int rb = 0; rb < rows; rb += V) {
      typename Vec<T>::type v[V];
      for (int k = 0; k < V; ++k) v[k] = load_vec(tile + (rb + k) * W + jb);
      store_rows<Accumulate, T>(dst + jb, first + rb, v);
    }
  }
}

#if defined(TRIAX_CPU_HAS_STORE_ROWS_FIRST)
/// store_transposed for rows < V rows: the tile's V rows from `tile` are transposed and the first
/// `rows` of each system written (or added); the tile rows past them are read, not stored.
template <bool Accumulate, class T, int W>
inline void store_transposed_first(const T* __restrict tile, int rows, T* const* dst,
                                   std::int64_t first) {
  constexpr int V = Vec<T>::lanes;
  for (int jb = 0; jb < W; jb += V) {
    typename Vec<T>::type v[V];
    for (int k = 0; k < V; ++k) v[k] = load_vec(tile + k * W + jb);
    store_rows_first<Accumulate, T>(dst + jb, first, v, rows);
  }
}
#endif

}  // namespace triax::detail::cpu::TRIAX_CPU_ISA
