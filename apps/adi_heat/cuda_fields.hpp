#pragma once
// The GPU side of the app (built only with TRIAX_HAS_CUDA): the same fields as HostFields, in
// device memory from cudaMalloc, the explicit operator as a kernel, and cudaEvents around the
// solves. No CUDA type appears here, so g++ can compile heat_problem.cpp against it.

#include <cstdint>
#include <vector>

#include "fields.hpp"

namespace adi {

// Whether the CUDA runtime sees at least one GPU (false, not an error, when there is none).
bool cuda_device_present();

template <class T>
class CudaFields {
 public:
  CudaFields(std::int64_t n, const std::vector<T>& u0, Coefficients<T> coefficients);
  ~CudaFields();
  CudaFields(const CudaFields&) = delete;
  CudaFields& operator=(const CudaFields&) = delete;
  T* u() { return u_; }
  T* d1() { return d1_; }
  T* d2() { return d2_; }
  const T* a() const { return coefficients_; }
  const T* b() const { return coefficients_ + 1; }
  const T* c() const { return coefficients_ + 2; }
  void explicit_rhs(T scale);
  void mark(int index);
  // Waits for the step's last mark, then adds the event times between marks to seconds[0..2].
  void add_elapsed(double* seconds);
  std::vector<T> u_on_host() const;

 private:
  std::int64_t n_;
  T* u_ = nullptr;
  T* d1_ = nullptr;
  T* d2_ = nullptr;
  T* coefficients_ = nullptr;
  void* marks_[step_marks] = {};  // cudaEvent_t
};

}  // namespace adi
