// Two streaming kernels over a, b, c, d in 16-byte vectors, grid-stride, as wide as the device
// holds (gpu_two_pass_bound.hpp). Pass 1 must read every vector without the compiler dropping
// the loads: it stores only where the sum is exactly a value no input here produces (a NaN test
// would be folded away under fast math, an exact compare is not), which never happens.
#include "gpu_two_pass_bound.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
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

/// The streaming grid: 512 threads, at most 4 blocks an SM, no more blocks than vectors need.
struct StreamGrid {
  unsigned blocks;
  int threads;
};
StreamGrid stream_grid(std::int64_t vectors) {
  int device = 0, sms = 0;
  TRIAX_CUDA_CHECK(cudaGetDevice(&device));
  TRIAX_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const int threads = 512;
  return {static_cast<unsigned>(std::max<std::int64_t>(
              1, std::min<std::int64_t>(std::int64_t(sms) * 4, (vectors + threads - 1) / threads))),
          threads};
}

template <class T>
const Vec<T>* as_vectors(const T* p) {
  return reinterpret_cast<const Vec<T>*>(p);
}

}  // namespace

template <class T>
Timing two_pass_bound(GpuContext& ctx, const T* a, const T* b, const T* c, const T* d, T* x,
                      std::int64_t count, int reps) {
  // The bench's arrays come from cudaMalloc (256-byte aligned); a tail of fewer than one vector
  // is left out (at most 3 elements of millions).
  constexpr int V = 16 / sizeof(T);
  const std::int64_t vectors = count / V;
  T* sink = static_cast<T*>(ctx.allocate(sizeof(T)));
  const StreamGrid g = stream_grid(vectors);
  auto* vx = reinterpret_cast<Vec<T>*>(x);
  auto passes = [&] {
    read_pass<T><<<g.blocks, g.threads, 0, ctx.stream()>>>(
        as_vectors(a), as_vectors(b), as_vectors(c), as_vectors(d), vectors, sink);
    TRIAX_CUDA_CHECK_LAUNCH();
    read_write_pass<T><<<g.blocks, g.threads, 0, ctx.stream()>>>(
        as_vectors(a), as_vectors(b), as_vectors(c), as_vectors(d), vx, vectors);
    TRIAX_CUDA_CHECK_LAUNCH();
  };
  return measure(
      reps, [&] { ctx.flush(); }, passes, [&](auto& f) { return ctx.time_one(f); });
}

template <class T>
std::function<void()> one_pass_stream(GpuContext& ctx, const T* a, const T* b, const T* c,
                                      const T* d, T* x, std::int64_t count) {
  constexpr int V = 16 / sizeof(T);
  if (count % V != 0) return {};  // a tail would be left out: no bound of the same bytes
  const std::int64_t vectors = count / V;
  const StreamGrid g = stream_grid(vectors);
  const cudaStream_t stream = ctx.stream();
  const Vec<T>*va = as_vectors(a), *vb = as_vectors(b), *vc = as_vectors(c), *vd = as_vectors(d);
  auto* vx = reinterpret_cast<Vec<T>*>(x);
  return [=] {
    read_write_pass<T><<<g.blocks, g.threads, 0, stream>>>(va, vb, vc, vd, vx, vectors);
    TRIAX_CUDA_CHECK_LAUNCH();
  };
}

template Timing two_pass_bound<float>(GpuContext&, const float*, const float*, const float*,
                                      const float*, float*, std::int64_t, int);
template Timing two_pass_bound<double>(GpuContext&, const double*, const double*, const double*,
                                       const double*, double*, std::int64_t, int);
template std::function<void()> one_pass_stream<float>(GpuContext&, const float*, const float*,
                                                      const float*, const float*, float*,
                                                      std::int64_t);
template std::function<void()> one_pass_stream<double>(GpuContext&, const double*, const double*,
                                                       const double*, const double*, double*,
                                                       std::int64_t);

}  // namespace triax::bench
