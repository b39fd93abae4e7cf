#pragma once
// Register transposes of small square blocks (one vector per row: 4 x 4 floats; 2 x 2 doubles,
// or 4 x 4 where AVX gives 32-byte vectors) written with the GCC/Clang vector extensions, which
// every target lowers to its own shuffles (SSE2, AVX, NEON, ...): the local transpose of paper
// 000, section 5, without ISA intrinsics (streaming stores excepted, with a plain fallback).

#include <cstdint>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#ifndef TRIAX_CPU_ISA
#error "kernel headers are included through cpu/solve_batch.inc, which names the instruction set"
#endif

namespace triax::detail::cpu::TRIAX_CPU_ISA {

// Attributes on a dependent alias are dropped by GCC, so each vector type is spelled out. The
// _u types are the same vectors aligned only to their element, for loads and stores at any row.
typedef float float4_t __attribute__((vector_size(16)));
typedef float float4_u __attribute__((vector_size(16), aligned(4)));
#if defined(__AVX__)
typedef double double_v __attribute__((vector_size(32)));
typedef double double_u __attribute__((vector_size(32), aligned(8)));
#else
typedef double double_v __attribute__((vector_size(16)));
typedef double double_u __attribute__((vector_size(16), aligned(8)));
#endif

template <class T>
struct Vec;
template <>
struct Vec<double> {
  static constexpr int bytes = sizeof(double_v);
  static constexpr int lanes = bytes / sizeof(double);
  using type = double_v;
  using unaligned = double_u;
};
template <>
struct Vec<float> {
  static constexpr int bytes = 16;
  static constexpr int lanes = 4;
  using type = float4_t;
  using unaligned = float4_u;
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

/// A vector store past the caches (p aligned to the vector); a plain store without SSE2.
template <class T>
inline void stream_vec(T* p, typename Vec<T>::type v) {
#if defined(__AVX__)
  if constexpr (Vec<T>::bytes == 32) {
    _mm256_stream_pd(reinterpret_cast<double*>(p), reinterpret_cast<__m256d>(v));
    return;
  }
#endif
#if defined(__SSE2__)
  if constexpr (Vec<T>::bytes == 16 && sizeof(T) == 8) {
    _mm_stream_pd(reinterpret_cast<double*>(p), reinterpret_cast<__m128d>(v));
  } else if constexpr (Vec<T>::bytes == 16) {
    _mm_stream_ps(reinterpret_cast<float*>(p), reinterpret_cast<__m128>(v));
  }
#else
  store_vec(p, v);
#endif
}

#if defined(__clang__)
#define TRIAX_SHUFFLE(a, b, index_type, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#else
#define TRIAX_SHUFFLE(a, b, index_type, ...) __builtin_shuffle(a, b, index_type{__VA_ARGS__})
#endif

/// Transposes a V x V block in registers: v[k] is row k; on return v[k] is column k.
#if defined(__AVX__)
inline void transpose_block(double_v (&v)[4]) {
  using Index = std::int64_t __attribute__((vector_size(32)));
  const double_v t0 = TRIAX_SHUFFLE(v[0], v[1], Index, 0, 4, 2, 6);
  const double_v t1 = TRIAX_SHUFFLE(v[0], v[1], Index, 1, 5, 3, 7);
  const double_v t2 = TRIAX_SHUFFLE(v[2], v[3], Index, 0, 4, 2, 6);
  const double_v t3 = TRIAX_SHUFFLE(v[2], v[3], Index, 1, 5, 3, 7);
  v[0] = TRIAX_SHUFFLE(t0, t2, Index, 0, 1, 4, 5);
  v[1] = TRIAX_SHUFFLE(t1, t3, Index, 0, 1, 4, 5);
  v[2] = TRIAX_SHUFFLE(t0, t2, Index, 2, 3, 6, 7);
  v[3] = TRIAX_SHUFFLE(t1, t3, Index, 2, 3, 6, 7);
}
#else
inline void transpose_block(double_v (&v)[2]) {
  using Index = std::int64_t __attribute__((vector_size(16)));
  const double_v lo = TRIAX_SHUFFLE(v[0], v[1], Index, 0, 2);
  const double_v hi = TRIAX_SHUFFLE(v[0], v[1], Index, 1, 3);
  v[0] = lo;
  v[1] = hi;
}
#endif

inline void transpose_block(float4_t (&v)[4]) {
  using Index = std::int32_t __attribute__((vector_size(16)));
  const float4_t t0 = TRIAX_SHUFFLE(v[0], v[1], Index, 0, 4, 1, 5);
  const float4_t t1 = TRIAX_SHUFFLE(v[0], v[1], Index, 2, 6, 3, 7);
  const float4_t t2 = TRIAX_SHUFFLE(v[2], v[3], Index, 0, 4, 1, 5);
  const float4_t t3 = TRIAX_SHUFFLE(v[2], v[3], Index, 2, 6, 3, 7);
  v[0] = TRIAX_SHUFFLE(t0, t2, Index, 0, 1, 4, 5);
  v[1] = TRIAX_SHUFFLE(t0, t2, Index, 2, 3, 6, 7);
  v[2] = TRIAX_SHUFFLE(t1, t3, Index, 0, 1, 4, 5);
  v[3] = TRIAX_SHUFFLE(t1, t3, Index, 2, 3, 6, 7);
}

#undef TRIAX_SHUFFLE

/// Reads rows [0, rows) of W systems (system j at src[j], contiguous rows) into
/// tile[r * W + j]; rows is a multiple of the vector length.
template <class T, int W>
inline void load_transposed(const T* const* src, int rows, T* __restrict tile) {
  constexpr int V = Vec<T>::lanes;
  for (int jb = 0; jb < W; jb += V) {
    const T* in[V];
    for (int k = 0; k < V; ++k) in[k] = src[jb + k];
    T* out = tile + jb;
    for (int rb = 0; rb < rows; rb += V) {
      typename Vec<T>::type v[V];
      for (int k = 0; k < V; ++k) v[k] = load_vec(in[k] + rb);
      transpose_block(v);
      for (int k = 0; k < V; ++k) store_vec(out + (rb + k) * W, v[k]);
    }
  }
}

/// Writes (or adds) tile[r * W + j] to rows [0, rows) of W systems (system j at dst[j]); rows
/// is a multiple of the vector length. Stream: store past the caches (every dst[j] aligned
/// to the vector).
template <bool Accumulate, bool Stream, class T, int W>
inline void store_transposed(const T* __restrict tile, int rows, T* const* dst) {
  constexpr int V = Vec<T>::lanes;
  for (int jb = 0; jb < W; jb += V) {
    T* out[V];
    for (int k = 0; k < V; ++k) out[k] = dst[jb + k];
    const T* in = tile + jb;
    for (int rb = 0; rb < rows; rb += V) {
      typename Vec<T>::type v[V];
      for (int k = 0; k < V; ++k) v[k] = load_vec(in + (rb + k) * W);
      transpose_block(v);
      for (int k = 0; k < V; ++k) {
        if constexpr (Stream) {
          stream_vec(out[k] + rb, v[k]);
        } else {
          store_vec(out[k] + rb, Accumulate ? load_vec(out[k] + rb) + v[k] : v[k]);
        }
      }
    }
  }
}

}  // namespace triax::detail::cpu::TRIAX_CPU_ISA
