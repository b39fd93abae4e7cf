#pragma once
// The unfused route of triax::FactoredSolver::solve_stencil: B f written into a workspace laid
// out as d, which the plan's ordinary solve then reads. Every route but the cuda chunk table
// takes it (that one forms B f inside its solve, chunk_table_kernel.cuh). Each backend's folder
// implements one factory (src/cpu/factored for the host backends, src/cuda/factored;
// core/device_hooks throws not_compiled without CUDA).
#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/problem.hpp"
#include "triax/stencil.hpp"

namespace triax::detail {

template <class T>
class StencilWorkspace {
 public:
  virtual ~StencilWorkspace() = default;
  /// data()'s rows = B f for every system of p, f and data() both laid out by p.map[op_d]
  /// (only the systems' rows are written). Host backends: returns when done; cuda: queued on
  /// the stream the workspace was made for.
  virtual void apply(const Problem& p, const Stencil<T>& s, const T* f) = 0;
  virtual T* data() = 0;
  virtual std::size_t bytes() const = 0;
};

/// `elements` values in host memory; apply() runs on `threads` OpenMP threads (0: the default).
template <class T>
std::unique_ptr<StencilWorkspace<T>> make_host_stencil_workspace(std::int64_t elements,
                                                                 int threads);

/// `elements` values in device memory (allocated here, once); apply() runs on `stream`.
template <class T>
std::unique_ptr<StencilWorkspace<T>> make_cuda_stencil_workspace(std::int64_t elements,
                                                                 void* stream);

}  // namespace triax::detail
