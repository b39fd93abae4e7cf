// The CUDA backend of triax::FactoredSolver's cyclic-reduction algorithms (paper 004): copies
// the precomputed coefficients to the device once, picks how many neighbouring systems a block
// takes, sizes the workspace the global variant needs for u += x, loads its kernels, and
// launches on the caller's stream at every solve (no allocation, no synchronisation).
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>

#include "core/factored/factored_plan.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_workspace.hpp"
#include "cuda/factored/cr_launch_shape.hpp"
#include "cuda/factored/factored_cr_kernels.cuh"
#include "cuda/factored/launch_flags.hpp"
#include "cuda/launch/launch_kernel.hpp"

namespace triax::detail {
namespace {

using cuda_factored_cr::cr_tile_bytes;
using cuda_factored_cr::global_shift;
using cuda_factored_cr::shared_shift;

template <class T>
class CudaFactoredCrPlan final : public FactoredBackendPlan<T> {
 public:
  CudaFactoredCrPlan(const Problem& p, const Options& o, const CrTable<T>& table, bool global)
      : stream_(static_cast<cudaStream_t>(o.stream)),
        global_(global),
        shift_(global ? global_shift<T>(p) : shared_shift<T>(p)),
        entries_(table.entries.size() * sizeof(T)),
        work_(global ? static_cast<std::size_t>(p.n * p.count) * sizeof(T) : 0),
        view_(table.view()) {
    TRIAX_CUDA_CHECK(
        cudaMemcpy(entries_.get(), table.entries.data(), entries_.bytes(), cudaMemcpyHostToDevice));
    view_.entries = static_cast<const T*>(entries_.get());
    cuda::KernelRehearsal rehearsal;
    int* info = o.checked ? &unused_info_ : nullptr;
    for (const bool accumulate : {false, true}) solve(p, {nullptr, nullptr, accumulate, info});
  }

  void solve(const Problem& p, const FactoredOperands<T>& ops) override {
    cuda_factored::with_flags(
        ops.accumulate, ops.info != nullptr, view_.scaled,
        [&](auto accumulate, auto checked, auto scaled) {
          launch<decltype(accumulate)::value, decltype(checked)::value, decltype(scaled)::value>(
              p, ops);
        });
  }
  void clear_info(int* info, std::int64_t count) override {
    TRIAX_CUDA_CHECK(
        cudaMemsetAsync(info, 0, static_cast<std::size_t>(count) * sizeof(int), stream_));
  }
  std::size_t workspace_bytes() const override { return entries_.bytes() + work_.bytes(); }

 private:
  template <bool Accumulate, bool Checked, bool Scaled>
  void launch(const Problem& p, const FactoredOperands<T>& ops) {
    using namespace cuda_factored_cr;
    const std::int64_t lanes = std::int64_t(1) << shift_;
    const dim3 grid(static_cast<unsigned>((p.count + lanes - 1) / lanes));
    if (global_) {
      cuda::launch_kernel(factored_cr_global<T, Accumulate, Checked, Scaled>, grid,
                          dim3(block_threads), 0, stream_, p, ops.d, ops.x,
                          static_cast<T*>(work_.get()), view_, shift_, ops.info);
    } else {
      cuda::launch_kernel(factored_cr_shared<T, Accumulate, Checked, Scaled>, grid,
                          dim3(block_threads),
                          static_cast<std::size_t>(cr_tile_bytes<T>(p.n, shift_)), stream_, p,
                          ops.d, ops.x, view_, shift_, ops.info);
    }
  }

  cudaStream_t stream_;
  bool global_;
  int shift_;  // log2 of the systems a block takes
  cuda::DeviceWorkspace entries_;
  cuda::DeviceWorkspace work_;
  CrView<T> view_;
  int unused_info_ = 0;
};

}  // namespace

template <class T>
std::unique_ptr<FactoredBackendPlan<T>> make_cuda_factored_cr_plan(const Problem& p,
                                                                   const Options& o,
                                                                   const CrTable<T>& table,
                                                                   bool global) {
  return std::make_unique<CudaFactoredCrPlan<T>>(p, o, table, global);
}
template std::unique_ptr<FactoredBackendPlan<float>> make_cuda_factored_cr_plan(
    const Problem&, const Options&, const CrTable<float>&, bool);
template std::unique_ptr<FactoredBackendPlan<double>> make_cuda_factored_cr_plan(
    const Problem&, const Options&, const CrTable<double>&, bool);

}  // namespace triax::detail
