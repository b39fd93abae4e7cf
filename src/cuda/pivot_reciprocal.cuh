#pragma once
// 1 / pivot for every CUDA kernel: the hardware's approximate reciprocal refined by Newton steps,
// and the variant that turns a flushed reciprocal into NaN.
#include <cuda_runtime.h>

namespace triax::detail::cuda {

/// A quiet NaN of type T, for breakdowns that must show in x.
template <class T>
__device__ __forceinline__ T quiet_nan();
template <>
__device__ __forceinline__ float quiet_nan<float>() {
  return __int_as_float(0x7fc00000);
}
template <>
__device__ __forceinline__ double quiet_nan<double>() {
  return __longlong_as_double(0x7ff8000000000000LL);
}

/// 1 / x for the pivots of every kernel: the hardware's approximate reciprocal refined by Newton steps
/// (one in float, from at most 1 ulp off; two in double, from the coarser rcp.approx.ftz.f64;
/// within 1 ulp of 1 / x in both, tests/cuda/pivot_reciprocal_test.cu), instead of the
/// correctly rounded division, whose range checks and slow path cost instructions in every row
/// of a chunk's sweep. Where the kernel issues instructions about as fast as the memory delivers
/// rows (float along axes >= 1 at n >= 512) this gained 1-4 points of the copy; the bench's
/// errors against the reference stayed the same to two digits (docs/algorithms.md, "Pivot
/// reciprocals"). A zero, infinite or NaN pivot gives NaN (the division gave inf or 0): a
/// breakdown shows in x as before. Both flush subnormal pivots (float |x| < 2^-126, double
/// |x| < 2^-1022: a NaN follows, where the reciprocal would be near or past overflow anyway)
/// and return 0 where the reciprocal would be subnormal (float |x| > 2^126, double > 2^1022).
/// Float's non-flushing rcp.approx.f32 cost six instructions more per pivot for those ranges
/// (docs/algorithms.md, "Instructions per group"). chunk_reduce scales chunks whose first
/// diagonal entry lies far from 1 (row_scale.cuh), so that a system scaled by any power of two
/// keeps its pivots inside that range, and turns a flushed reciprocal into NaN in x
/// (docs/algorithms.md, "Breakdowns and the floating-point range (CUDA)").
template <class T>
__device__ __forceinline__ T reciprocal(T x);
template <>
__device__ __forceinline__ float reciprocal(float x) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return fmaf(r, fmaf(-x, r, 1.0f), r);
}
template <>
__device__ __forceinline__ double reciprocal(double x) {
  double r;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
  r = fma(r, fma(-x, r, 1.0), r);
  return fma(r, fma(-x, r, 1.0), r);
}

/// reciprocal, with NaN where a finite pivot above 2^126 / 2^1022 flushed it to 0 (that would
/// decouple the equation and return finite, wrong x): for the reduced system's two unnormalised
/// pivots per chunk, which carry the chunk's end rows as they are, and for one thread per system
/// (thomas_steps.cuh), where it also costs fewer instructions than the division it replaced.
/// Two instructions more than reciprocal.
template <class T>
__device__ __forceinline__ T reciprocal_or_nan(T x) {
  const T r = reciprocal(x);
  return r == T(0) ? quiet_nan<T>() : r;
}

}  // namespace triax::detail::cuda
