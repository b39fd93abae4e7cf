// The device helpers of main.cpp (the derivative itself runs in triax: solve_stencil).
#include <cuda_runtime.h>

#include "compact_fd_cuda.hpp"
#include "cuda/cuda_check.hpp"

namespace cfd {

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
