// The CUDA backend of a variable-size batch (paper 002's cuThomasVBatch, NCP): one thread per
// system, Thomas with the fixed kernels' steps (thread/thomas_steps.cuh: row scaling, the
// reciprocal that turns a broken pivot into NaN, checked mode's info).
//
// Which systems share a warp: padded storage keeps the systems' own order, so that on the
// Full-Interleaved layout a warp's 32 neighbouring systems read one coalesced run per row (the
// warp then runs as long as its longest system). Back-to-back storage cannot coalesce across
// systems anyway; there the plan orders the systems by length, longest first, so that a warp's
// systems have nearly the same length and no lane idles while another finishes a long one.
// c' and d' go to a workspace interleaved by warp (row i of lane l of warp w at
// base[w] + 32 i + l), as long as the warp's longest system: about 2 values per real row.
//
// Systems longer than VarSolver::long_system_rows would leave one thread running alone long
// after the rest; each is solved by a fixed-size CUDA plan of its own (a batch of one system,
// where the automatic choice is the hybrid that splits a system across a thread block), on the
// same stream after the kernel.
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <vector>

#include "core/backend_plan.hpp"
#include "core/var_problem.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_workspace.hpp"
#include "cuda/launch/launch_kernel.hpp"
#include "cuda/scalar/thread/thomas_steps.cuh"
#include "cuda/solve_modes.cuh"

namespace triax::detail {
namespace {

constexpr int warp = 32;
constexpr int block_threads = 128;

template <class T, bool Accumulate, bool Checked, bool Padded>
__global__ void var_thread_thomas_kernel(Problem p, Operands<T> ops,
                                         const std::int64_t* __restrict__ order,
                                         const std::int64_t* __restrict__ lengths,
                                         const std::int64_t* __restrict__ offsets,
                                         const std::int64_t* __restrict__ warp_base,
                                         std::int64_t threads, T* __restrict__ cp,
                                         T* __restrict__ dp) {
  const std::int64_t q = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (q >= threads) return;
  const std::int64_t s = order[q];
  const std::int64_t n = lengths[s];
  std::int64_t off[operand_count], stride[operand_count];
  for (int op = 0; op < operand_count; ++op) {
    off[op] = Padded ? p.system_offset(op, s) : offsets[s];
    stride[op] = Padded ? p.map[op].row_stride : 1;
  }
  const T* a = ops.a + off[op_a];
  const T* b = ops.b + off[op_b];
  const T* c = ops.c + off[op_c];
  const T* d = ops.d + off[op_d];
  T* x = ops.x + off[op_x];
  T* wc = cp + warp_base[q / warp] + q % warp;
  T* wd = dp + warp_base[q / warp] + q % warp;
  cuda::ThomasForward<T, Checked> forward;
  for (std::int64_t i = 0; i < n; ++i) {
    const T ai = i > 0 ? a[i * stride[op_a]] : T(0);      // a[0] is never read
    const T ci = i + 1 < n ? c[i * stride[op_c]] : T(0);  // nor c[n-1]
    forward.step(ai, b[i * stride[op_b]], ci, d[i * stride[op_d]], i);
    wc[i * warp] = forward.cp;
    wd[i * warp] = forward.dp;
  }
  cuda::ThomasBackward<T, Checked> backward;
  for (std::int64_t i = n - 1; i >= 0; --i) {
    const T xi = backward.step(wc[i * warp], wd[i * warp]);
    const T out = Accumulate ? x[i * stride[op_x]] + xi : xi;
    x[i * stride[op_x]] = out;
    backward.check(out, i);
  }
  if (Checked) ops.info[s] = cuda::thomas_info(forward, backward);
}

using Buffer = std::unique_ptr<cuda::DeviceWorkspace>;

template <class V>
Buffer to_device(const std::vector<V>& host) {
  auto w = std::make_unique<cuda::DeviceWorkspace>(host.size() * sizeof(V));
  if (!host.empty()) {
    TRIAX_CUDA_CHECK(cudaMemcpy(w->get(), host.data(), w->bytes(), cudaMemcpyHostToDevice));
  }
  return w;
}

template <class T>
class CudaVarPlan final : public VarBackendPlan<T> {
 public:
  CudaVarPlan(const VarLayout::Data& layout, const Options& options)
      : layout_(layout), stream_(static_cast<cudaStream_t>(options.stream)) {
    const auto count = static_cast<std::int64_t>(layout.lengths.size());
    const std::int64_t limit = VarSolver<T>::long_system_rows;
    std::vector<std::int64_t> order;
    for (std::int64_t s = 0; s < count; ++s) {
      if (layout.lengths[s] > limit) {
        long_systems_.push_back(s);
      } else {
        order.push_back(s);
      }
    }
    if (!layout.padded()) {
      std::stable_sort(order.begin(), order.end(), [&](std::int64_t x, std::int64_t y) {
        return layout.lengths[x] > layout.lengths[y];
      });
    }
    threads_ = static_cast<std::int64_t>(order.size());
    std::vector<std::int64_t> base((threads_ + warp - 1) / warp);
    std::int64_t next = 0;
    for (std::size_t w = 0; w < base.size(); ++w) {
      std::int64_t longest = 0;
      for (std::int64_t q = w * warp; q < std::min<std::int64_t>(threads_, (w + 1) * warp); ++q) {
        longest = std::max(longest, layout.lengths[order[q]]);
      }
      base[w] = next;
      next += longest * warp;
    }
    ws_values_ = next;
    order_ = to_device(order);
    lengths_ = to_device(layout.lengths);
    offsets_ = to_device(layout.offsets);
    warp_base_ = to_device(base);
    work_ = std::make_unique<cuda::DeviceWorkspace>(2 * static_cast<std::size_t>(ws_values_) *
                                                   sizeof(T));
    for (const std::int64_t s : long_systems_) {
      long_plans_.push_back(make_cuda_plan<T>(one_system(layout.fixed, s), options));
    }
    // Load the kernels now, not inside the first solve (launch/launch_kernel.hpp).
    cuda::KernelRehearsal rehearsal;
    int unused = 0;
    for (const bool accumulate : {false, true}) {
      launch(layout.fixed, {nullptr, nullptr, nullptr, nullptr, nullptr, accumulate,
                            options.checked ? &unused : nullptr});
    }
  }

