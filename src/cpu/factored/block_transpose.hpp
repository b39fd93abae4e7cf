#pragma once
// Transposed copies between systems whose rows are contiguous (axis 0) and the lane-major
// scratch of the factored kernel: out[r * out_pitch + c] = in[c * in_pitch + r]. Full B x B
// blocks (B = 8 floats or 4 doubles: one AVX register) go through registers with AVX2 (unpack,
// shuffle, 128-bit permute); the compiler's default target and the ragged edges copy element by
// element. Included by factored_lanes.hpp inside its instruction-set namespace.
#include <cstdint>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace triax::detail::cpu_factored::TRIAX_FACTORED_ISA {

template <class T>
inline constexpr int block_side = 32 / static_cast<int>(sizeof(T));

/// One full block_side x block_side block.
inline void transpose_block(const float* in, std::int64_t in_pitch, float* out,
                            std::int64_t out_pitch) {
#if defined(__AVX2__)
  __m256 v[8];
  for (int c = 0; c < 8; ++c) v[c] = _mm256_loadu_ps(in + c * in_pitch);
  const __m256 t0 = _mm256_unpacklo_ps(v[0], v[1]), t1 = _mm256_unpackhi_ps(v[0], v[1]);
  const __m256 t2 = _mm256_unpacklo_ps(v[2], v[3]), t3 = _mm256_unpackhi_ps(v[2], v[3]);
  const __m256 t4 = _mm256_unpacklo_ps(v[4], v[5]), t5 = _mm256_unpackhi_ps(v[4], v[5]);
  const __m256 t6 = _mm256_unpacklo_ps(v[6], v[7]), t7 = _mm256_unpackhi_ps(v[6], v[7]);
  const __m256 u0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 u1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
  const __m256 u2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 u3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
  const __m256 u4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 u5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
  const __m256 u6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0));
  const __m256 u7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
  _mm256_storeu_ps(out + 0 * out_pitch, _mm256_permute2f128_ps(u0, u4, 0x20));
  _mm256_storeu_ps(out + 1 * out_pitch, _mm256_permute2f128_ps(u1, u5, 0x20));
  _mm256_storeu_ps(out + 2 * out_pitch, _mm256_permute2f128_ps(u2, u6, 0x20));
  _mm256_storeu_ps(out + 3 * out_pitch, _mm256_permute2f128_ps(u3, u7, 0x20));
  _mm256_storeu_ps(out + 4 * out_pitch, _mm256_permute2f128_ps(u0, u4, 0x31));
  _mm256_storeu_ps(out + 5 * out_pitch, _mm256_permute2f128_ps(u1, u5, 0x31));
  _mm256_storeu_ps(out + 6 * out_pitch, _mm256_permute2f128_ps(u2, u6, 0x31));
  _mm256_storeu_ps(out + 7 * out_pitch, _mm256_permute2f128_ps(u3, u7, 0x31));
#else
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c) out[r * out_pitch + c] = in[c * in_pitch + r];
#endif
}

inline void transpose_block(const double* in, std::int64_t in_pitch, double* out,
                            std::int64_t out_pitch) {
#if defined(__AVX2__)
  const __m256d v0 = _mm256_loadu_pd(in), v1 = _mm256_loadu_pd(in + in_pitch);
  const __m256d v2 = _mm256_loadu_pd(in + 2 * in_pitch), v3 = _mm256_loadu_pd(in + 3 * in_pitch);
  const __m256d t0 = _mm256_unpacklo_pd(v0, v1), t1 = _mm256_unpackhi_pd(v0, v1);
  const __m256d t2 = _mm256_unpacklo_pd(v2, v3), t3 = _mm256_unpackhi_pd(v2, v3);
  _mm256_storeu_pd(out, _mm256_permute2f128_pd(t0, t2, 0x20));
  _mm256_storeu_pd(out + out_pitch, _mm256_permute2f128_pd(t1, t3, 0x20));
  _mm256_storeu_pd(out + 2 * out_pitch, _mm256_permute2f128_pd(t0, t2, 0x31));
  _mm256_storeu_pd(out + 3 * out_pitch, _mm256_permute2f128_pd(t1, t3, 0x31));
#else
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) out[r * out_pitch + c] = in[c * in_pitch + r];
#endif
}

/// out[r * out_pitch + c] = in[c * in_pitch + r] for r < rows, c < cols: full blocks through
/// transpose_block, the edges element by element.
template <class T>
inline void transpose_copy(const T* in, std::int64_t in_pitch, T* out, std::int64_t out_pitch,
                           std::int64_t rows, std::int64_t cols) {
  constexpr int B = block_side<T>;
  const std::int64_t rb = rows - rows % B, cb = cols - cols % B;
  for (std::int64_t c0 = 0; c0 < cb; c0 += B) {
    for (std::int64_t r0 = 0; r0 < rb; r0 += B) {
      transpose_block(in + c0 * in_pitch + r0, in_pitch, out + r0 * out_pitch + c0, out_pitch);
    }
    for (std::int64_t r = rb; r < rows; ++r)
      for (std::int64_t c = c0; c < c0 + B; ++c) out[r * out_pitch + c] = in[c * in_pitch + r];
  }
  for (std::int64_t c = cb; c < cols; ++c)
    for (std::int64_t r = 0; r < rows; ++r) out[r * out_pitch + c] = in[c * in_pitch + r];
}

}  // namespace triax::detail::cpu_factored::TRIAX_FACTORED_ISA
