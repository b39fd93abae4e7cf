// The CUDA backend of triax::FactoredSolver: copies the factor table to the device once, sizes
// the workspace u += x needs for long systems, loads its kernels, and launches on the caller's
// stream at every solve (no allocation, no synchronisation).
#include <cuda_runtime.h>

#include <cstdlib>
#include <memory>

#include "core/factored/factored_plan.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_workspace.hpp"
#include "cuda/factored/factored_kernels.cuh"
#include "cuda/factored/launch_flags.hpp"
#include "cuda/launch/launch_kernel.hpp"

namespace triax::detail {
namespace {

constexpr int block_threads = 128;
// Systems up to this many rows keep d' in registers (32 rows of double: 64 registers).
constexpr int register_rows = 32;

constexpr int staged_threads = 256;
// The staged kernel's shared memory: the 64 offsets and n x (lanes + 1) values. Within the
// default 48 KiB a block, so that no attribute is needed and 4 or more blocks fit an SM.
constexpr std::size_t staged_budget = 48 * 1024;

template <class T>
std::size_t staged_bytes(std::int64_t n, int lanes) {
  return 64 * sizeof(std::int64_t) + static_cast<std::size_t>(n) * (lanes + 1) * sizeof(T);
}

/// Systems a staged block holds: the most of 32, 16, 8, 4 whose tile fits the budget (rows of
/// at least 32 bytes, one sector, where lanes are the contiguous index); 0 where none does.
template <class T>
int staged_lanes(const Problem& p) {
  for (int lanes : {32, 16, 8, 4}) {
    if (lanes * sizeof(T) < 32 && p.map[op_d].row_stride != 1) break;
    if (staged_bytes<T>(p.n, lanes) <= staged_budget) return lanes;
  }
  return 0;
}

/// TRIAX_CUDA_FACTORED_STAGED=0 keeps the staged kernel off (the tiled and one-thread kernels
/// then run for n > 32): for comparing them in triax-bench-factored and testing them unchecked.
inline bool staged_allowed() {
  const char* v = std::getenv("TRIAX_CUDA_FACTORED_STAGED");
  return v == nullptr || v[0] != '0';
}

template <class T>
class CudaFactoredPlan final : public FactoredBackendPlan<T> {
 public:
  CudaFactoredPlan(const Problem& p, const Options& o, const FactorTable<T>& table)
      : stream_(static_cast<cudaStream_t>(o.stream)),
        staged_(staged_allowed() && staged_lanes<T>(p) > 0),
        rows_(table.rows.size() * sizeof(T)),
        // u += x keeps d' in the workspace where neither registers nor the staged tile hold it.
        work_(p.n > register_rows && (o.checked || !staged_)
                  ? static_cast<std::size_t>(p.n * p.count) * sizeof(T)
                  : 0),
        view_(table.view()) {
    TRIAX_CUDA_CHECK(cudaMemcpy(rows_.get(), table.rows.data(), rows_.bytes(),
                                cudaMemcpyHostToDevice));
    view_.rows = static_cast<const T*>(rows_.get());
    cuda::KernelRehearsal rehearsal;
    int* info = o.checked ? &unused_info_ : nullptr;
    for (const bool accumulate : {false, true}) solve(p, {nullptr, nullptr, accumulate, info});
  }

  void solve(const Problem& p, const FactoredOperands<T>& ops) override {
    cuda_factored::with_flags(ops.accumulate, ops.info != nullptr, view_.scaled,
                              [&](auto accumulate, auto checked, auto scaled) {
                                launch<decltype(accumulate)::value, decltype(checked)::value,
                                       decltype(scaled)::value>(p, ops);
                              });
  }
  void clear_info(int* info, std::int64_t count) override {
    TRIAX_CUDA_CHECK(
        cudaMemsetAsync(info, 0, static_cast<std::size_t>(count) * sizeof(int), stream_));
  }
  std::size_t workspace_bytes() const override { return rows_.bytes() + work_.bytes(); }

 private:
  template <bool Accumulate, bool Checked, bool Scaled>
  void launch(const Problem& p, const FactoredOperands<T>& ops) {
    const dim3 grid(static_cast<unsigned>((p.count + block_threads - 1) / block_threads));
    using namespace cuda_factored;
    if (p.n <= 8) {
      cuda::launch_kernel(factored_registers<8, T, Accumulate, Checked, Scaled>, grid,
                          dim3(block_threads), 0, stream_, p, ops.d, ops.x, view_, ops.info);
    } else if (p.n <= register_rows) {
      cuda::launch_kernel(factored_registers<register_rows, T, Accumulate, Checked, Scaled>, grid,
                          dim3(block_threads), 0, stream_, p, ops.d, ops.x, view_, ops.info);
    } else if (const int lanes = staged_lanes<T>(p); !Checked && staged_) {
      // Whole systems in shared memory: d read once, x written once.
      const std::size_t smem = staged_bytes<T>(p.n, lanes);
      cuda::launch_kernel(factored_staged<T, Accumulate, Scaled>,
                          dim3(static_cast<unsigned>((p.count + lanes - 1) / lanes)),
                          dim3(staged_threads), smem, stream_, p, ops.d, ops.x, view_, lanes);
    } else if (p.map[op_d].row_stride == 1 && p.map[op_x].row_stride == 1) {
      // Rows contiguous (along x): coalesced through shared-memory tiles.
      const std::int64_t warps = (p.count + 31) / 32;
      const dim3 tiled_grid(static_cast<unsigned>((warps + tile_warps - 1) / tile_warps));
      cuda::launch_kernel(factored_tiled<T, Accumulate, Checked, Scaled>, tiled_grid,
                          dim3(32 * tile_warps), 0, stream_, p, ops.d, ops.x,
                          static_cast<T*>(work_.get()), view_, ops.info);
    } else {
      cuda::launch_kernel(factored_any<T, Accumulate, Checked, Scaled>, grid, dim3(block_threads),
                          0, stream_, p, ops.d, ops.x, static_cast<T*>(work_.get()), view_,
                          ops.info);
    }
  }

  cudaStream_t stream_;
  bool staged_;  // the staged kernel fits (and is not switched off) for n > 32 unchecked
  cuda::DeviceWorkspace rows_;
  cuda::DeviceWorkspace work_;
  FactorView<T> view_;
  int unused_info_ = 0;
};

}  // namespace

template <class T>
std::unique_ptr<FactoredBackendPlan<T>> make_cuda_factored_plan(const Problem& p, const Options& o,
                                                                const FactorTable<T>& table) {
  return std::make_unique<CudaFactoredPlan<T>>(p, o, table);
}
template std::unique_ptr<FactoredBackendPlan<float>> make_cuda_factored_plan(
    const Problem&, const Options&, const FactorTable<float>&);
template std::unique_ptr<FactoredBackendPlan<double>> make_cuda_factored_plan(
    const Problem&, const Options&, const FactorTable<double>&);

}  // namespace triax::detail
