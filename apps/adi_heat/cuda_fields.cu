#include <cuda_runtime.h>

#include "cuda/cuda_check.hpp"  // TRIAX_CUDA_CHECK from the library's src/
#include "cuda_fields.hpp"
#include "stencil.hpp"

namespace adi {
namespace {

// One thread per point: x along threadIdx.x (coalesced), y and z across the grid.
template <class T>
__global__ void explicit_rhs_kernel(const T* u, T* out, std::int64_t n, T scale) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t j = blockIdx.y, k = blockIdx.z;
  if (i < n) out[(k * n + j) * n + i] = dt_laplacian_at(u, n, i, j, k, scale);
}

cudaEvent_t event(void* e) { return static_cast<cudaEvent_t>(e); }

}  // namespace

bool cuda_device_present() {
  int count = 0;
  // No driver or no device is an answer here ("use the CPU"), not a failure.
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return count > 0;
}

template <class T>
CudaFields<T>::CudaFields(std::int64_t n, const std::vector<T>& u0, Coefficients<T> k) : n_(n) {
  const std::size_t bytes = u0.size() * sizeof(T);
  TRIAX_CUDA_CHECK(cudaMalloc(&u_, bytes));
  TRIAX_CUDA_CHECK(cudaMalloc(&d1_, bytes));
  TRIAX_CUDA_CHECK(cudaMalloc(&d2_, bytes));
  TRIAX_CUDA_CHECK(cudaMalloc(&coefficients_, 3 * sizeof(T)));
  const T host_coefficients[3] = {k.a, k.b, k.c};
  TRIAX_CUDA_CHECK(cudaMemcpy(u_, u0.data(), bytes, cudaMemcpyHostToDevice));
  TRIAX_CUDA_CHECK(cudaMemcpy(coefficients_, host_coefficients, sizeof host_coefficients,
                              cudaMemcpyHostToDevice));
  for (void*& m : marks_) {
    cudaEvent_t e;
    TRIAX_CUDA_CHECK(cudaEventCreate(&e));
    m = e;
  }
}

template <class T>
CudaFields<T>::~CudaFields() {
  for (void* m : marks_) {
    if (m) TRIAX_CUDA_CHECK_NOTHROW(cudaEventDestroy(event(m)));
  }
  for (T* p : {u_, d1_, d2_, coefficients_}) TRIAX_CUDA_CHECK_NOTHROW(cudaFree(p));
}

template <class T>
void CudaFields<T>::explicit_rhs(T scale) {
  constexpr unsigned threads = 128;
  const dim3 grid(unsigned((n_ + threads - 1) / threads), unsigned(n_), unsigned(n_));
  // The legacy default stream, as the plans' Options::stream = nullptr.
  explicit_rhs_kernel<<<grid, threads>>>(u_, d1_, n_, scale);
  TRIAX_CUDA_CHECK_LAUNCH();
}

template <class T>
void CudaFields<T>::mark(int index) {
  TRIAX_CUDA_CHECK(cudaEventRecord(event(marks_[index]), nullptr));
}

template <class T>
void CudaFields<T>::add_elapsed(double* seconds) {
  TRIAX_CUDA_CHECK(cudaEventSynchronize(event(marks_[step_marks - 1])));
  for (int axis = 0; axis < 3; ++axis) {
    float ms = 0;
    TRIAX_CUDA_CHECK(cudaEventElapsedTime(&ms, event(marks_[axis]), event(marks_[axis + 1])));
    seconds[axis] += 1e-3 * ms;
  }
}

template <class T>
std::vector<T> CudaFields<T>::u_on_host() const {
  std::vector<T> u(std::size_t(n_ * n_ * n_));
  TRIAX_CUDA_CHECK(cudaMemcpy(u.data(), u_, u.size() * sizeof(T), cudaMemcpyDeviceToHost));
  return u;
}

template class CudaFields<float>;
template class CudaFields<double>;

}  // namespace adi
