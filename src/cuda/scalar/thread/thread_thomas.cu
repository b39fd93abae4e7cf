// thread_thomas: one thread per system (paper 000 s.6.2, cuThomasBatch of paper 002). Rows are
// read at the system's row stride; when neighbouring systems are neighbours in memory (axes >= 1)
// the threads of a warp read one contiguous run per row, coalesced. c' and d' live in a
// workspace interleaved by system (row i of system s at i * count + s), so their traffic is
// coalesced on every axis. Any layout, any n, every mode.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/problem.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/launch/kernels.hpp"
#include "cuda/launch/launch_kernel.hpp"
#include "cuda/solve_modes.cuh"
#include "cuda/scalar/thread/thomas_steps.cuh"

namespace triax::detail::cuda {
namespace {

template <class T, bool Accumulate, bool Checked>
__global__ void thread_thomas_kernel(Problem p, Operands<T> ops, T* __restrict__ cp,
                                     T* __restrict__ dp) {
  const std::int64_t count = p.count;
  const std::int64_t n = p.n;
  const std::int64_t ra = p.map[op_a].row_stride, rb = p.map[op_b].row_stride,
                     rc = p.map[op_c].row_stride, rd = p.map[op_d].row_stride,
                     rx = p.map[op_x].row_stride;
  for (std::int64_t s = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; s < count;
       s += std::int64_t(gridDim.x) * blockDim.x) {
    const T* a = ops.a + p.system_offset(op_a, s);
    const T* b = ops.b + p.system_offset(op_b, s);
    const T* c = ops.c + p.system_offset(op_c, s);
    const T* d = ops.d + p.system_offset(op_d, s);
    T* x = ops.x + p.system_offset(op_x, s);
    ThomasForward<T, Checked> forward;
    for (std::int64_t i = 0; i < n; ++i) {
      const T ai = i > 0 ? a[i * ra] : T(0);      // a[0] is never read
      const T ci = i + 1 < n ? c[i * rc] : T(0);  // nor c[n-1]
      forward.step(ai, b[i * rb], ci, d[i * rd], i);
      cp[i * count + s] = forward.cp;
      dp[i * count + s] = forward.dp;
    }
    ThomasBackward<T, Checked> backward;
    for (std::int64_t i = n - 1; i >= 0; --i) {
      const T xi = backward.step(cp[i * count + s], dp[i * count + s]);
      const T out = Accumulate ? x[i * rx] + xi : xi;
      x[i * rx] = out;
      backward.check(out, i);
    }
    if (Checked) ops.info[s] = thomas_info(forward, backward);
  }
}

constexpr int block_threads = 128;

template <class T, bool Accumulate, bool Checked>
void launch(const Problem& p, const Operands<T>& ops, void* workspace, cudaStream_t stream) {
  T* cp = static_cast<T*>(workspace);
  T* dp = cp + p.n * p.count;
  const std::int64_t blocks = (p.count + block_threads - 1) / block_threads;
  const unsigned grid = static_cast<unsigned>(blocks < (1 << 30) ? blocks : (1 << 30));
  launch_kernel(thread_thomas_kernel<T, Accumulate, Checked>, grid, block_threads, 0, stream, p,
                ops, cp, dp);
}

}  // namespace

template <class T>
bool thread_thomas_supports(const Problem&) {
  return true;
}

template <class T>
std::size_t thread_thomas_workspace(const Problem& p) {
  return interleaved_workspace_bytes<T>(p);
}

template <class T>
void thread_thomas(const Problem& p, const Operands<T>& ops, void* workspace,
                   cudaStream_t stream) {
  with_solve_mode(ops, [&](auto accumulate, auto checked) {
    launch<T, accumulate.value, checked.value>(p, ops, workspace, stream);
  });
}

TRIAX_INSTANTIATE_CUDA_ALGORITHM(thread_thomas)

}  // namespace triax::detail::cuda
