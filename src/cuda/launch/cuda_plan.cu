// The CUDA backend's plan: picks an algorithm (launch/selection.cpp), allocates its workspace
// once, loads its kernels, and launches it on the caller's stream at every solve (no allocation,
// no synchronisation).
#include <cuda_runtime.h>

#include "core/backend_plan.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_workspace.hpp"
#include "cuda/launch/launch_kernel.hpp"
#include "cuda/launch/selection.hpp"

namespace triax::detail {
namespace {

template <class T>
class CudaPlan final : public BackendPlan<T> {
 public:
  CudaPlan(const Problem& p, const Options& o)
      : stream_(static_cast<cudaStream_t>(o.stream)),
        algorithm_(cuda::choose_cuda_algorithm<T>(p, o)),
        workspace_(algorithm_.workspace(p)) {
    // Zeroed once, on the plan's stream (before any solve on it): the shared-matrix route keeps
    // the matrix its table was built from, behind a flag that must start clear.
    if (workspace_.get() != nullptr) {
      TRIAX_CUDA_CHECK(cudaMemsetAsync(workspace_.get(), 0, workspace_.bytes(), stream_));
    }
    load_kernels(p, o.checked);
  }

  void solve(const Problem& p, const Operands<T>& ops) override {
    algorithm_.run(p, ops, workspace_.get(), stream_);
  }
  void clear_info(int* info, std::int64_t count) override {
    TRIAX_CUDA_CHECK(cudaMemsetAsync(info, 0, static_cast<std::size_t>(count) * sizeof(int),
                                     stream_));
  }
  Algorithm algorithm() const override { return algorithm_.name; }

  /// Loads every kernel a solve of this plan can launch (both output modes; checked or not as
  /// the plan is), so that CUDA's lazy loading happens here and not inside the first solve.
  /// The algorithm runs with null operands under a KernelRehearsal: its launches only load.
  /// (Where the caller's arrays turn out unaligned, axis 0 may take another kernel, loaded at
  /// its first launch.)
  void load_kernels(const Problem& p, bool checked) {
    cuda::KernelRehearsal rehearsal;
    int* info = checked ? &unused_info_ : nullptr;
    for (const bool accumulate : {false, true}) {
      algorithm_.run(p, {nullptr, nullptr, nullptr, nullptr, nullptr, accumulate, info},
                     workspace_.get(), stream_);
    }
  }
  std::size_t workspace_bytes() const override { return workspace_.bytes(); }

 private:
  cudaStream_t stream_;
  cuda::CudaAlgorithm<T> algorithm_;
  cuda::DeviceWorkspace workspace_;
  int unused_info_ = 0;  // a non-null info for load_kernels in checked mode, never written
};

}  // namespace

template <class T>
std::unique_ptr<BackendPlan<T>> make_cuda_plan(const Problem& p, const Options& o) {
  return std::make_unique<CudaPlan<T>>(p, o);
}
template std::unique_ptr<BackendPlan<float>> make_cuda_plan(const Problem&, const Options&);
template std::unique_ptr<BackendPlan<double>> make_cuda_plan(const Problem&, const Options&);

}  // namespace triax::detail
