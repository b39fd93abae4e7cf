#pragma once
// A plan's device workspace: allocated once when the plan is made (nothing is allocated in a
// solve), freed with the plan. Empty (null) for 0 bytes.
#include <cuda_runtime.h>

#include <cstddef>

#include "cuda/cuda_check.hpp"

namespace triax::detail::cuda {

class DeviceWorkspace {
 public:
  explicit DeviceWorkspace(std::size_t bytes) : bytes_(bytes) {
    if (bytes_ > 0) TRIAX_CUDA_CHECK(cudaMalloc(&pointer_, bytes_));
  }
  ~DeviceWorkspace() {
    if (pointer_ != nullptr) TRIAX_CUDA_CHECK_NOTHROW(cudaFree(pointer_));
  }
  DeviceWorkspace(const DeviceWorkspace&) = delete;
  DeviceWorkspace& operator=(const DeviceWorkspace&) = delete;

  void* get() const { return pointer_; }
  std::size_t bytes() const { return bytes_; }

 private:
  std::size_t bytes_;
  void* pointer_ = nullptr;
};

}  // namespace triax::detail::cuda
