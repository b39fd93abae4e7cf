#pragma once
// One checking macro per library: each carries the call text, file and line into a
// triax::cuda_error. TRIAX_CUDA_CHECK_NOTHROW is for destructors.
#include <cuda_runtime.h>

#include <cstdio>
#include <string>

#include "triax/errors.hpp"

namespace triax::detail::cuda {

[[noreturn]] inline void throw_cuda_error(cudaError_t status, const char* call, const char* file,
                                          int line) {
  throw cuda_error(std::string("triax: ") + call + " failed at " + file + ":" +
                   std::to_string(line) + ": " + cudaGetErrorName(status) + " (" +
                   cudaGetErrorString(status) + ")");
}

}  // namespace triax::detail::cuda

#define TRIAX_CUDA_CHECK(call)                                                          \
  do {                                                                                  \
    const cudaError_t triax_status_ = (call);                                           \
    if (triax_status_ != cudaSuccess) {                                                 \
      ::triax::detail::cuda::throw_cuda_error(triax_status_, #call, __FILE__, __LINE__); \
    }                                                                                   \
  } while (0)

/// After a kernel launch: reports a failed launch (bad configuration, missing image), never
/// swallows it. Does not synchronise.
#define TRIAX_CUDA_CHECK_LAUNCH() TRIAX_CUDA_CHECK(cudaPeekAtLastError())

#define TRIAX_CUDA_CHECK_NOTHROW(call)                                                  \
  do {                                                                                  \
    const cudaError_t triax_status_ = (call);                                           \
    if (triax_status_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "triax: %s failed at %s:%d: %s\n", #call, __FILE__, __LINE__, \
                   cudaGetErrorName(triax_status_));                                    \
    }                                                                                   \
  } while (0)
