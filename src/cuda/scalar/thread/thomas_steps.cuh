#pragma once
// The Thomas steps one thread runs on its own system, shared by every thread-per-system kernel:
// the kernels differ only in how rows reach the thread's registers (read at the row stride,
// through a shared-memory transpose, through a shuffle transpose) and how results leave them.
// c' and d' go to a workspace interleaved by system: row i of system s at i * count + s, so the
// threads of a warp (neighbouring systems) touch neighbouring addresses.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/pivot_reciprocal.cuh"
#include "cuda/row_scale.cuh"

namespace triax::detail::cuda {

/// The forward elimination's running state of one system.
template <class T, bool Checked>
struct ThomasForward {
  T cp = 0;       // c' of the previous row
  T dp = 0;       // d' of the previous row
  T scale = 1;    // the power of two every row is multiplied by (row_scale.cuh), from row 0
  int info = 0;   // checked mode: 1 + first row whose pivot or d' broke down, 0 if none

  /// Eliminates row i: a, b, c, d are its coefficients, with a = 0 on row 0 and c = 0 on the
  /// last row (the caller never reads a[0] or c[n-1]). Leaves c'_i, d'_i in cp, dp.
  __device__ __forceinline__ void step(T a, T b, T c, T d, std::int64_t i) {
    // Every row is scaled by the power of two that row 0's b sets (1 for b within 2^+-64 in
    // float, 2^+-512 in double): a system scaled by 2^k is then solved as the system itself,
    // where 1 / m would overflow for subnormal pivots and products of subnormal coefficients
    // lose their bits. c' and d' do not depend on the scale.
    if (i == 0) scale = row_scale(b);
    a *= scale;
    b *= scale;
    c *= scale;
    d *= scale;
    const T m = b - a * cp;
    // Not the division: 1 / m is 0 for an infinite pivot (an infinite b, or b - a c'
    // overflowing), which gave c' = d' = 0 and split the system silently. reciprocal_or_nan
    // gives NaN for zero, subnormal, infinite and NaN pivots and for pivots past 2^126 / 2^1022
    // (which the scaling leaves only to rows far out of scale with row 0): the breakdown shows
    // in x, and checked mode reports it at this row. Checked mode's Thomas check of the hybrid
    // (hybrid_kernel.cuh) thereby uses the reciprocal the hybrid's sweeps use.
    const T r = reciprocal_or_nan(m);
    cp = c * r;
    dp = (d - a * dp) * r;
    if (Checked && info == 0 && !(m != T(0) && isfinite(m) && isfinite(dp))) {
      info = static_cast<int>(i + 1);
    }
  }
};

/// The back substitution's running state of one system, from the last row up.
template <class T, bool Checked>
struct ThomasBackward {
  T next = 0;    // x of the row below (0 below the last row, where c' = 0 anyway)
  int info = 0;  // checked mode: 1 + last row whose stored result is not finite, 0 if none

  /// x_i from c'_i and d'_i.
  __device__ __forceinline__ T step(T cp, T dp) {
    next = dp - cp * next;
    return next;
  }
  /// Checked mode: notes row i's stored value (x, or x added to the old output).
  __device__ __forceinline__ void check(T stored, std::int64_t i) {
    if (Checked && info == 0 && !isfinite(stored)) info = static_cast<int>(i + 1);
  }
};

/// Checked mode's info of one system: the forward breakdown, else the backward one.
template <class T, bool Checked>
__device__ __forceinline__ int thomas_info(const ThomasForward<T, Checked>& f,
                                           const ThomasBackward<T, Checked>& b) {
  return f.info != 0 ? f.info : b.info;
}

}  // namespace triax::detail::cuda
