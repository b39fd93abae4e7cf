#pragma once
// Register transposes of small square blocks (2 x 2 doubles, 4 x 4 floats: one 16-byte vector
// per row) written with the GCC/Clang vector extensions, which every target lowers to its own
// shuffles (SSE2, NEON, ...): the local transpose of paper 000, section 5, without ISA
// intrinsics.

#include <cstdint>

#ifndef TRIAX_CPU_ISA
#error "kernel headers are included through cpu/solve_batch.inc, which names the instruction set"
#endif

namespace triax::detail::cpu::TRIAX_CPU_ISA {

// Attributes on a dependent alias are dropped by GCC, so each vector type is spelled out. The
// _u types are the same vectors aligned only to their element, for loads and stores at any row.
typedef double double2_t __attribute__((vector_size(16)));
typedef float float4_t __attribute__((vector_size(16)));
typedef double double2_u __attribute__((vector_size(16), aligned(8)));
typedef float float4_u __attribute__((vector_size(16), aligned(4)));

template <class T>
struct Vec16;
template <>
struct Vec16<double> {
  static constexpr int lanes = 2;
  using type = double2_t;
  using unaligned = double2_u;
};
template <>
struct Vec16<float> {
  static constexpr int lanes = 4;
  using type = float4_t;
  using unaligned = float4_u;
};

// Typed vector accesses rather than memcpy: a memcpy may alias anything, which would make the
// compiler reload every row pointer after each store.
template <class T>
inline typename Vec16<T>::type load16(const T* p) {
  return *reinterpret_cast<const typename Vec16<T>::unaligned*>(p);
}

template <class T>
inline void store16(T* p, typename Vec16<T>::type v) {
  *reinterpret_cast<typename Vec16<T>::unaligned*>(p) = v;
}

/// Transposes a V x V block in registers: in[k] is row k; on return in[k] is column k.
inline void transpose_block(Vec16<double>::type (&v)[2]) {
#if defined(__clang__)
  const auto lo = __builtin_shufflevector(v[0], v[1], 0, 2);
  const auto hi = __builtin_shufflevector(v[0], v[1], 1, 3);
#else
  using Index = std::int64_t __attribute__((vector_size(16)));
  const auto lo = __builtin_shuffle(v[0], v[1], Index{0, 2});
  const auto hi = __builtin_shuffle(v[0], v[1], Index{1, 3});
#endif
  v[0] = lo;
  v[1] = hi;
}

inline void transpose_block(Vec16<float>::type (&v)[4]) {
#if defined(__clang__)
  const auto t0 = __builtin_shufflevector(v[0], v[1], 0, 4, 1, 5);
  const auto t1 = __builtin_shufflevector(v[0], v[1], 2, 6, 3, 7);
  const auto t2 = __builtin_shufflevector(v[2], v[3], 0, 4, 1, 5);
  const auto t3 = __builtin_shufflevector(v[2], v[3], 2, 6, 3, 7);
  v[0] = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
  v[1] = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
  v[2] = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
  v[3] = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
#else
  using Index = std::int32_t __attribute__((vector_size(16)));
  const auto t0 = __builtin_shuffle(v[0], v[1], Index{0, 4, 1, 5});
  const auto t1 = __builtin_shuffle(v[0], v[1], Index{2, 6, 3, 7});
  const auto t2 = __builtin_shuffle(v[2], v[3], Index{0, 4, 1, 5});
  const auto t3 = __builtin_shuffle(v[2], v[3], Index{2, 6, 3, 7});
  v[0] = __builtin_shuffle(t0, t2, Index{0, 1, 4, 5});
  v[1] = __builtin_shuffle(t0, t2, Index{2, 3, 6, 7});
  v[2] = __builtin_shuffle(t1, t3, Index{0, 1, 4, 5});
  v[3] = __builtin_shuffle(t1, t3, Index{2, 3, 6, 7});
#endif
}

/// Reads rows [0, rows) of W systems (system j at src[j], contiguous rows) into
/// tile[r * W + j]; rows is a multiple of the vector length.
template <class T, int W>
inline void load_transposed(const T* const* src, int rows, T* __restrict tile) {
  constexpr int V = Vec16<T>::lanes;
  for (int jb = 0; jb < W; jb += V) {
    const T* in[V];
    for (int k = 0; k < V; ++k) in[k] = src[jb + k];
    T* out = tile + jb;
    for (int rb = 0; rb < rows; rb += V) {
      typename Vec16<T>::type v[V];
      for (int k = 0; k < V; ++k) v[k] = load16(in[k] + rb);
      transpose_block(v);
      for (int k = 0; k < V; ++k) store16(out + (rb + k) * W, v[k]);
    }
  }
}

/// Writes (or adds) tile[r * W + j] to rows [0, rows) of W systems (system j at dst[j]); rows
/// is a multiple of the vector length.
template <bool Accumulate, class T, int W>
inline void store_transposed(const T* __restrict tile, int rows, T* const* dst) {
  constexpr int V = Vec16<T>::lanes;
  for (int jb = 0; jb < W; jb += V) {
    T* out[V];
    for (int k = 0; k < V; ++k) out[k] = dst[jb + k];
    const T* in = tile + jb;
    for (int rb = 0; rb < rows; rb += V) {
      typename Vec16<T>::type v[V];
      for (int k = 0; k < V; ++k) v[k] = load16(in + (rb + k) * W);
      transpose_block(v);
      for (int k = 0; k < V; ++k) {
        store16(out[k] + rb, Accumulate ? load16(out[k] + rb) + v[k] : v[k]);
      }
    }
  }
}

}  // namespace triax::detail::cpu::TRIAX_CPU_ISA
