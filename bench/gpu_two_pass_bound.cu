// Two streaming kernels over a, b, c, d in 16-byte vectors, grid-stride, as wide as the device
// holds (gpu_two_pass_bound.hpp). Pass 1 must read every vector without the compiler dropping
// the loads: it stores only where the sum is exactly a value no input here produces (a NaN test
// would be folded away under fast math, an exact compare is not), which never happens.
#include "gpu_two_pass_bound.hpp"

#include <cstdint>
#include <type_traits>

namespace triax::bench {
namespace {

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

}  // namespace

template <class T>
Timing two_pass_bound(GpuContext& ctx, const T* a, const T* b, const T* c, const T* d, T* x,
                      std::int64_t count, int reps) {
  // The bench's arrays come from cudaMalloc (256-byte aligned); a tail of fewer than one vector
  // is left out (at most 3 elements of millions).
  constexpr int V = 16 / sizeof(T);
  const std::int64_t vectors = count / V;
  int device = 0, sms = 0;
  TRIAX_CUDA_CHECK(cudaGetDevice(&device));
  TRIAX_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  T* sink = static_cast<T*>(ctx.allocate(sizeof(T)));
  const int threads = 512;
  const auto blocks = static_cast<unsigned>(std::max<std::int64_t>(
      1, std::min<std::int64_t>(std::int64_t(sms) * 4, (vectors + threads - 1) / threads)));
  const auto* va = reinterpret_cast<const Vec<T>*>(a);
  const auto* vb = reinterpret_cast<const Vec<T>*>(b);
  const auto* vc = reinterpret_cast<const Vec<T>*>(c);
  const auto* vd = reinterpret_cast<const Vec<T>*>(d);
  auto* vx = reinterpret_cast<Vec<T>*>(x);
  auto passes = [&] {
    read_pass<T><<<blocks, threads, 0, ctx.stream()>>>(va, vb, vc, vd, vectors, sink);
    TRIAX_CUDA_CHECK_LAUNCH();
    read_write_pass<T><<<blocks, threads, 0, ctx.stream()>>>(va, vb, vc, vd, vx, vectors);
    TRIAX_CUDA_CHECK_LAUNCH();
  };
  return measure(
      reps, [&] { ctx.flush(); }, passes, [&](auto& f) { return ctx.time_one(f); });
}

template Timing two_pass_bound<float>(GpuContext&, const float*, const float*, const float*,
                                      const float*, float*, std::int64_t, int);
template Timing two_pass_bound<double>(GpuContext&, const double*, const double*, const double*,
                                       const double*, double*, std::int64_t, int);

}  // namespace triax::bench
