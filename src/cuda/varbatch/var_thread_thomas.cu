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
//   to staged_rows rows: where the fixed batch of the longest length runs the pipelined hybrid
//   (neighbouring systems adjacent, 129..512 rows), that kernel with a length per system
//   (var_pipelined.hpp; 2026-11-27, varpad: the tile kernel took 3.1-3.2x the fixed batch's
//   time on the H100); else the tile kernel (var_tile_staged.cuh), G neighbouring systems a
//   block;
// - the rest: the per-thread kernel below.
// Back to back, outside checked mode (2026-11-27, varb2b), every system of 1..B2BPlan::max_rows
// rows goes first to the back-to-back hybrid (var_b2b_kernel.cuh), one launch per length class
// (core/var_b2b_classes.hpp); the routing above then applies to the rest (the longer systems).
// Back-to-back systems above that, up to B2BTiles::max_long_rows, go to the same kernel's tiles
// (two passes around a reduced batch, as the fixed hybrid's long path) instead of the segments.
// TRIAX_CUDA_VAR_B2B=0 keeps the routing above for all of them (the staged kernel, as before);
// TRIAX_CUDA_VAR_B2B_LONG=0 only the long ones (the segment kernels).
// TRIAX_CUDA_VAR_B2B_VARIANT=base|ahead|prefetch picks how the class kernel runs
// (B2BVariant, core/var_b2b_classes.hpp; var31; unset: ahead in float, prefetch in double);
// TRIAX_CUDA_VAR_B2B_BOUND=1 is a measuring aid
// for the bench: the class and tile kernels become their arithmetic-free bounds (same launches,
// grids, loads and stores; x = a + b + c + d, NOT a solution) except in increment mode.
// On the H200 (bench/results/layouts/gpu-h200.json) a heavy-tailed batch (log-uniform 8..65536
// rows) took 30 ms in float when the systems above 512 rows ran one thread each (up to 8192
// dependent steps) and the ~900 above 8192 one launch each: 0.5% of the copy.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string_view>
#include <numeric>
#include <vector>

#include "core/backend_plan.hpp"
#include "core/var_problem.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_workspace.hpp"
#include "cuda/launch/launch_kernel.hpp"
#include "cuda/scalar/thread/thomas_steps.cuh"
#include "cuda/solve_modes.cuh"
#include "core/var_b2b_classes.hpp"
#include "cuda/varbatch/staged_warp.cuh"
#include "cuda/varbatch/var_b2b_kernel.cuh"
#include "cuda/varbatch/var_b2b_launch.hpp"
#include "cuda/varbatch/var_pipelined.hpp"
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

/// Where a staged system lies: its index, rows (clamped) and, back to back, its offset.
struct StagedPlace {
  std::int64_t s = 0, offset = 0;
  int n = 0;
};

using cuda::prefetch_l2;  // var_b2b_kernel.cuh

/// Asks the L2 for rows 0..n-1 of a, b, c and d at `off` (unit row stride), the warp's lanes
/// taking the 128-byte lines in turn: what the next stage_load reads then comes from the L2.
template <class T>
__device__ __forceinline__ void prefetch_rows(const Operands<T>& ops,
                                              const std::int64_t (&off)[operand_count], int n,
                                              int lane) {
  if (n <= 0) return;
  const T* base[4] = {ops.a + off[op_a], ops.b + off[op_b], ops.c + off[op_c], ops.d + off[op_d]};
  constexpr int line = 128;
#pragma unroll
  for (int op = 0; op < 4; ++op) {
    const auto first = reinterpret_cast<std::uintptr_t>(base[op]) / line;
    const auto last = (reinterpret_cast<std::uintptr_t>(base[op] + n) - 1) / line;
    for (std::uintptr_t l = first + lane; l <= last; l += warp) {
      prefetch_l2(reinterpret_cast<const void*>(l * line));
    }
  }
}

