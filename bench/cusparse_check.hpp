#pragma once
// TRIAX_CUSPARSE_CHECK(call): a failed cuSPARSE call becomes a triax::cuda_error carrying the
// call text, file and line (the bench-local twin of src/cuda/cuda_check.hpp's TRIAX_CUDA_CHECK).
#include <cusparse.h>

#include <string>

#include "triax/errors.hpp"

namespace triax::bench {

[[noreturn]] inline void throw_cusparse_error(cusparseStatus_t status, const char* call,
                                              const char* file, int line) {
  throw cuda_error(std::string("triax-bench: ") + call + " failed at " + file + ":" +
                   std::to_string(line) + ": " + cusparseGetErrorName(status) + " (" +
                   cusparseGetErrorString(status) + ")");
}

}  // namespace triax::bench

#define TRIAX_CUSPARSE_CHECK(call)                                                    \
  do {                                                                                \
    const cusparseStatus_t triax_status_ = (call);                                    \
    if (triax_status_ != CUSPARSE_STATUS_SUCCESS) {                                   \
      ::triax::bench::throw_cusparse_error(triax_status_, #call, __FILE__, __LINE__); \
    }                                                                                 \
  } while (0)
