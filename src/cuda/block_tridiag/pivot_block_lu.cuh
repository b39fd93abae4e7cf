#pragma once
// The pivot block's LU without pivoting, as one thread holds it in registers
// (cuda_block_thread_thomas): factor once per block row, then solve each right-hand side. Host
// and device, so that the tests check it on the host against a long double elimination.
#include <cmath>
#include <cstdint>

#include "core/problem.hpp"  // TRIAX_HOST_DEVICE

namespace triax::detail::cuda {

/// A pivot breaks down when it is zero or not finite (as on the CPU); both block kernels test it.
template <class T>
TRIAX_HOST_DEVICE inline bool pivot_usable(T v) {
#if defined(__CUDA_ARCH__)
  return isfinite(v) && v != T(0);
#else
  return std::isfinite(v) && v != T(0);
#endif
}

namespace block_thread {

/// Factors lu = L U in place without pivoting: L (unit lower) below the diagonal, U above it,
/// and on the diagonal the reciprocals of U's (which is all the solves need of it, and saves
/// the registers of a separate array). Checked mode: a zero or non-finite pivot sets breakdown
/// to row + 1 (the first one only).
template <class T, int M, bool Checked>
TRIAX_HOST_DEVICE inline void factor(T (&lu)[M][M], std::int64_t row, int& breakdown) {
#pragma unroll
  for (int k = 0; k < M; ++k) {
    if (Checked && breakdown == 0 && !pivot_usable(lu[k][k])) {
      breakdown = static_cast<int>(row + 1);
    }
    lu[k][k] = T(1) / lu[k][k];
#pragma unroll
    for (int r = k + 1; r < M; ++r) {
      const T l = lu[r][k] * lu[k][k];
      lu[r][k] = l;
#pragma unroll
      for (int c = k + 1; c < M; ++c) lu[r][c] -= l * lu[k][c];
    }
  }
}

/// Solves L U y = y in place with factor()'s result.
template <class T, int M>
TRIAX_HOST_DEVICE inline void lu_solve(const T (&lu)[M][M], T (&y)[M]) {
#pragma unroll
  for (int r = 1; r < M; ++r) {
#pragma unroll
    for (int k = 0; k < r; ++k) y[r] -= lu[r][k] * y[k];
  }
#pragma unroll
  for (int k = M - 1; k >= 0; --k) {
#pragma unroll
    for (int q = k + 1; q < M; ++q) y[k] -= lu[k][q] * y[q];
    y[k] *= lu[k][k];
  }
}

}  // namespace block_thread
}  // namespace triax::detail::cuda
