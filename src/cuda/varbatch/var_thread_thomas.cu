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
// Where each system goes (outside checked mode, which keeps the per-thread kernel for its
// row-by-row info):
// - unit row stride, 1..staged_rows rows: the staged kernel, a warp per system;
// - back to back, staged_rows + 1 .. max_segmented_rows rows: the segment kernels
//   (var_segments.cuh), a warp per segment of 257..512 rows, three launches for all of them;
// - longer than VarSolver::long_system_rows and not segmented: a fixed-size CUDA plan of its
//   own (a batch of one system: the hybrid that splits a system across a thread block), on the
//   same stream after the kernels;
// - padded with a row stride other than 1 (Full-Interleaved, Unified-Vector), every system up
//   to staged_rows rows: the tile kernel (var_tile_staged.cuh), G neighbouring systems a block;
// - the rest: the per-thread kernel below.
// On the H200 (bench/results/layouts/gpu-h200.json) a heavy-tailed batch (log-uniform 8..65536
// rows) took 30 ms in float when the systems above 512 rows ran one thread each (up to 8192
// dependent steps) and the ~900 above 8192 one launch each: 0.5% of the copy.
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
#include "cuda/varbatch/staged_warp.cuh"
#include "cuda/varbatch/var_segments.cuh"
#include "cuda/varbatch/var_tile_staged.cuh"

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

// The staged kernel: one warp per system of 1..staged_rows rows stored with unit row stride
// (back to back, or padded Flat), solved in the warp's stage (varbatch/staged_warp.cuh); against
// the per-thread kernel's workspace round trip of c' and d', every value is read once and
// written once.
using cuda::staged_rows;
constexpr int staged_warps = 2;  // per block: 2 x 4 x 16.5 KiB of double in 48 KiB

