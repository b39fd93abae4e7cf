// The CUDA backend's block plan: takes the algorithm asked for (automatic: the coop kernel) and
// the coop kernel's variant (TRIAX_CUDA_BLOCK_COOP, read here once), allocates the workspace of
// C* and d* once, loads its kernels, and launches on the caller's stream at every solve (no
// allocation, no synchronisation).
#include <cuda_runtime.h>

#include "core/block_problem.hpp"
#include "cuda/block_tridiag/block_launchers.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_workspace.hpp"
#include "cuda/launch/launch_kernel.hpp"

namespace triax::detail {
namespace {

template <class T>
class CudaBlockPlan final : public BlockBackendPlan<T> {
 public:
  CudaBlockPlan(const BlockProblem& p, const Options& o, BlockAlgorithm requested)
      : stream_(static_cast<cudaStream_t>(o.stream)),
        algorithm_(requested == BlockAlgorithm::automatic ? BlockAlgorithm::cuda_block_coop_thomas
                                                          : requested),
        coop_(cuda::coop_choice_from_env()),
        workspace_(cuda::cuda_block_workspace_bytes<T>(p)) {  // throws first for m > 8
    load_kernels(p, o.checked);
  }

  void solve(const BlockProblem& p, const Operands<T>& ops) override {
    if (algorithm_ == BlockAlgorithm::cuda_block_thread_thomas) {
      cuda::cuda_block_thread_thomas<T>(p, ops, workspace_.get(), stream_);
    } else {
      cuda::cuda_block_coop_thomas<T>(p, ops, workspace_.get(), stream_, coop_);
    }
  }
  void clear_info(int* info, std::int64_t count) override {
    TRIAX_CUDA_CHECK(
        cudaMemsetAsync(info, 0, static_cast<std::size_t>(count) * sizeof(int), stream_));
  }
  BlockAlgorithm algorithm() const override { return algorithm_; }
  std::size_t workspace_bytes() const override { return workspace_.bytes(); }

 private:
  /// Loads both output modes' kernels now (CUDA loads them lazily, inside the first solve
  /// otherwise: launch/launch_kernel.hpp); the launches under the rehearsal only load.
  void load_kernels(const BlockProblem& p, bool checked) {
    cuda::KernelRehearsal rehearsal;
    int* info = checked ? &unused_info_ : nullptr;
    for (const bool accumulate : {false, true}) {
      solve(p, {nullptr, nullptr, nullptr, nullptr, nullptr, accumulate, info});
    }
  }

  cudaStream_t stream_;
  BlockAlgorithm algorithm_;
  cuda::CoopChoice coop_;
  cuda::DeviceWorkspace workspace_;
  int unused_info_ = 0;  // a non-null info for load_kernels in checked mode, never written
};

}  // namespace

template <class T>
std::unique_ptr<BlockBackendPlan<T>> make_cuda_block_plan(const BlockProblem& p, const Options& o,
                                                          BlockAlgorithm algorithm) {
  return std::make_unique<CudaBlockPlan<T>>(p, o, algorithm);
}
TRIAX_INSTANTIATE_CUDA_BLOCK_PLAN()

}  // namespace triax::detail
