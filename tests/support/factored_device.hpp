#pragma once
// Runs triax::FactoredSolver solves on the cuda backend for the GPU suites (factored_solve_test,
// factored_cr_test, factored_table_test, factored_hybrid_test, factored_groups_test): device
// copies of the host buffers, padding and poison included, and the copies back.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

#include "support/device_runner.hpp"
#include "support/factored_cases.hpp"

namespace triax::test {

/// A stream, device copies of d and x and a pinned staging buffer, shared by the solves of one
/// runner. Why: with a fresh stream, buffers and synchronous copies per solve, the 8 shards of
/// scripts/gpu-check spent most of their time waiting at the device's synchronisation points
/// (cudaFree, cudaMemcpy from pageable memory), one per call; here a solve's copies are queued
/// on the stream with the solve and waited for once. The device buffers keep exactly the host
/// buffers' sizes (reallocated when a grid changes them, so compute-sanitizer still sees a write
/// past either one), and every solve uploads the whole host buffers: the device holds what fresh
/// buffers held, the padding's poison included.
template <class T>
class FactoredDeviceScratch {
 public:
  FactoredDeviceScratch() : ok_(cudaStreamCreate(&stream_) == cudaSuccess) {}
  ~FactoredDeviceScratch() {
    cudaFree(dd_);
    cudaFree(dx_);
    cudaFreeHost(staging_);
    if (ok_) cudaStreamDestroy(stream_);
  }
  FactoredDeviceScratch(const FactoredDeviceScratch&) = delete;
  FactoredDeviceScratch& operator=(const FactoredDeviceScratch&) = delete;
  bool ok() const { return ok_; }
  cudaStream_t stream() const { return stream_; }
  T* d() const { return dd_; }
  T* x() const { return dx_; }

  /// Queues the copies of d and x to the device on the stream; false where an allocation or a
/// copy failed.
  bool upload(const std::vector<T>& d, const std::vector<T>& x) {
    if (!hold(dd_, nd_, d.size(), false) || !hold(dx_, nx_, x.size(), false) ||
        !hold(staging_, staging_cap_, nd_ + nx_, true)) {
      return false;
    }
    std::copy(d.begin(), d.end(), staging_);
    std::copy(x.begin(), x.end(), staging_ + nd_);
    return copy(dd_, staging_, nd_, cudaMemcpyHostToDevice) == cudaSuccess &&
           copy(dx_, staging_ + nd_, nx_, cudaMemcpyHostToDevice) == cudaSuccess;
  }

  /// Queues the copies back after the stream's work, waits for the stream, fills d and x.
  cudaError_t download(std::vector<T>& d, std::vector<T>& x) {
    cudaError_t e = copy(staging_, dd_, nd_, cudaMemcpyDeviceToHost);
    if (e == cudaSuccess) e = copy(staging_ + nd_, dx_, nx_, cudaMemcpyDeviceToHost);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream_);
    if (e != cudaSuccess) return e;
    std::copy(staging_, staging_ + nd_, d.begin());
    std::copy(staging_ + nd_, staging_ + nd_ + nx_, x.begin());
    return cudaSuccess;
  }

 private:
  // p resized to `want` elements where it holds another count: device buffers exactly (so that
  // compute-sanitizer sees a write past one), the pinned host staging at least.
  static bool hold(T*& p, std::size_t& have, std::size_t want, bool pinned) {
    if (p && (pinned ? have >= want : have == want)) return true;
    if (pinned) {
      cudaFreeHost(p);
    } else {
      cudaFree(p);
    }
    p = nullptr;
    have = 0;
    void* q = nullptr;
    const std::size_t bytes = std::max<std::size_t>(want, 1) * sizeof(T);
    if ((pinned ? cudaMallocHost(&q, bytes) : cudaMalloc(&q, bytes)) != cudaSuccess) return false;
    p = static_cast<T*>(q);
    have = want;
    return true;
  }
  cudaError_t copy(T* to, const T* from, std::size_t count, cudaMemcpyKind kind) {
    return cudaMemcpyAsync(to, from, count * sizeof(T), kind, stream_);
  }

  cudaStream_t stream_ = nullptr;
  bool ok_;
  T* dd_ = nullptr;
  T* dx_ = nullptr;
  std::size_t nd_ = 0, nx_ = 0;
  T* staging_ = nullptr;
  std::size_t staging_cap_ = 0;
};

