#pragma once
// Register transposes of small square blocks, one vector per row (2 x 2 doubles and 4 x 4
// floats with 16-byte vectors; 4 x 4 doubles and 8 x 8 floats where AVX gives 32-byte vectors),
// written with the GCC/Clang vector extensions, which every target lowers to its own shuffles
// (SSE2, AVX, NEON, ...): the local transpose of paper 000, section 5, without ISA intrinsics.

#include <cstdint>

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
  static constexpr int bytes = sizeof(float_v);
  static constexpr int lanes = bytes / sizeof(float);
  using type = float_v;
  using unaligned = float_u;
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

/// Transposes a V x V block in registers: v[k] is row k; on return v[k] is column k.
/// Four lanes (AVX doubles, SSE floats): interleave pairs of rows, then pairs of pairs.
template <class V, class Index>
inline void transpose4(V (&v)[4]) {
  const V t0 = TRIAX_SHUFFLE(v[0], v[1], Index, 0, 4, 1, 5);
  const V t1 = TRIAX_SHUFFLE(v[0], v[1], Index, 2, 6, 3, 7);
  const V t2 = TRIAX_SHUFFLE(v[2], v[3], Index, 0, 4, 1, 5);
  const V t3 = TRIAX_SHUFFLE(v[2], v[3], Index, 2, 6, 3, 7);
  v[0] = TRIAX_SHUFFLE(t0, t2, Index, 0, 1, 4, 5);
  v[1] = TRIAX_SHUFFLE(t0, t2, Index, 2, 3, 6, 7);
  v[2] = TRIAX_SHUFFLE(t1, t3, Index, 0, 1, 4, 5);
  v[3] = TRIAX_SHUFFLE(t1, t3, Index, 2, 3, 6, 7);
}

#if defined(__AVX__)
inline void transpose_block(double_v (&v)[4]) {
  transpose4<double_v, std::int64_t __attribute__((vector_size(32)))>(v);
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

#if defined(__AVX__)
inline void transpose_block(float_v (&v)[8]) {
  using Index = std::int32_t __attribute__((vector_size(32)));
  float_v t[8], u[8];
  for (int k = 0; k < 8; k += 2) {  // interleave pairs of rows
    t[k] = TRIAX_SHUFFLE(v[k], v[k + 1], Index, 0, 8, 1, 9, 4, 12, 5, 13);
    t[k + 1] = TRIAX_SHUFFLE(v[k], v[k + 1], Index, 2, 10, 3, 11, 6, 14, 7, 15);
  }
  for (int k = 0; k < 8; k += 4) {  // then pairs of pairs
    u[k] = TRIAX_SHUFFLE(t[k], t[k + 2], Index, 0, 1, 8, 9, 4, 5, 12, 13);
    u[k + 1] = TRIAX_SHUFFLE(t[k], t[k + 2], Index, 2, 3, 10, 11, 6, 7, 14, 15);
    u[k + 2] = TRIAX_SHUFFLE(t[k + 1], t[k + 3], Index, 0, 1, 8, 9, 4, 5, 12, 13);
    u[k + 3] = TRIAX_SHUFFLE(t[k + 1], t[k + 3], Index, 2, 3, 10, 11, 6, 7, 14, 15);
  }
  for (int k = 0; k < 4; ++k) {  // then the two 128-bit halves
    v[k] = TRIAX_SHUFFLE(u[k], u[k + 4], Index, 0, 1, 2, 3, 8, 9, 10, 11);
    v[k + 4] = TRIAX_SHUFFLE(u[k], u[k + 4], Index, 4, 5, 6, 7, 12, 13, 14, 15);
  }
}
#else
inline void transpose_block(float_v (&v)[4]) {
  transpose4<float_v, std::int32_t __attribute__((vector_size(16)))>(v);
}
#endif

#undef TRIAX_SHUFFLE

/// Reads rows [first, first + rows) of W systems (system j's row 0 at src[j], contiguous rows)
/// into tile[r * W + j]; rows is a multiple of the vector length.
template <class T, int W>
inline void load_transposed(const T* const* src, std::int64_t first, int rows,
                            T* __restrict tile) {
  constexpr int V = Vec<T>::lanes;
  for (int jb = 0; jb < W; jb += V) {
    const T* in[V];
    for (int k = 0; k < V; ++k) in[k] = src[jb + k] + first;
    T* out = tile + jb;
    for (int rb = 0; rb < rows; rb += V) {
      typename Vec<T>::type v[V];
      for (int k = 0; k < V; ++k) v[k] = load_vec(in[k] + rb);
      transpose_block(v);
      for (int k = 0; k < V; ++k) store_vec(out + (rb + k) * W, v[k]);
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
    T* out[V];
    for (int k = 0; k < V; ++k) out[k] = dst[jb + k] + first;
    const T* in = tile + jb;
    for (int rb = 0; rb < rows; rb += V) {
      typename Vec<T>::type v[V];
      for (int k = 0; k < V; ++k) v[k] = load_vec(in + (rb + k) * W);
      transpose_block(v);
      for (int k = 0; k < V; ++k) {
        store_vec(out[k] + rb, Accumulate ? load_vec(out[k] + rb) + v[k] : v[k]);
      }
    }
  }
}

}  // namespace triax::detail::cpu::TRIAX_CPU_ISA
