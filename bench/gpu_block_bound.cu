// The bound of the GPU block rows (--block-bound): for each block kernel, a kernel without the
// arithmetic of block Thomas that moves the same bytes as that kernel, from the same threads, in
// the same order, at the same addresses (docs/performance.md, "Block tridiagonal systems").
//
// What every block row moves and the bound moves with it:
//   forward pass, block row i = 0..n-1: read B[i], d[i], A[i] (i > 0) and C[i] (i < n - 1) at the
//     BlockProblem's strides (BlockSystem, as the kernels read them); write d*[i] and C*[i]
//     (i < n - 1) to the workspace in the kernel's own order (its *_index helpers); the thread
//     kernel also reads C*[i-1] and d*[i-1] back from it (the coop kernel keeps them in
//     registers);
//   backward pass, i = n-1..0: read d*[i] (the coop kernel keeps d*[n-1]) and C*[i] (i < n - 1)
//     back; write u[i] over d[i].
// The products, the LU of each pivot block and the shuffles are replaced by sums carried in
// registers: every loaded value reaches a stored one, so no load can be dropped, and the backward
// pass still carries u[i+1] into u[i]. Block rows go one at a time (#pragma unroll 1), as the
// kernels go: the compiler would otherwise unroll the simpler loops here and overlap rows.
#include <cstdint>

#include "gpu_block_bound.hpp"
#include "cuda/block_tridiag/block_coop_thomas.cuh"
#include "cuda/block_tridiag/block_thread_thomas.cuh"

