#pragma once
// What every GPU measurement shares: one stream, a pair of events, an L2 flush buffer and the
// cuSPARSE handle. Device arrays allocated through it are freed with it.
#include <cuda_runtime.h>
#include <cusparse.h>

#include <cstddef>
#include <vector>

#include "cuda/cuda_check.hpp"

namespace triax::bench {

class GpuContext {
 public:
  GpuContext();
  ~GpuContext();
  GpuContext(const GpuContext&) = delete;
  GpuContext& operator=(const GpuContext&) = delete;

  cudaStream_t stream() const { return stream_; }
  cusparseHandle_t cusparse();

  /// A device allocation owned by the context.
  void* allocate(std::size_t bytes);
  /// Copy within device memory on the stream (untimed work).
  void copy(void* dst, const void* src, std::size_t bytes);
  /// Reads a buffer several times the L2 (so what the previous step wrote is evicted and
  /// nothing dirty is left to be written back inside the next timing).
  void flush();
  /// An empty kernel on the stream (the latency floor of a launch).
  void empty_launch();

  /// Milliseconds of f's work on the stream, between two events.
  template <class F>
  double time_one(F& f) {
    TRIAX_CUDA_CHECK(cudaEventRecord(start_, stream_));
    f();
    TRIAX_CUDA_CHECK(cudaEventRecord(stop_, stream_));
    TRIAX_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    TRIAX_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  cusparseHandle_t cusparse_ = nullptr;
  void* flush_buffer_ = nullptr;
  std::size_t flush_bytes_ = 0;
  unsigned* flush_sink_ = nullptr;
  std::vector<void*> owned_;
};

}  // namespace triax::bench
