// The right-hand side stencil of the compact derivative on the GPU: one thread per point,
// consecutive threads along dimension 0 (coalesced), and the device helpers of main.cpp.
#include <cuda_runtime.h>

#include "compact_fd.hpp"
#include "compact_fd_cuda.hpp"
#include "cuda/cuda_check.hpp"

namespace cfd {
namespace {

template <class T>
__global__ void rhs_kernel(const T* __restrict__ f, T* __restrict__ r, std::int64_t total,
                           std::int64_t s, std::int64_t n, T interior, T edge) {
  for (std::int64_t o = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; o < total;
       o += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t i = (o / s) % n;
    if (i == 0) {
      r[o] = (T(-5) * f[o] + T(4) * f[o + s] + f[o + 2 * s]) * edge;
    } else if (i == n - 1) {
      r[o] = (T(5) * f[o] - T(4) * f[o - s] - f[o - 2 * s]) * edge;
    } else {
      r[o] = (f[o + s] - f[o - s]) * interior;
    }
  }
}

}  // namespace

template <class T>
void rhs_cuda(const T* f, T* r, const Extents& e, int axis, T h, void* stream) {
  const std::int64_t stride[3] = {1, e[0], e[0] * e[1]};
  const std::int64_t total = e[0] * e[1] * e[2];
  const int threads = 256;
  const std::int64_t blocks = std::min<std::int64_t>((total + threads - 1) / threads, 1 << 20);
  rhs_kernel<<<static_cast<unsigned>(blocks), threads, 0, static_cast<cudaStream_t>(stream)>>>(
      f, r, total, stride[axis], e[axis], T(3) / (T(4) * h), T(1) / (T(2) * h));
  TRIAX_CUDA_CHECK_LAUNCH();
}

template void rhs_cuda(const float*, float*, const Extents&, int, float, void*);
template void rhs_cuda(const double*, double*, const Extents&, int, double, void*);

bool cuda_device_present() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return count > 0;
}

void* device_alloc(std::size_t bytes) {
  void* p = nullptr;
  TRIAX_CUDA_CHECK(cudaMalloc(&p, bytes));
  return p;
}
void device_free(void* p) { TRIAX_CUDA_CHECK_NOTHROW(cudaFree(p)); }
void copy_to_device(void* dst, const void* src, std::size_t bytes) {
  TRIAX_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}
void copy_to_host(void* dst, const void* src, std::size_t bytes) {
  TRIAX_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
}

float time_ms(const std::function<void()>& work, int repeats) {
  cudaEvent_t start, stop;
  TRIAX_CUDA_CHECK(cudaEventCreate(&start));
  TRIAX_CUDA_CHECK(cudaEventCreate(&stop));
  work();  // warm-up
  std::vector<float> times;
  for (int k = 0; k < repeats; ++k) {
    TRIAX_CUDA_CHECK(cudaEventRecord(start));
    work();
    TRIAX_CUDA_CHECK(cudaEventRecord(stop));
    TRIAX_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    TRIAX_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  TRIAX_CUDA_CHECK(cudaEventDestroy(start));
  TRIAX_CUDA_CHECK(cudaEventDestroy(stop));
  return times[times.size() / 2];
}

void device_copy(void* dst, const void* src, std::size_t bytes) {
  TRIAX_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice));
}

}  // namespace cfd
