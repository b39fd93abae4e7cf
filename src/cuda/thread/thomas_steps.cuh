#pragma once
// The Thomas steps one thread runs on its own system, shared by every thread-per-system kernel:
// the kernels differ only in how rows reach the thread's registers (read at the row stride,
// through a shared-memory transpose, through a shuffle transpose) and how results leave them.
// c' and d' go to a workspace interleaved by system: row i of system s at i * count + s, so the
// threads of a warp (neighbouring systems) touch neighbouring addresses.
#include <cuda_runtime.h>

#include <cstdint>

namespace triax::detail::cuda {

/// The forward elimination's running state of one system.
template <class T, bool Checked>
struct ThomasForward {
  T cp = 0;       // c' of the previous row
  T dp = 0;       // d' of the previous row
  int info = 0;   // checked mode: 1 + first row whose pivot or d' broke down, 0 if none

  /// Eliminates row i: a, b, c, d are its coefficients, with a = 0 on row 0 and c = 0 on the
  /// last row (the caller never reads a[0] or c[n-1]). Leaves c'_i, d'_i in cp, dp.
  __device__ __forceinline__ void step(T a, T b, T c, T d, std::int64_t i) {
    const T m = b - a * cp;
    const T r = T(1) / m;
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
