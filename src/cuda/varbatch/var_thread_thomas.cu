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
#include "cuda/scalar/warp/hybrid_math.cuh"
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

// The staged kernel: one warp per system of 1..staged_rows rows stored with unit row stride
// (back to back, or padded Flat). The warp reads the system's rows in coalesced runs into shared
// memory, each lane takes a chunk of them (32 chunks of n / 32 or n / 32 + 1 rows; for n < 64,
// chunks of 2 or 3), and the Thomas-PCR hybrid's arithmetic (warp/hybrid_math.cuh: the modified
// Thomas sweep per chunk, PCR over shuffles on the reduced pairs, the back substitution) solves
// it there; x goes out in coalesced runs. Every value is read once and written once, against
// the per-thread kernel's workspace round trip of c' and d' (4 accesses per row more).
// Row k of chunk j sits at k * stage_pitch + j: lanes (chunks) reading their k-th row hit
// distinct banks, and so do the loads, whose consecutive rows mostly share a chunk.
constexpr int staged_rows = 512;
constexpr int stage_chunk_rows = staged_rows / warp;  // the longest chunk when n >= 64
constexpr int stage_pitch = warp + 1;
constexpr int stage_size = stage_chunk_rows * stage_pitch;
constexpr int staged_warps = 2;  // per block: 2 x 4 x 16.5 KiB of double in 48 KiB

template <class T>
struct StagedRows {
  static constexpr int unroll = 1;
  T *a, *b, *c, *d;  // this lane's column: row k of its chunk at k * stage_pitch
  __device__ __forceinline__ static int bound(int length) { return length; }
  __device__ __forceinline__ T& sub(int k) { return a[k * stage_pitch]; }
  __device__ __forceinline__ T& diag(int k) { return b[k * stage_pitch]; }
  __device__ __forceinline__ T& sup(int k) { return c[k * stage_pitch]; }
  __device__ __forceinline__ T& rhs(int k) { return d[k * stage_pitch]; }
};

// How a system of n rows is cut into the warp's 32 chunks: chunk j starts at row start(j) and
// has length(j) rows; chunk_of(i) gives the chunk of row i and its place in it.
struct Chunks {
  int n, q, rem, big, pairs;  // n >= 64: q or q + 1 rows; n < 64: pairs of 2, the last 2 or 3
  __device__ __forceinline__ explicit Chunks(int rows) : n(rows) {
    q = n / warp;
    rem = n % warp;
    big = rem * (q + 1);
    pairs = n / 2 > 0 ? n / 2 : 1;
  }
  __device__ __forceinline__ int length(int j) const {
    if (n >= 2 * warp) return q + (j < rem ? 1 : 0);
    if (n == 1) return j == 0 ? 1 : 0;
    if (j < pairs - 1) return 2;
    return j == pairs - 1 ? n - 2 * (pairs - 1) : 0;
  }
  __device__ __forceinline__ void chunk_of(int i, int& j, int& k) const {
    if (n >= 2 * warp) {
      if (i < big) {
        j = i / (q + 1);
        k = i - j * (q + 1);
      } else {
        j = rem + (i - big) / q;
        k = i - big - (j - rem) * q;
      }
    } else {
      j = min(i / 2, pairs - 1);
      k = i - 2 * j;
    }
  }
};

template <class T, bool Accumulate, bool Padded>
__global__ void __launch_bounds__(staged_warps * warp)
    var_staged_hybrid_kernel(Problem p, Operands<T> ops, const std::int64_t* __restrict__ order,
                             const std::int64_t* __restrict__ lengths,
                             const std::int64_t* __restrict__ offsets, std::int64_t systems) {
  __shared__ T stage[staged_warps][4][stage_size];
  const int lane = threadIdx.x % warp, w_in_block = threadIdx.x / warp;
  T* sa = stage[w_in_block][0];
  T* sb = stage[w_in_block][1];
  T* sc = stage[w_in_block][2];
  T* sd = stage[w_in_block][3];
  for (std::int64_t w = std::int64_t(blockIdx.x) * staged_warps + w_in_block; w < systems;
       w += std::int64_t(gridDim.x) * staged_warps) {
    const std::int64_t s = order[w];
    const int n = static_cast<int>(lengths[s]);
    std::int64_t off[operand_count];
    for (int op = 0; op < operand_count; ++op) off[op] = Padded ? p.system_offset(op, s) : offsets[s];
    const T* a = ops.a + off[op_a];
    const T* b = ops.b + off[op_b];
    const T* c = ops.c + off[op_c];
    const T* d = ops.d + off[op_d];
    T* x = ops.x + off[op_x];
    const Chunks chunks(n);
#pragma unroll 4
    for (int i = lane; i < n; i += warp) {
      int j, k;
      chunks.chunk_of(i, j, k);
      const int e = k * stage_pitch + j;
      sa[e] = i > 0 ? a[i] : T(0);      // a[0] is never read
      sb[e] = b[i];
      sc[e] = i + 1 < n ? c[i] : T(0);  // nor c[n-1]
      sd[e] = d[i];
    }
    __syncwarp();
    StagedRows<T> rows{sa + lane, sb + lane, sc + lane, sd + lane};
    const int L = chunks.length(lane);
    cuda::Row<T> first, last;
    cuda::chunk_reduce<T>(rows, L, first, last);
    T x_first, x_last;
    cuda::pair_solve<T>(first, last, warp, x_first, x_last);
    cuda::chunk_back<T>(rows, L, x_first, x_last);
    __syncwarp();
#pragma unroll 4
    for (int i = lane; i < n; i += warp) {
      int j, k;
      chunks.chunk_of(i, j, k);
      const T v = sd[k * stage_pitch + j];
      x[i] = Accumulate ? x[i] + v : v;
    }
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
    std::vector<std::int64_t> order, staged_order;
    for (std::int64_t s = 0; s < count; ++s) {
      const std::int64_t n = layout.lengths[s];
      if (n > limit) {
        long_systems_.push_back(s);
      } else if (staged && n >= 1 && n <= staged_rows) {
        staged_order.push_back(s);
      } else {
        order.push_back(s);
      }
    }
    staged_ = static_cast<std::int64_t>(staged_order.size());
    staged_order_ = to_device(staged_order);
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
                        offsets_->bytes() + warp_base_->bytes() + staged_order_->bytes();
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
    launch_staged(p, ops);
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

  void launch_staged(const Problem& p, const Operands<T>& ops) {
    if (staged_ == 0 || ops.info != nullptr) return;
    const auto grid = static_cast<unsigned>(
        std::min<std::int64_t>((staged_ + staged_warps - 1) / staged_warps, std::int64_t(1) << 30));
    const auto* order = static_cast<const std::int64_t*>(staged_order_->get());
    const auto* lengths = static_cast<const std::int64_t*>(lengths_->get());
    const auto* offsets = static_cast<const std::int64_t*>(offsets_->get());
    const auto go = [&](auto kernel) {
      cuda::launch_kernel(kernel, grid, staged_warps * warp, 0, stream_, p, ops, order, lengths,
                          offsets, staged_);
    };
    if (layout_.padded()) {
      ops.accumulate ? go(var_staged_hybrid_kernel<T, true, true>)
                     : go(var_staged_hybrid_kernel<T, false, true>);
    } else {
      ops.accumulate ? go(var_staged_hybrid_kernel<T, true, false>)
                     : go(var_staged_hybrid_kernel<T, false, false>);
    }
  }

  const VarLayout::Data& layout_;  // owned by the VarSolver, which outlives this plan
  cudaStream_t stream_;
  std::int64_t staged_ = 0;
  Buffer staged_order_;
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
