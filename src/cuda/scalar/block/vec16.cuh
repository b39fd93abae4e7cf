#pragma once
// 16-byte vectors of float or double (four or two elements) and their elements, for the
// axis-0 kernels' vector loads and stores (hybrid_kernel.cuh, aligned_span.cuh).
#include <cuda_runtime.h>

#include <type_traits>

namespace triax::detail::cuda {

template <class T>
using VecOf = std::conditional_t<sizeof(T) == 4, float4, double2>;
__device__ __forceinline__ void unpack(const float4& v, float* out) {
  out[0] = v.x;
  out[1] = v.y;
  out[2] = v.z;
  out[3] = v.w;
}
__device__ __forceinline__ void unpack(const double2& v, double* out) {
  out[0] = v.x;
  out[1] = v.y;
}
template <class T>
__device__ __forceinline__ VecOf<T> pack(const T* in) {
  if constexpr (sizeof(T) == 4) {
    return make_float4(in[0], in[1], in[2], in[3]);
  } else {
    return make_double2(in[0], in[1]);
  }
}


}  // namespace triax::detail::cuda