  void solve(const Problem& p, const Operands<T>& ops) override {
    launch(p, ops);
    for (std::size_t k = 0; k < long_systems_.size(); ++k) {
      const std::int64_t s = long_systems_[k];
      Operands<T> o = ops;
      o.info = ops.info != nullptr ? ops.info + s : nullptr;
      long_plans_[k]->solve(one_system(p, s), o);
    }
  }

  std::size_t workspace_bytes() const override {
    std::size_t bytes = work_->bytes() + order_->bytes() + lengths_->bytes() +
                        offsets_->bytes() + warp_base_->bytes();
    for (const auto& plan : long_plans_) bytes += plan->workspace_bytes();
    return bytes;
  }

 private:
  // System s as a fixed batch of one system.
  Problem one_system(const Problem& p, std::int64_t s) const {
    Problem one{};
    one.n = layout_.lengths[s];
    one.count = 1;
    for (int op = 0; op < operand_count; ++op) {
      one.map[op].offset = layout_.system_offset(p, op, s);
      one.map[op].row_stride = layout_.row_stride(p, op);
    }
    return one;
  }

  void launch(const Problem& p, const Operands<T>& ops) {
    if (threads_ == 0) return;
    T* cp = static_cast<T*>(work_->get());
    T* dp = cp + ws_values_;
    const auto grid = static_cast<unsigned>((threads_ + block_threads - 1) / block_threads);
    const auto* order = static_cast<const std::int64_t*>(order_->get());
    const auto* lengths = static_cast<const std::int64_t*>(lengths_->get());
    const auto* offsets = static_cast<const std::int64_t*>(offsets_->get());
    const auto* base = static_cast<const std::int64_t*>(warp_base_->get());
    cuda::with_solve_mode(ops, [&](auto accumulate, auto checked) {
      constexpr bool acc = decltype(accumulate)::value, chk = decltype(checked)::value;
      if (layout_.padded()) {
        cuda::launch_kernel(var_thread_thomas_kernel<T, acc, chk, true>, grid, block_threads, 0,
                            stream_, p, ops, order, lengths, offsets, base, threads_, cp, dp);
      } else {
        cuda::launch_kernel(var_thread_thomas_kernel<T, acc, chk, false>, grid, block_threads, 0,
                            stream_, p, ops, order, lengths, offsets, base, threads_, cp, dp);
      }
    });
  }

  const VarLayout::Data& layout_;  // owned by the VarSolver, which outlives this plan
  cudaStream_t stream_;
  std::int64_t threads_ = 0, ws_values_ = 0;
  std::vector<std::int64_t> long_systems_;
  std::vector<std::unique_ptr<BackendPlan<T>>> long_plans_;
  Buffer order_, lengths_, offsets_, warp_base_, work_;
};

}  // namespace

template <class T>
std::unique_ptr<VarBackendPlan<T>> make_cuda_var_plan(const VarLayout::Data& layout,
                                                      const Options& options) {
  return std::make_unique<CudaVarPlan<T>>(layout, options);
}
template std::unique_ptr<VarBackendPlan<float>> make_cuda_var_plan(const VarLayout::Data&,
                                                                   const Options&);
template std::unique_ptr<VarBackendPlan<double>> make_cuda_var_plan(const VarLayout::Data&,
                                                                    const Options&);

}  // namespace triax::detail
