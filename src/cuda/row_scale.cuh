#pragma once
// Power-of-two scaling of a system's rows, so that the CUDA kernels solve a system multiplied by
// 2^k as they solve the system itself, for every k that keeps the inputs representable.
//
// An equation multiplied by a power of two is the same equation, and the product is exact while
// it stays normal. The kernels eliminate with reciprocals of pivots: the hybrid's approximate one
// (hybrid_math.cuh) flushes pivots below 2^-126 (float) / 2^-1022 (double) and returns 0 above
// 2^126 / 2^1022, and even a correctly rounded 1 / m overflows for subnormal m; products of
// subnormal coefficients keep only the bits above 2^-149 / 2^-1074. Scaling rows by the power of
// two that brings one diagonal entry into [1, 2) keeps every pivot and product of a well-scaled
// system in the middle of the range. Rows whose first diagonal entry already lies within
// 2^-window .. 2^window are left alone: the check is a few integer instructions per chunk (or
// per system), and the scaling itself runs only on the rare branch (docs/algorithms.md,
// "Breakdowns and the floating-point range (CUDA)").
#include <cuda_runtime.h>

namespace triax::detail::cuda {

template <class T>
struct ScaleRange;
template <>
struct ScaleRange<float> {
  static constexpr int bias = 127;          // exponent bias
  static constexpr int window = 64;         // unscaled while |b| in [2^-64, 2^65)
  static constexpr int min_exponent = -126; // of a normal float
  static constexpr int max_exponent = 127;
  /// The biased exponent of x (0 for zero and subnormals, 255 for inf and NaN).
  __device__ __forceinline__ static int biased_exponent(float x) {
    return (__float_as_int(x) >> 23) & 0xff;
  }
};
template <>
struct ScaleRange<double> {
  static constexpr int bias = 1023;
  static constexpr int window = 512;
  static constexpr int min_exponent = -1022;
  static constexpr int max_exponent = 1023;
  __device__ __forceinline__ static int biased_exponent(double x) {
    return (__double2hiint(x) >> 20) & 0x7ff;  // the high word holds sign and exponent
  }
};

/// Whether |b| lies outside [2^-window, 2^(window+1)): zero, subnormal, infinite and NaN b count
/// as outside (one subtraction and one unsigned comparison).
template <class T>
__device__ __forceinline__ bool outside_scale_window(T b) {
  using R = ScaleRange<T>;
  return static_cast<unsigned>(R::biased_exponent(b) - (R::bias - R::window)) >
         static_cast<unsigned>(2 * R::window);
}

/// The power of two that brings |b| into [1, 2), kept within the normal range (a subnormal b is
/// brought up to at least 2^-23 / 2^-52 of that); 1 for a zero, infinite or NaN b, where there is
/// nothing to scale by and the breakdown shows as before.
template <class T>
__device__ __forceinline__ T scale_towards_one(T b) {
  using R = ScaleRange<T>;
  if (b == T(0) || !isfinite(b)) return T(1);
  const int e = -ilogb(b);
  return ldexp(T(1), e < R::min_exponent ? R::min_exponent
                                         : (e > R::max_exponent ? R::max_exponent : e));
}

/// The factor for a system or chunk whose first diagonal entry is b: 1 inside the window, else
/// scale_towards_one(b).
template <class T>
__device__ __forceinline__ T row_scale(T b) {
  return outside_scale_window(b) ? scale_towards_one(b) : T(1);
}

}  // namespace triax::detail::cuda