// The staged kernel, persistent (2026-11-27, varpad): a block per resident slot, each warp
// looping over systems w, w + warps in the grid, ... Back to back at lengths 256..512 the
// one-system-per-warp launch reached 46% of the copy on the H100: each warp first waited for
// order[w], then for lengths[s] and offsets[s] (two dependent round trips), then for its rows,
// then solved with nothing in flight. Here the places of the next two systems are read a
// system ahead, and the next system's rows are asked of the L2 (prefetch_rows) before this one
// is solved, so DRAM keeps working through the arithmetic without a second stage (which would
// halve the resident warps).
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
  const std::int64_t step = std::int64_t(gridDim.x) * staged_warps;
  // Clamped to the plan's bound: lengths passed per solve in device memory are not checked.
  const auto place_of = [&](std::int64_t s) {
    StagedPlace pl;
    pl.s = s;
    pl.n = static_cast<int>(min(max(lengths[s], std::int64_t(0)), bound));
    pl.offset = Padded ? 0 : offsets[s];
    return pl;
  };
  const auto offsets_of = [&](const StagedPlace& pl, std::int64_t (&off)[operand_count]) {
#pragma unroll
    for (int op = 0; op < operand_count; ++op) {
      off[op] = Padded ? p.system_offset(op, pl.s) : pl.offset;
    }
  };
  std::int64_t w = std::int64_t(blockIdx.x) * staged_warps + w_in_block;
  if (w >= systems) return;
  StagedPlace cur = place_of(order[w]), next;
  if (w + step < systems) next = place_of(order[w + step]);
  for (; w < systems; w += step) {
    // The system after next: its index now, its length and offset once this one's rows are in.
    const bool has_next = w + step < systems, has_after = w + 2 * step < systems;
    const std::int64_t s_after = has_after ? order[w + 2 * step] : 0;
    std::int64_t off[operand_count];
    offsets_of(cur, off);
    const int n = cur.n;  // n == 0: padded plans list every system (lengths may change per solve)
    const cuda::Chunks chunks(n);
    if (n > 0) {
      cuda::stage_load(st, chunks, ops.a + off[op_a], ops.b + off[op_b], ops.c + off[op_c],
                       ops.d + off[op_d], true, true, lane);
    }
    if (has_next) {
      std::int64_t next_off[operand_count];
      offsets_of(next, next_off);
      prefetch_rows(ops, next_off, next.n, lane);
    }
    StagedPlace after;
    if (has_after) after = place_of(s_after);
    if (n > 0) {
      __syncwarp();
      cuda::stage_solve(st, chunks, lane);
      __syncwarp();
      cuda::stage_store<T, Accumulate>(st, chunks, ops.x + off[op_x], lane);
      __syncwarp();  // the next system overwrites the stage
    }
    cur = next;
    next = after;
  }
}

using Buffer = std::unique_ptr<cuda::DeviceWorkspace>;