template <class T, bool Accumulate, bool Padded>
__global__ void __launch_bounds__(staged_warps * warp)
    var_staged_hybrid_kernel(Problem p, Operands<T> ops, const std::int64_t* __restrict__ order,
                             const std::int64_t* __restrict__ lengths,
                             const std::int64_t* __restrict__ offsets, std::int64_t systems,
                             std::int64_t bound) {
  __shared__ T stage[staged_warps][4][cuda::stage_size];
  const int lane = threadIdx.x % warp, w_in_block = threadIdx.x / warp;
  const cuda::Stage<T> st{stage[w_in_block][0], stage[w_in_block][1], stage[w_in_block][2],
                          stage[w_in_block][3]};
  for (std::int64_t w = std::int64_t(blockIdx.x) * staged_warps + w_in_block; w < systems;
       w += std::int64_t(gridDim.x) * staged_warps) {
    const std::int64_t s = order[w];
    // Clamped to the plan's bound: lengths passed per solve in device memory are not checked.
    const int n = static_cast<int>(min(max(lengths[s], std::int64_t(0)), bound));
    if (n == 0) continue;  // padded plans list every system (lengths may change per solve)
    std::int64_t off[operand_count];
    for (int op = 0; op < operand_count; ++op) off[op] = Padded ? p.system_offset(op, s) : offsets[s];
    const cuda::Chunks chunks(n);
    cuda::stage_load(st, chunks, ops.a + off[op_a], ops.b + off[op_b], ops.c + off[op_c],
                     ops.d + off[op_d], true, true, lane);
    __syncwarp();
    cuda::stage_solve(st, chunks, lane);
    __syncwarp();
    cuda::stage_store<T, Accumulate>(st, chunks, ops.x + off[op_x], lane);
    __syncwarp();  // the next system overwrites the stage
  }
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
    // The staged kernel takes systems of unit row stride up to staged_rows rows; checked mode
    // stays with the per-thread Thomas, whose info is the reference's row by row.
    bool unit_rows = true;
    for (int op = 0; op < operand_count; ++op) {
      unit_rows = unit_rows && (!layout.padded() || layout.fixed.map[op].row_stride == 1);
    }
    const bool staged = unit_rows && !options.checked;
    // Back to back, longer systems go to the segment kernels (var_segments.cuh) up to
    // max_segmented_rows; beyond (or in checked mode, or padded) as before.
    const bool segmented = staged && !layout.padded();
    // Padded with another row stride (Full-Interleaved), every system within a stage: the whole
    // batch goes to the tile kernel (var_tile_staged.cuh).
    tiled_ = layout.padded() && !unit_rows && !options.checked &&
             layout.max_length <= staged_rows;
    if (tiled_) {
      for (const auto kernel : {cuda::var_tile_staged_kernel<T, false>,
                                cuda::var_tile_staged_kernel<T, true>}) {
        TRIAX_CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                              cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              static_cast<int>(cuda::tile_smem_bytes<T>)));
      }
    }
    std::vector<std::int64_t> order, staged_order;
    std::vector<cuda::Segment> segments;
    std::vector<std::int64_t> reduced_lengths, reduced_offsets;
    // Padded with unit row stride, every system within a stage: the staged kernel takes them
    // all, empty ones too, so that lengths passed per solve need no other kernel.
    staged_all_ = staged && layout.padded() && layout.max_length <= staged_rows;
    for (std::int64_t s = 0; s < count && !tiled_; ++s) {
      const std::int64_t n = layout.lengths[s];
      if (staged_all_ || (staged && n >= 1 && n <= staged_rows)) {
        staged_order.push_back(s);
      } else if (segmented && n > staged_rows && n <= cuda::max_segmented_rows) {
        add_segments(layout.offsets[s], n, segments, reduced_lengths, reduced_offsets);
      } else if (n > limit) {
        long_systems_.push_back(s);
      } else {
        order.push_back(s);
      }
    }
    staged_ = static_cast<std::int64_t>(staged_order.size());
    staged_order_ = to_device(staged_order);
    segments_ = static_cast<std::int64_t>(segments.size());
    reduced_systems_ = static_cast<std::int64_t>(reduced_lengths.size());
    segments_buffer_ = to_device(segments);
    reduced_lengths_ = to_device(reduced_lengths);
    reduced_offsets_ = to_device(reduced_offsets);
    std::vector<std::int64_t> reduced_order(reduced_lengths.size());
    std::iota(reduced_order.begin(), reduced_order.end(), std::int64_t(0));
    reduced_order_ = to_device(reduced_order);
    const std::int64_t reduced_rows =
        reduced_offsets.empty() ? 0 : reduced_offsets.back() + reduced_lengths.back();
    reduced_ = std::make_unique<cuda::DeviceWorkspace>(4 * static_cast<std::size_t>(reduced_rows) *
                                                       sizeof(T));
    reduced_rows_ = reduced_rows;
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
    // Where lengths passed per solve in host memory go (copied on the stream).
    solve_lengths_ = std::make_unique<cuda::DeviceWorkspace>(
        takes_solve_lengths() ? static_cast<std::size_t>(count) * sizeof(std::int64_t) : 0);
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

  bool takes_solve_lengths() const override { return tiled_ || staged_all_; }

  // Only the tile or the staged kernel runs (takes_solve_lengths), reading the lengths on the
  // device; host lengths are copied there first, in stream order (the copy of pageable memory
  // returns once the values are staged, so the caller may reuse its array).
  void solve_lengths(const Problem& p, const Operands<T>& ops, const std::int64_t* lengths,
                     bool on_device) override {
    const auto count = static_cast<std::int64_t>(layout_.lengths.size());
    const std::int64_t* dl = lengths;
    if (!on_device) {
      TRIAX_CUDA_CHECK(cudaMemcpyAsync(solve_lengths_->get(), lengths,
                                       static_cast<std::size_t>(count) * sizeof(std::int64_t),
                                       cudaMemcpyHostToDevice, stream_));
      dl = static_cast<const std::int64_t*>(solve_lengths_->get());
    }
    if (tiled_) {
      launch_tiled(p, ops, dl);
    } else {
      launch_staged(p, ops, dl);
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
                        offsets_->bytes() + warp_base_->bytes() + staged_order_->bytes() +
                        segments_buffer_->bytes() + reduced_lengths_->bytes() +
                        reduced_offsets_->bytes() + reduced_order_->bytes() + reduced_->bytes() +
                        solve_lengths_->bytes();
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

  // System of n rows at element `start`: segments of nearly equal rows (257..512, since
  // n > staged_rows), and its reduced system of 2 rows per segment.
  static void add_segments(std::int64_t start, std::int64_t n, std::vector<cuda::Segment>& segments,
                           std::vector<std::int64_t>& reduced_lengths,
                           std::vector<std::int64_t>& reduced_offsets) {
    const std::int64_t parts = (n + staged_rows - 1) / staged_rows;
    const std::int64_t first_reduced =
        reduced_offsets.empty() ? 0 : reduced_offsets.back() + reduced_lengths.back();
    reduced_offsets.push_back(first_reduced);
    reduced_lengths.push_back(2 * parts);
    const std::int64_t q = n / parts, rem = n % parts;
    std::int64_t row = 0;
    for (std::int64_t k = 0; k < parts; ++k) {
      const int rows = static_cast<int>(q + (k < rem ? 1 : 0));
      segments.push_back({start + row, first_reduced + 2 * k, rows,
                          (k == 0 ? 1 : 0) | (k + 1 == parts ? 2 : 0)});
      row += rows;
    }
  }

  void launch(const Problem& p, const Operands<T>& ops) {
    const auto* layout_lengths = static_cast<const std::int64_t*>(lengths_->get());
    if (tiled_) {
      launch_tiled(p, ops, layout_lengths);
      return;
    }
    launch_staged(p, ops, layout_lengths);
    launch_segments(p, ops);
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

  void launch_staged(const Problem& p, const Operands<T>& ops, const std::int64_t* lengths) {
    if (staged_ == 0 || ops.info != nullptr) return;
    const auto grid = static_cast<unsigned>(
        std::min<std::int64_t>((staged_ + staged_warps - 1) / staged_warps, std::int64_t(1) << 30));
    const auto* order = static_cast<const std::int64_t*>(staged_order_->get());
    const auto* offsets = static_cast<const std::int64_t*>(offsets_->get());
    const auto go = [&](auto kernel) {
      // The bound is the plan's longest system (at most staged_rows here): a length passed per
      // solve beyond it would run past the system's padded storage.
      cuda::launch_kernel(kernel, grid, staged_warps * warp, 0, stream_, p, ops, order, lengths,
                          offsets, staged_,
                          std::min<std::int64_t>(layout_.max_length, staged_rows));
    };
    if (layout_.padded()) {
      ops.accumulate ? go(var_staged_hybrid_kernel<T, true, true>)
                     : go(var_staged_hybrid_kernel<T, false, true>);
    } else {
      ops.accumulate ? go(var_staged_hybrid_kernel<T, true, false>)
                     : go(var_staged_hybrid_kernel<T, false, false>);
    }
  }

  void launch_tiled(const Problem& p, const Operands<T>& ops, const std::int64_t* lengths) {
    const std::int64_t count = static_cast<std::int64_t>(layout_.lengths.size());
    if (count == 0) return;
    constexpr int G = cuda::tile_systems<T>;
    const auto grid = static_cast<unsigned>(
        std::min<std::int64_t>((count + G - 1) / G, std::int64_t(1) << 30));
    const auto go = [&](auto kernel) {
      cuda::launch_kernel(kernel, grid, G * warp, cuda::tile_smem_bytes<T>, stream_, p, ops,
                          lengths, count, layout_.max_length);
    };
    ops.accumulate ? go(cuda::var_tile_staged_kernel<T, true>)
                   : go(cuda::var_tile_staged_kernel<T, false>);
  }

  void launch_segments(const Problem& p, const Operands<T>& ops) {
    if (segments_ == 0) return;
    const auto grid = static_cast<unsigned>(std::min<std::int64_t>(
        (segments_ + cuda::segment_warps - 1) / cuda::segment_warps, std::int64_t(1) << 30));
    const dim3 block(cuda::segment_warps * warp);
    const auto* segs = static_cast<const cuda::Segment*>(segments_buffer_->get());
    T* ra = static_cast<T*>(reduced_->get());
    T* rb = ra + reduced_rows_;
    T* rc = rb + reduced_rows_;
    T* rd = rc + reduced_rows_;
    cuda::launch_kernel(cuda::var_segment_reduce_kernel<T>, grid, block, 0, stream_, ops, segs,
                        segments_, ra, rb, rc, rd);
    const Operands<T> reduced{ra, rb, rc, rd, rd, false, nullptr};
    const auto reduced_grid = static_cast<unsigned>(
        std::min<std::int64_t>((reduced_systems_ + staged_warps - 1) / staged_warps,
                               std::int64_t(1) << 30));
    cuda::launch_kernel(var_staged_hybrid_kernel<T, false, false>, reduced_grid,
                        staged_warps * warp, 0, stream_, p, reduced,
                        static_cast<const std::int64_t*>(reduced_order_->get()),
                        static_cast<const std::int64_t*>(reduced_lengths_->get()),
                        static_cast<const std::int64_t*>(reduced_offsets_->get()),
                        reduced_systems_, std::int64_t(staged_rows));
    const auto back = [&](auto kernel) {
      cuda::launch_kernel(kernel, grid, block, 0, stream_, ops, segs, segments_,
                          static_cast<const T*>(rd));
    };
    ops.accumulate ? back(cuda::var_segment_back_kernel<T, true>)
                   : back(cuda::var_segment_back_kernel<T, false>);
  }

  const VarLayout::Data& layout_;  // owned by the VarSolver, which outlives this plan
  cudaStream_t stream_;
  bool tiled_ = false, staged_all_ = false;
  Buffer solve_lengths_;
  std::int64_t staged_ = 0;
  Buffer staged_order_;
  std::int64_t segments_ = 0, reduced_systems_ = 0, reduced_rows_ = 0;
  Buffer segments_buffer_, reduced_lengths_, reduced_offsets_, reduced_order_, reduced_;
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
