// Two streaming kernels over a, b, c, d in 16-byte vectors, grid-stride, as wide as the device
// holds (gpu_two_pass_bound.hpp; the kernels in stream_passes.cuh), and one launch of the second
// alone (one_pass_stream).
#include "gpu_two_pass_bound.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>

#include "stream_passes.cuh"

namespace triax::bench {

using stream::read_pass;
using stream::read_write_pass;
using stream::Vec;

namespace {

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