/// A tuning aid for comparisons on the device, read when a plan is made: "0" turns a path of
/// 2026-11-27 (varpad) off. TRIAX_CUDA_VAR_PIPELINED=0: padded storage with another row stride
/// takes the tile kernel, not the fixed batch's pipelined one; TRIAX_CUDA_VAR_STAGED_PERSISTENT=0:
/// the staged kernel launches a block per two systems (each warp one system, so nothing to read
/// ahead), as before.
bool switch_on(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr || std::string_view(v) != "0";
}

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
    // Back to back, the length classes of the back-to-back hybrid (var_b2b_kernel.cuh) take every
    // system up to B2BPlan::max_rows rows; the kernels below keep the longer ones.
    if (segmented && switch_on("TRIAX_CUDA_VAR_B2B")) {
      // TRIAX_CUDA_VAR_B2B_MIN_CLASS (a test and tuning aid): the fewest systems a class keeps
      // before it joins the next larger one (default 2048; 1 keeps every class apart).
      const char* mc = std::getenv("TRIAX_CUDA_VAR_B2B_MIN_CLASS");
      const std::int64_t min_class = mc != nullptr ? std::max(1LL, std::atoll(mc)) : 2048;
      b2b_ = plan_b2b_classes(layout.lengths, layout.offsets, min_class);
      b2b_on_ = true;
      // Unset: ahead, the variant measured fastest in both precisions since the asynchronous
      // staging (H200, 2026-11-28, 25600 systems of 256..512 rows, every variant in one process:
      // double ahead 2613-2642 GB/s against prefetch's 2451-2483 and base's 2551-2580; float
      // ahead 2412-2476 against base's 2411-2466 and prefetch's 2283;
      // bench/results/layouts/gpu-h200-async-var.txt).
      const char* variant = std::getenv("TRIAX_CUDA_VAR_B2B_VARIANT");
      b2b_variant_ = variant != nullptr && *variant != '\0' ? parse_b2b_variant(variant)
                                                            : B2BVariant::ahead;
      const char* bound = std::getenv("TRIAX_CUDA_VAR_B2B_BOUND");
      b2b_bound_ = bound != nullptr && std::string_view(bound) == "1";
      // Longer ones (up to B2BTiles::max_long_rows) in tiles, two passes around a reduced batch
      // that the classes solve; TRIAX_CUDA_VAR_B2B_LONG=0 leaves them to the segment kernels.
      if (switch_on("TRIAX_CUDA_VAR_B2B_LONG")) {
        b2b_tiles_ = plan_b2b_tiles(layout.lengths, layout.offsets, b2b_.rest);
        b2b_reduced_ = plan_b2b_classes(b2b_tiles_.reduced_lengths, b2b_tiles_.reduced_offsets,
                                        min_class);
        b2b_long_on_ = !b2b_tiles_.tiles.empty();
        if (b2b_long_on_) allow_tile_shared_memory();
      }
    }
    b2b_launches_ = prepare_b2b(b2b_);
    b2b_reduced_launches_ = prepare_b2b(b2b_reduced_);
    b2b_entries_ = to_device(b2b_.entries);
    b2b_tile_buffer_ = to_device(b2b_tiles_.tiles);
    b2b_reduced_entries_ = to_device(b2b_reduced_.entries);
    b2b_work_ = std::make_unique<cuda::DeviceWorkspace>(
        4 * static_cast<std::size_t>(b2b_tiles_.reduced_rows) * sizeof(T));
    // Padded with another row stride (Full-Interleaved), every system within a stage: the whole
    // batch goes to the tile kernel (var_tile_staged.cuh).
    tiled_ = layout.padded() && !unit_rows && !options.checked &&
             layout.max_length <= staged_rows;
    // The fixed batch's own kernel where it takes the layout (var_pipelined.hpp).
    if (tiled_) {
      Problem longest = layout.fixed;
      longest.n = layout.max_length;
      pipelined_on_ = switch_on("TRIAX_CUDA_VAR_PIPELINED") && pipelined_.choose(longest);
    }
    if (tiled_) {
      for (const auto kernel : {cuda::var_tile_staged_kernel<T, false>,
                                cuda::var_tile_staged_kernel<T, true>}) {
        cuda::allow_shared_memory(kernel, cuda::tile_smem_bytes<T>);
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
      if (b2b_on_ && n <= B2BPlan::max_rows) continue;  // empty ones too: nothing to do
      if (b2b_long_on_ && n <= B2BTiles::max_long_rows) continue;
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
    // The staged kernel's blocks the device holds at once (both instances use the same shared
    // memory and take the same registers to within the occupancy's granularity).
    if (staged_ > 0 || reduced_systems_ > 0) {
      int per_sm = 0, sms = 0, device = 0;
      TRIAX_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          &per_sm, var_staged_hybrid_kernel<T, true, false>, staged_warps * warp, 0));
      TRIAX_CUDA_CHECK(cudaGetDevice(&device));
      TRIAX_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
      staged_resident_ = std::max<std::int64_t>(1, std::int64_t(per_sm) * sms);
      if (!switch_on("TRIAX_CUDA_VAR_STAGED_PERSISTENT")) staged_resident_ = std::int64_t(1) << 30;
    }
    // Load the kernels now, not inside the first solve (launch/launch_kernel.hpp).
    cuda::KernelRehearsal rehearsal;
    int unused = 0;
    for (const bool accumulate : {false, true}) {
      launch(layout.fixed, {nullptr, nullptr, nullptr, nullptr, nullptr, accumulate,
                            options.checked ? &unused : nullptr});
      // The tile kernel too, which takes over from the pipelined one for misaligned pointers.
      if (pipelined_on_) {
        launch_tile_kernel(layout.fixed, {nullptr, nullptr, nullptr, nullptr, nullptr, accumulate,
                                          nullptr},
                           nullptr);
      }
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
                        solve_lengths_->bytes() + b2b_entries_->bytes() +
                        b2b_tile_buffer_->bytes() + b2b_reduced_entries_->bytes() +
                        b2b_work_->bytes();
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
    launch_b2b(ops);
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

  /// The tile kernels' shared memory past the 48 KiB a launch gets without asking (double: four
  /// staging arrays a warp).
  static void allow_tile_shared_memory() {
    constexpr std::size_t smem = cuda::B2BSmem<T, B2BPlan::M, 32>::bytes;
    if constexpr (smem > 48 * 1024) {
      const void* kernels[] = {
          reinterpret_cast<const void*>(cuda::var_b2b_tile_kernel<T, false, false, false>),
          reinterpret_cast<const void*>(cuda::var_b2b_tile_kernel<T, false, false>),
          reinterpret_cast<const void*>(cuda::var_b2b_tile_kernel<T, true, true>),
          reinterpret_cast<const void*>(cuda::var_b2b_tile_kernel<T, true, false, false>),
          reinterpret_cast<const void*>(cuda::var_b2b_tile_kernel<T, true, false>)};
      for (const void* k : kernels) cuda::allow_shared_memory(k, smem);
    }
  }

  // Plan time: each class's resident blocks (the variants' look-ahead) and the bound switch; the
  // kernels' shared memory opted in where they need more than 48 KiB.
  std::vector<cuda::B2BLaunch> prepare_b2b(const B2BPlan& plan) const {
    std::vector<cuda::B2BLaunch> launches;
    for (const B2BClass& c : plan.classes) {
      const std::int64_t resident = with_b2b_variant([&](auto v) {
        return cuda::prepare_b2b_class<T, decltype(v)::value>(c.P, b2b_bound_);
      });
      launches.push_back({resident, b2b_bound_});
    }
    return launches;
  }

  /// f(std::integral_constant<B2BVariant, variant>) for the plan's variant.
  template <class F>
  auto with_b2b_variant(F&& f) const {
    using V = B2BVariant;
    switch (b2b_variant_) {
      case V::ahead: return f(std::integral_constant<V, V::ahead>{});
      case V::prefetch: return f(std::integral_constant<V, V::prefetch>{});
      default: return f(std::integral_constant<V, V::base>{});
    }
  }

  // One launch per length class of the back-to-back hybrid (var_b2b_kernel.cuh): P chunk
  // threads of M rows per system, 256 / P systems a block.
  void launch_b2b(const Operands<T>& ops) {
    if (!b2b_on_ || ops.info != nullptr) return;
    // The bound (a measuring aid) never in increment mode, nor, then, in its reduced batch.
    const bool bound = b2b_bound_ && !ops.accumulate;
    launch_b2b_classes(ops, b2b_, static_cast<const B2BEntry*>(b2b_entries_->get()),
                       b2b_launches_, bound);
    if (!b2b_long_on_) return;
    // The long systems' tiles: reduce, the reduced batch in place, finish.
    const std::int64_t tiles = static_cast<std::int64_t>(b2b_tiles_.tiles.size());
    const auto grid = static_cast<unsigned>(std::min<std::int64_t>(
        (tiles + cuda::b2b_warps - 1) / cuda::b2b_warps, std::int64_t(1) << 30));
    const auto* tile_table = static_cast<const B2BTile*>(b2b_tile_buffer_->get());
    const std::int64_t plane = b2b_tiles_.reduced_rows;
    T* ws = static_cast<T*>(b2b_work_->get());
    constexpr std::size_t smem = cuda::B2BSmem<T, B2BPlan::M, 32>::bytes;
    const auto pass = [&](auto kernel) {
      cuda::launch_kernel(kernel, grid, cuda::b2b_threads, smem, stream_, ops, tile_table, tiles,
                          ws, plane);
    };
    bound ? pass(cuda::var_b2b_tile_kernel<T, false, false, false>)
          : pass(cuda::var_b2b_tile_kernel<T, false, false>);
    const Operands<T> reduced{ws, ws + plane, ws + 2 * plane, ws + 3 * plane, ws + 3 * plane,
                              false, nullptr};
    launch_b2b_classes(reduced, b2b_reduced_,
                       static_cast<const B2BEntry*>(b2b_reduced_entries_->get()),
                       b2b_reduced_launches_, bound);
    if (ops.accumulate) {
      pass(cuda::var_b2b_tile_kernel<T, true, true>);
    } else {
      bound ? pass(cuda::var_b2b_tile_kernel<T, true, false, false>)
            : pass(cuda::var_b2b_tile_kernel<T, true, false>);
    }
  }

  void launch_b2b_classes(const Operands<T>& ops, const B2BPlan& plan, const B2BEntry* entries,
                          const std::vector<cuda::B2BLaunch>& launches, bool bound) {
    for (std::size_t k = 0; k < plan.classes.size(); ++k) {
      cuda::B2BLaunch how = launches[k];
      how.bound = bound;
      with_b2b_variant([&](auto v) {
        cuda::launch_b2b_class<T, decltype(v)::value>(ops, entries, plan.classes[k], how,
                                                      stream_);
      });
    }
  }

  // The persistent staged kernel's blocks for `systems` systems: at most one per system pair,
  // at most what the device holds at once (staged_resident_, from the occupancy at plan time).
  unsigned staged_grid(std::int64_t systems) const {
    const std::int64_t wanted = (systems + staged_warps - 1) / staged_warps;
    return static_cast<unsigned>(
        std::max<std::int64_t>(1, std::min({wanted, staged_resident_, std::int64_t(1) << 30})));
  }

  void launch_staged(const Problem& p, const Operands<T>& ops, const std::int64_t* lengths) {
    if (staged_ == 0 || ops.info != nullptr) return;
    const auto grid = staged_grid(staged_);
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
    if (pipelined_on_ && pipelined_.run(p, ops, lengths, stream_)) return;
    launch_tile_kernel(p, ops, lengths);
  }

  void launch_tile_kernel(const Problem& p, const Operands<T>& ops, const std::int64_t* lengths) {
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
    const auto reduced_grid = staged_grid(reduced_systems_);
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
  bool tiled_ = false, staged_all_ = false, pipelined_on_ = false, b2b_on_ = false;
  bool b2b_long_on_ = false;
  B2BVariant b2b_variant_ = B2BVariant::base;
  bool b2b_bound_ = false;
  B2BPlan b2b_, b2b_reduced_;
  std::vector<cuda::B2BLaunch> b2b_launches_, b2b_reduced_launches_;
  B2BTiles b2b_tiles_;
  Buffer b2b_entries_, b2b_tile_buffer_, b2b_reduced_entries_, b2b_work_;
  std::int64_t staged_resident_ = std::int64_t(1) << 30;
  cuda::VarPipelined<T> pipelined_;
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
