// Two streaming kernels over a, b, c, d in 16-byte vectors, grid-stride, as wide as the device
// holds (gpu_two_pass_bound.hpp; the kernels in stream_passes.cuh).
#include "gpu_two_pass_bound.hpp"

#include <cstdint>

#include "stream_passes.cuh"

namespace triax::bench {

using stream::read_pass;
using stream::read_write_pass;
using stream::Vec;

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
