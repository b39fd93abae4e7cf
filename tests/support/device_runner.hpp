#pragma once
// Runs a batch on the CUDA backend: copies every buffer (padding and its poison included) to the
// device, solves on a stream of its own, and copies the buffers back.
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "support/compare.hpp"
#include "support/device_test.hpp"

namespace triax::test {

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

/// The five operands on the device, each `shift` elements past a cudaMalloc'ed (256-byte aligned)
/// base so that a solve's rows can start anywhere in a vector (shift 0: aligned).
template <class T>
class DeviceOperands {
 public:
  DeviceOperands(const std::vector<T>& a, const std::vector<T>& b, const std::vector<T>& c,
                 const std::vector<T>& d, const std::vector<T>& x, int shift = 0)
      : shift_(shift),
        a_(shifted(a, shift)),
        b_(shifted(b, shift)),
        c_(shifted(c, shift)),
        d_(shifted(d, shift)),
        x_(shifted(x, shift)) {}
  bool allocated() const { return a_.get() && b_.get() && c_.get() && d_.get() && x_.get(); }
  T* a() const { return a_.get() + shift_; }
  T* b() const { return b_.get() + shift_; }
  T* c() const { return c_.get() + shift_; }
  T* d() const { return d_.get() + shift_; }
  T* x() const { return x_.get() + shift_; }
  /// Copies the outputs, d and x, back.
  void download(std::vector<T>& d, std::vector<T>& x) const {
    back(d_, d);
    back(x_, x);
  }

 private:
  static std::vector<T> shifted(const std::vector<T>& h, int shift) {
    std::vector<T> s(static_cast<std::size_t>(shift), T(0));
    s.insert(s.end(), h.begin(), h.end());
    return s;
  }
  void back(const DeviceBuffer<T>& buf, std::vector<T>& h) const {
    std::vector<T> all(h.size() + static_cast<std::size_t>(shift_));
    buf.download(all);
    std::copy(all.begin() + shift_, all.end(), h.begin());
  }
  int shift_;
  DeviceBuffer<T> a_, b_, c_, d_, x_;
};

/// A runner for the CUDA backend with the given algorithm.
template <class T>
Runner<T> cuda_runner(Algorithm algorithm) {
  return [=](const OperandLayouts& layouts, int axis, Mode mode, Batch<T>& batch) {
    cudaStream_t stream;
    TRIAX_TEST_CUDA_OK(cudaStreamCreate(&stream));
    const DeviceOperands<T> o(batch.a, batch.b, batch.c, batch.d, batch.x);
    ASSERT_TRUE(o.allocated()) << "cudaMalloc failed";
    Solver<T> solver(Backend::cuda, layouts, axis, {.algorithm = algorithm, .stream = stream});
    solve_in_mode(solver, mode, std::tuple(o.a(), o.b(), o.c()), o.d(), o.x());
    TRIAX_TEST_CUDA_OK(cudaStreamSynchronize(stream));
    TRIAX_TEST_CUDA_OK(cudaGetLastError());
    o.download(batch.d, batch.x);
    TRIAX_TEST_CUDA_OK(cudaStreamDestroy(stream));
  };
}

/// The same in checked mode (Mode::separate only): the answers, and info 0 for every system.
template <class T>
Runner<T> cuda_checked_runner(Algorithm algorithm) {
  return [=](const OperandLayouts& layouts, int axis, Mode mode, Batch<T>& batch) {
    ASSERT_EQ(mode, Mode::separate);
    DeviceBuffer<T> a(batch.a), b(batch.b), c(batch.c), d(batch.d), x(batch.x);
    // The systems of the layout (not the buffer's elements over n: padding would count too).
    std::int64_t systems = 1;
    for (int k = 0; k < layouts.d.rank(); ++k) {
      if (k != axis) systems *= layouts.d.extent(k);
    }
    int* dinfo = nullptr;
    TRIAX_TEST_CUDA_OK(cudaMalloc(&dinfo, systems * sizeof(int)));
    TRIAX_TEST_CUDA_OK(cudaMemset(dinfo, 0xff, systems * sizeof(int)));
    Solver<T> s(Backend::cuda, layouts, axis, {.algorithm = algorithm, .checked = true});
    s.solve(a.get(), b.get(), c.get(), d.get(), x.get(), dinfo);
    std::vector<int> info(systems, -1);
    TRIAX_TEST_CUDA_OK(
        cudaMemcpy(info.data(), dinfo, systems * sizeof(int), cudaMemcpyDeviceToHost));
    TRIAX_TEST_CUDA_OK(cudaFree(dinfo));
    for (std::int64_t q = 0; q < systems; ++q) ASSERT_EQ(info[q], 0) << "system " << q;
    x.download(batch.x);
  };
}

}  // namespace triax::test
