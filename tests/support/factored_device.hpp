#pragma once
// Runs one triax::FactoredSolver solve on the cuda backend for the GPU suites (factored_solve_test,
// factored_cr_test): device copies of the host buffers, padding and poison included.
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "support/device_runner.hpp"
#include "support/factored_cases.hpp"

namespace triax::test {

/// The solve of a plan made on the device buffers dd (from d) and dx (from x), and the copies
/// back; info (if given, with checked) through device memory. Shared by run_factored_cuda and the
/// grouped suite's runner, which differ only in how they make the plan.
template <class T>
void solve_factored_on_device(FactoredSolver<T>& s, cudaStream_t stream, Mode mode, bool checked,
                              DeviceBuffer<T>& dd, DeviceBuffer<T>& dx, std::vector<T>& d,
                              std::vector<T>& x, std::vector<int>* info) {
  int* di = nullptr;
  if (checked) {
    TRIAX_TEST_CUDA_OK(cudaMalloc(&di, std::max<std::size_t>(1, info->size()) * sizeof(int)));
    TRIAX_TEST_CUDA_OK(cudaMemset(di, 0xff, std::max<std::size_t>(1, info->size()) * sizeof(int)));
  }
  solve_in_mode(s, mode, std::tuple(), dd.get(), dx.get(), di);
  TRIAX_TEST_CUDA_OK(cudaStreamSynchronize(stream));
  TRIAX_TEST_CUDA_OK(cudaGetLastError());
  dd.download(d);
  dx.download(x);
  if (checked) {
    TRIAX_TEST_CUDA_OK(
        cudaMemcpy(info->data(), di, info->size() * sizeof(int), cudaMemcpyDeviceToHost));
    cudaFree(di);
  }
}

/// Solves on the device from copies of the host buffers (padding and its poison included) and
/// copies them back; info (if given) through device memory.
template <class T>
void run_factored_cuda(const FactoredMatrixCase<T>& m, const FactoredGrid& g, Mode mode,
                       std::vector<T>& d, std::vector<T>& x, bool checked = false,
                       std::vector<int>* info = nullptr,
                       FactoredAlgorithm algorithm = FactoredAlgorithm::automatic) {
  cudaStream_t stream;
  TRIAX_TEST_CUDA_OK(cudaStreamCreate(&stream));
  DeviceBuffer<T> dd(d), dx(x);
  ASSERT_TRUE(dd.get() && dx.get()) << "cudaMalloc failed";
  FactoredSolver<T> s(Backend::cuda, m.a.data(), m.b.data(), m.c.data(),
                      static_cast<std::int64_t>(m.b.size()), g.layouts, g.axis,
                      {.checked = checked, .stream = stream}, algorithm);
  if (algorithm != FactoredAlgorithm::automatic) ASSERT_EQ(s.algorithm(), algorithm);
  solve_factored_on_device(s, stream, mode, checked, dd, dx, d, x, info);
  TRIAX_TEST_CUDA_OK(cudaStreamDestroy(stream));
}

}  // namespace triax::test