/// The solve of plan s (made on the scratch's stream) from device copies of d and x, and the
/// copies back; info (if given, with checked) through device memory. Shared by the runners here
/// and the grouped suite's, which differ only in how they make the plan.
template <class T>
void solve_factored_on_device(FactoredSolver<T>& s, FactoredDeviceScratch<T>& scratch, Mode mode,
                              bool checked, std::vector<T>& d, std::vector<T>& x,
                              std::vector<int>* info) {
  ASSERT_TRUE(scratch.ok()) << "cudaStreamCreate failed";
  int* di = nullptr;
  if (checked) {
    TRIAX_TEST_CUDA_OK(cudaMalloc(&di, std::max<std::size_t>(1, info->size()) * sizeof(int)));
    TRIAX_TEST_CUDA_OK(cudaMemset(di, 0xff, std::max<std::size_t>(1, info->size()) * sizeof(int)));
  }
  ASSERT_TRUE(scratch.upload(d, x)) << "cudaMalloc or a copy failed";
  solve_in_mode(s, mode, std::tuple(), scratch.d(), scratch.x(), di);
  TRIAX_TEST_CUDA_OK(scratch.download(d, x));
  TRIAX_TEST_CUDA_OK(cudaGetLastError());
  if (checked) {
    TRIAX_TEST_CUDA_OK(
        cudaMemcpy(info->data(), di, info->size() * sizeof(int), cudaMemcpyDeviceToHost));
    cudaFree(di);
  }
}

/// The cuda plan of matrix m on grid g, on the scratch's stream.
template <class T>
std::shared_ptr<FactoredSolver<T>> make_factored_cuda_plan(const FactoredMatrixCase<T>& m,
                                                           const FactoredGrid& g,
                                                           cudaStream_t stream, bool checked,
                                                           FactoredAlgorithm algorithm) {
  return std::make_shared<FactoredSolver<T>>(
      Backend::cuda, m.a.data(), m.b.data(), m.c.data(), static_cast<std::int64_t>(m.b.size()),
      g.layouts, g.axis, Options{.checked = checked, .stream = stream}, algorithm);
}

/// The solve of a plan that must hold `algorithm` (automatic: whichever it chose).
template <class T>
void solve_factored_cuda_plan(FactoredSolver<T>& s, FactoredDeviceScratch<T>& scratch,
                              FactoredAlgorithm algorithm, Mode mode, bool checked,
                              std::vector<T>& d, std::vector<T>& x, std::vector<int>* info) {
  if (algorithm != FactoredAlgorithm::automatic) {
    ASSERT_EQ(s.algorithm(), algorithm);
  }
  solve_factored_on_device(s, scratch, mode, checked, d, x, info);
}

/// A FactoredRunner on the cuda backend: one stream and buffers for the runner's life, one plan
/// per (matrix, grid) serving every mode.
template <class T>
FactoredRunner<T> cuda_factored_runner(FactoredAlgorithm algorithm = FactoredAlgorithm::automatic) {
  auto scratch = std::make_shared<FactoredDeviceScratch<T>>();
  return [scratch, algorithm](const FactoredMatrixCase<T>& m,
                              const FactoredGrid& g) -> FactoredModeRun<T> {
    auto plan = make_factored_cuda_plan(m, g, scratch->stream(), false, algorithm);
    return [scratch, plan, algorithm](Mode mode, std::vector<T>& d, std::vector<T>& x) {
      solve_factored_cuda_plan(*plan, *scratch, algorithm, mode, false, d, x, nullptr);
    };
  };
}

/// One solve on the device with a plan of its own, from copies of the host buffers (padding and
/// its poison included) and copied back; info (if given) through device memory.
template <class T>
void run_factored_cuda(const FactoredMatrixCase<T>& m, const FactoredGrid& g, Mode mode,
                       std::vector<T>& d, std::vector<T>& x, bool checked = false,
                       std::vector<int>* info = nullptr,
                       FactoredAlgorithm algorithm = FactoredAlgorithm::automatic) {
  FactoredDeviceScratch<T> scratch;
  auto plan = make_factored_cuda_plan(m, g, scratch.stream(), checked, algorithm);
  solve_factored_cuda_plan(*plan, scratch, algorithm, mode, checked, d, x, info);
}

}  // namespace triax::test
