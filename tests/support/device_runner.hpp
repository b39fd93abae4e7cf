#pragma once
// Runs a batch on the CUDA backend: copies every buffer (padding and its poison included) to the
// device, solves on a stream of its own, and copies the buffers back.
#include <cuda_runtime.h>

#include <vector>

#include "support/compare.hpp"

namespace triax::test {

/// True when a CUDA device can be used; GPU tests call GTEST_SKIP otherwise.
inline bool cuda_device_present() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return count > 0;
}

#define TRIAX_TEST_CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call

template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(const std::vector<T>& host) : size_(host.size()) {
    if (cudaMalloc(&ptr_, size_ * sizeof(T)) != cudaSuccess) ptr_ = nullptr;
    if (ptr_) cudaMemcpy(ptr_, host.data(), size_ * sizeof(T), cudaMemcpyHostToDevice);
  }
  ~DeviceBuffer() { cudaFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  T* get() const { return ptr_; }
  void download(std::vector<T>& host) const {
    cudaMemcpy(host.data(), ptr_, size_ * sizeof(T), cudaMemcpyDeviceToHost);
  }

 private:
  T* ptr_ = nullptr;
  std::size_t size_;
};

/// A runner for the CUDA backend with the given algorithm.
template <class T>
Runner<T> cuda_runner(Algorithm algorithm) {
  return [=](const OperandLayouts& layouts, int axis, Mode mode, Batch<T>& batch) {
    cudaStream_t stream;
    TRIAX_TEST_CUDA_OK(cudaStreamCreate(&stream));
    DeviceBuffer<T> a(batch.a), b(batch.b), c(batch.c), d(batch.d), x(batch.x);
    ASSERT_TRUE(a.get() && b.get() && c.get() && d.get() && x.get()) << "cudaMalloc failed";
    Solver<T> solver(Backend::cuda, layouts, axis, {.algorithm = algorithm, .stream = stream});
    switch (mode) {
      case Mode::in_place: solver.solve_in_place(a.get(), b.get(), c.get(), d.get()); break;
      case Mode::separate: solver.solve(a.get(), b.get(), c.get(), d.get(), x.get()); break;
      case Mode::increment: solver.solve_increment(a.get(), b.get(), c.get(), d.get(), x.get()); break;
    }
    TRIAX_TEST_CUDA_OK(cudaStreamSynchronize(stream));
    TRIAX_TEST_CUDA_OK(cudaGetLastError());
    d.download(batch.d);
    x.download(batch.x);
    TRIAX_TEST_CUDA_OK(cudaStreamDestroy(stream));
  };
}

}  // namespace triax::test
