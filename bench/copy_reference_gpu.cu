#include <string>

#include "gpu_context.hpp"
#include "gpu_runner.hpp"
#include "stats.hpp"

namespace triax::bench {
namespace {

/// The 16-byte-vector copy: each thread moves int4 words, grid-stride.
__global__ void copy_int4(const int4* __restrict__ in, int4* __restrict__ out, std::size_t words) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < words;
       i += std::size_t(gridDim.x) * blockDim.x) {
    out[i] = in[i];
  }
}

}  // namespace

std::string device_description() {
  int device = 0;
  TRIAX_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp p{};
  TRIAX_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  char buf[512];
  std::snprintf(buf, sizeof buf, "%.255s, %.1f GiB, %d SMs, L2 %.0f MiB, sm_%d%d", p.name,
                double(p.totalGlobalMem) / double(1 << 30), p.multiProcessorCount,
                double(p.l2CacheSize) / double(1 << 20), p.major, p.minor);
  return buf;
}

CopyReference measure_device_copy(double gib, int reps) {
  GpuContext ctx;
  const std::size_t bytes = static_cast<std::size_t>(gib * double(1 << 30)) / 16 * 16;
  void* src = ctx.allocate(bytes);
  void* dst = ctx.allocate(bytes);
  TRIAX_CUDA_CHECK(cudaMemsetAsync(src, 7, bytes, ctx.stream()));
  TRIAX_CUDA_CHECK(cudaMemsetAsync(dst, 0, bytes, ctx.stream()));
  int device = 0, sms = 0;
  TRIAX_CUDA_CHECK(cudaGetDevice(&device));
  TRIAX_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));

  auto memcpy_d2d = [&] { ctx.copy(dst, src, bytes); };
  auto kernel = [&] {
    copy_int4<<<sms * 16, 512, 0, ctx.stream()>>>(static_cast<const int4*>(src),
                                                  static_cast<int4*>(dst), bytes / 16);
    TRIAX_CUDA_CHECK_LAUNCH();
  };
  CopyReference ref;
  ref.bytes = static_cast<double>(bytes);
  auto time_it = [&](const char* name, auto& copy) {
    const Timing t = measure(
        reps, [] {}, copy, [&](auto& f) { return ctx.time_one(f); });
    const double gbps = 2.0 * ref.bytes / (t.median_ms * 1e-3) / 1e9;
    ref.candidates.emplace_back(name, gbps);
    if (gbps > ref.gbps) {
      ref.gbps = gbps;
      ref.how = name;
    }
  };
  time_it("cudaMemcpyAsync_d2d", memcpy_d2d);
  time_it("int4_copy_kernel", kernel);
  return ref;
}

}  // namespace triax::bench
