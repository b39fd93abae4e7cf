#pragma once
// The array's GPU as the current device while the library runs: the library uses the current
// device, and the caller's may be another one.
#ifdef TRIAX_HAS_CUDA
#include <cuda_runtime_api.h>
#endif

#include "operands.hpp"

namespace triax::python {

// Makes the array's GPU the current device for the guard's lifetime: the library runs on the
// current device, and the caller's current device may be another one.
class DeviceGuard {
 public:
  explicit DeviceGuard(const Signature& s) {
#ifdef TRIAX_HAS_CUDA
    if (s.device_type != device_cuda) return;
    if (cudaGetDevice(&previous_) != cudaSuccess) return;  // the solve reports the error
    if (previous_ != s.device_id) {
      if (cudaSetDevice(s.device_id) == cudaSuccess) switched_ = true;
    }
#else
    (void)s;
#endif
  }
  ~DeviceGuard() {
#ifdef TRIAX_HAS_CUDA
    if (switched_) cudaSetDevice(previous_);
#endif
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
  bool switched_ = false;
};

}  // namespace triax::python