namespace triax::bench {
namespace {

using detail::BlockProblem;
using detail::Operands;
using detail::op_a;
using detail::op_b;
using detail::op_c;
using detail::op_d;
using detail::op_x;
using detail::cuda::block_kernel_grid;
using detail::cuda::block_kernel_threads;
using detail::cuda::BlockSystem;

/// The bound of cuda_block_thread_thomas (block_thread_thomas.cuh): one thread per system.
template <class T, int M>
__global__ void __launch_bounds__(block_kernel_threads)
    thread_bound_kernel(const __grid_constant__ BlockProblem p, Operands<T> ops,
                        T* __restrict__ work) {
  using detail::cuda::block_thread::cstar_index;
  using detail::cuda::block_thread::dstar_index;
  const std::int64_t count = p.grid.count;
  const std::int64_t n = p.grid.n;
  for (std::int64_t s = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; s < count;
       s += std::int64_t(gridDim.x) * blockDim.x) {
    const BlockSystem<T> sys(p, s);
#pragma unroll 1
    for (std::int64_t i = 0; i < n; ++i) {
      T y[M];  // row r of B[i], d[i], A[i], and all of C*[i-1], d*[i-1]: stored as d*[i]
#pragma unroll
      for (int r = 0; r < M; ++r) {
        y[r] = 0;
#pragma unroll
        for (int c = 0; c < M; ++c) y[r] += sys.block(ops.b, op_b, i, r, c);
        y[r] += ops.d[sys.at(op_d, i, r)];
      }
      if (i > 0) {
#pragma unroll 1
        for (int q = 0; q < M; ++q) {
          T t = 0;  // row q of C*[i-1], then d*[i-1](q)
#pragma unroll
          for (int c = 0; c < M; ++c) t += work[cstar_index<M>(i - 1, q, c, count, s)];
          t += work[dstar_index<M>(i - 1, q, count, s)];
#pragma unroll
          for (int r = 0; r < M; ++r) y[r] += sys.block(ops.a, op_a, i, r, q) + t;
        }
      }
#pragma unroll
      for (int r = 0; r < M; ++r) work[dstar_index<M>(i, r, count, s)] = y[r];
      if (i + 1 < n) {
#pragma unroll 1
        for (int c = 0; c < M; ++c) {
#pragma unroll
          for (int r = 0; r < M; ++r) {
            work[cstar_index<M>(i, r, c, count, s)] = sys.block(ops.c, op_c, i, r, c) + y[r];
          }
        }
      }
    }
    T u[M] = {};  // u[i+1]
#pragma unroll 1
    for (std::int64_t i = n - 1; i >= 0; --i) {
#pragma unroll
      for (int r = 0; r < M; ++r) {
        T v = work[dstar_index<M>(i, r, count, s)] + u[r];
        if (i + 1 < n) {
#pragma unroll
          for (int q = 0; q < M; ++q) v += work[cstar_index<M>(i, r, q, count, s)];
        }
        u[r] = v;
      }
#pragma unroll
      for (int r = 0; r < M; ++r) ops.x[sys.at(op_x, i, r)] = u[r];
    }
  }
}

/// The bound of cuda_block_coop_thomas (block_coop_thomas.cuh): a group of lanes per system,
/// lane r loading and storing row r, padding lanes moving nothing.
template <class T, int M>
__global__ void __launch_bounds__(block_kernel_threads)
    coop_bound_kernel(const __grid_constant__ BlockProblem p, Operands<T> ops,
                      T* __restrict__ work) {
  using detail::cuda::block_coop::work_index;
  const std::int64_t count = p.grid.count;
  const std::int64_t n = p.grid.n;
  const detail::cuda::block_coop::GroupLanes<M> g;
  const int lane = g.lane;
  const bool row_lane = g.row_lane;
  for (std::int64_t warp_first = g.first_system(); warp_first < count;
       warp_first += g.system_step()) {
    const std::int64_t s = warp_first + g.group_in_warp;
    const bool active = s < count;
    const bool owner = active && row_lane;
    const BlockSystem<T> sys(p, active ? s : count - 1);
    auto stash = [&](std::int64_t i, int e) -> T& {
      return work[work_index<M>(i, e, count, s, lane)];
    };
    T dprev = 0;  // this lane's d*[i-1], carried as the kernel carries its row of C*, d*
#pragma unroll 1
    for (std::int64_t i = 0; i < n; ++i) {
      const bool has_c = i + 1 < n;
      T crow[M];
      T drow = dprev;
#pragma unroll
      for (int c = 0; c < M; ++c) {
        drow += row_lane ? sys.block(ops.b, op_b, i, lane, c) : T(0);
        crow[c] = row_lane && has_c ? sys.block(ops.c, op_c, i, lane, c) : T(0);
      }
      drow += row_lane ? ops.d[sys.at(op_d, i, lane)] : T(0);
      if (i > 0) {
#pragma unroll
        for (int q = 0; q < M; ++q) drow += row_lane ? sys.block(ops.a, op_a, i, lane, q) : T(0);
      }
      if (owner) {
        if (has_c) {
#pragma unroll
          for (int c = 0; c < M; ++c) stash(i, c) = crow[c] + drow;
        }
        stash(i, M) = drow;
      }
      dprev = drow;
    }
    T u = dprev;
#pragma unroll 1
    for (std::int64_t i = n - 1; i >= 0; --i) {
      if (i + 1 < n) {
        T v = owner ? stash(i, M) : T(0);
#pragma unroll
        for (int q = 0; q < M; ++q) v += owner ? stash(i, q) : T(0);
        u += v;
      }
      if (owner) ops.x[sys.at(op_x, i, lane)] = u;
    }
  }
}

}  // namespace

template <class T>
void launch_block_bound(BlockAlgorithm algorithm, const BlockProblem& p, T* u, const T* a,
                        const T* b, const T* c, void* workspace, cudaStream_t stream) {
  const Operands<T> ops{a, b, c, u, u, false, nullptr};
  T* work = static_cast<T*>(workspace);
  // The plan's dispatch of the run-time M; the solve mode is always store, unchecked.
  detail::cuda::with_block_size_and_mode(p, ops, [&](auto m, auto, auto) {
    constexpr int M = decltype(m)::value;
    if (algorithm == BlockAlgorithm::cuda_block_thread_thomas) {
      thread_bound_kernel<T, M>
          <<<block_kernel_grid(p.grid.count), block_kernel_threads, 0, stream>>>(p, ops, work);
    } else {
      constexpr int lanes = detail::cuda::block_coop::group_lanes<M>;
      coop_bound_kernel<T, M><<<block_kernel_grid(p.grid.count * lanes), block_kernel_threads, 0,
                                stream>>>(p, ops, work);
    }
    TRIAX_CUDA_CHECK_LAUNCH();
  });
}
template void launch_block_bound(BlockAlgorithm, const BlockProblem&, float*, const float*,
                                 const float*, const float*, void*, cudaStream_t);
template void launch_block_bound(BlockAlgorithm, const BlockProblem&, double*, const double*,
                                 const double*, const double*, void*, cudaStream_t);

}  // namespace triax::bench
