#pragma once
// Streaming kernels over a, b, c, d in 16-byte vectors, grid-stride: the arithmetic-free passes
// of the bounds (gpu_two_pass_bound.cu: two passes; layouts/layouts_bench.cu: the one-pass bound
// of a variable batch). read_pass must read every vector without the compiler dropping the
// loads: it stores only where the sum is exactly a value no input here produces (a NaN test
// would be folded away under fast math, an exact compare is not), which never happens.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace triax::bench {
namespace stream {

template <class T>
using Vec = std::conditional_t<sizeof(T) == 4, float4, double2>;

template <class T>
__device__ __forceinline__ T sum(const float4& v) {
  return v.x + v.y + v.z + v.w;
}
template <class T>
__device__ __forceinline__ T sum(const double2& v) {
  return v.x + v.y;
}

template <class T>
__global__ void read_pass(const Vec<T>* a, const Vec<T>* b, const Vec<T>* c, const Vec<T>* d,
                          std::int64_t vectors, T* sink) {
  T s = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < vectors;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    s += sum<T>(a[i]) + sum<T>(b[i]) + sum<T>(c[i]) + sum<T>(d[i]);
  }
  if (s == T(-1234567.0)) *sink = s;
}

template <class T>
__global__ void read_write_pass(const Vec<T>* a, const Vec<T>* b, const Vec<T>* c, const Vec<T>* d,
                                Vec<T>* x, std::int64_t vectors) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < vectors;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const Vec<T> va = a[i], vb = b[i], vc = c[i], vd = d[i];
    Vec<T> out;
    if constexpr (sizeof(T) == 4) {
      out = make_float4(va.x + vb.x + vc.x + vd.x, va.y + vb.y + vc.y + vd.y,
                        va.z + vb.z + vc.z + vd.z, va.w + vb.w + vc.w + vd.w);
    } else {
      out = make_double2(va.x + vb.x + vc.x + vd.x, va.y + vb.y + vc.y + vd.y);
    }
    x[i] = out;
  }
}

}  // namespace stream
}  // namespace triax::bench
