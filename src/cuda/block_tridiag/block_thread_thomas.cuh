#pragma once
// cuda_block_thread_thomas: one thread per system, block Thomas (paper 000, Algorithm 12). The
// simple reference kernel of the GPU block family and the baseline of its bench rows.
//
// Each block row: the pivot block P = B[i] - A[i] C*[i-1] is built in registers, factored by LU
// without pivoting (unit L below the diagonal, no explicit inverse), and its factors solve the
// right-hand sides one column at a time: d[i] - A[i] d*[i-1] gives d*[i], each column of C[i]
// gives that column of C*[i]. Holding P and one column (not P and all of C[i]) keeps M = 8 in
// double within the registers of a thread. C*[i-1] is read back one row at a time, so A[i] is
// read once. Blocks are read at the BlockProblem's strides: any layout, any axis.
//
// C* and d* go to a workspace interleaved by system (entry e of block row i of system s at
// (i * (M*M + M) + e) * count + s), so that a warp's workspace traffic is coalesced whatever the
// operands' layout; the operands are coalesced where neighbouring systems are neighbours in
// memory (the interleaved layout, or axes >= 1 of the others).
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/block_tridiag/block_access.cuh"
#include "cuda/launch/launch_kernel.hpp"

namespace triax::detail::cuda {
namespace block_thread {

/// Where C*[i](r, c) and d*[i](r) of system s (of `count`) lie in the workspace: C*[i] row-major,
/// then d*[i]. bench/gpu_block_bound.cu reads and writes it alike.
template <int M>
__device__ __forceinline__ std::int64_t cstar_index(std::int64_t i, int r, int c,
                                                    std::int64_t count, std::int64_t s) {
  return (i * (M * M + M) + r * M + c) * count + s;
}
template <int M>
__device__ __forceinline__ std::int64_t dstar_index(std::int64_t i, int r, std::int64_t count,
                                                    std::int64_t s) {
  return (i * (M * M + M) + M * M + r) * count + s;
}

template <class T, int M, bool Accumulate, bool Checked>
__global__ void __launch_bounds__(block_kernel_threads)
    block_thread_thomas_kernel(const __grid_constant__ BlockProblem p, Operands<T> ops,
                               T* __restrict__ work) {
  const std::int64_t count = p.grid.count;
  const std::int64_t n = p.grid.n;
  for (std::int64_t s = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; s < count;
       s += std::int64_t(gridDim.x) * blockDim.x) {
    const BlockSystem<T> sys(p, s);
    auto cstar = [&](std::int64_t i, int r, int c) -> T& {
      return work[cstar_index<M>(i, r, c, count, s)];
    };
    auto dstar = [&](std::int64_t i, int r) -> T& {
      return work[dstar_index<M>(i, r, count, s)];
    };
    int breakdown = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      T lu[M][M];  // the pivot block, then its LU factors
      T y[M];      // d[i] - A[i] d*[i-1], then d*[i]
#pragma unroll
      for (int r = 0; r < M; ++r) {
#pragma unroll
        for (int c = 0; c < M; ++c) lu[r][c] = sys.block(ops.b, op_b, i, r, c);
        y[r] = ops.d[sys.at(op_d, i, r)];
      }
      if (i > 0) {
        // Not unrolled: the compiler would hoist every load of A[i] and C*[i-1] ahead of the
        // arithmetic, past the registers (spills at M = 7, 8 in double).
#pragma unroll 1
        for (int q = 0; q < M; ++q) {
          T cq[M];  // row q of C*[i-1]
#pragma unroll
          for (int c = 0; c < M; ++c) cq[c] = cstar(i - 1, q, c);
          const T dq = dstar(i - 1, q);
#pragma unroll
          for (int r = 0; r < M; ++r) {
            const T a = sys.block(ops.a, op_a, i, r, q);
#pragma unroll
            for (int c = 0; c < M; ++c) lu[r][c] -= a * cq[c];
            y[r] -= a * dq;
          }
        }
      }
      factor<T, M, Checked>(lu, i, breakdown);
      lu_solve<T, M>(lu, y);
#pragma unroll
      for (int r = 0; r < M; ++r) {
        if (Checked && breakdown == 0 && !isfinite(y[r])) breakdown = static_cast<int>(i + 1);
        dstar(i, r) = y[r];
      }
      if (i + 1 < n) {  // C*[n-1] is not needed: C[n-1] is never read
#pragma unroll 1
        for (int c = 0; c < M; ++c) {
          T col[M];
#pragma unroll
          for (int r = 0; r < M; ++r) col[r] = sys.block(ops.c, op_c, i, r, c);
          lu_solve<T, M>(lu, col);
#pragma unroll
          for (int r = 0; r < M; ++r) cstar(i, r, c) = col[r];
        }
      }
    }

    // u[i] = d*[i] - C*[i] u[i+1], stored (or added) as soon as it is known. The last block row
    // with a non-finite stored component (the first met going back) is reported when the
    // forward pass was clean.
    T u[M] = {};  // u[i+1]
    int bad = 0;
    for (std::int64_t i = n - 1; i >= 0; --i) {
      T v[M];
#pragma unroll
      for (int r = 0; r < M; ++r) {
        v[r] = dstar(i, r);
        if (i + 1 < n) {
#pragma unroll
          for (int q = 0; q < M; ++q) v[r] -= cstar(i, r, q) * u[q];
        }
      }
#pragma unroll
      for (int r = 0; r < M; ++r) {
        u[r] = v[r];
        T& out = ops.x[sys.at(op_x, i, r)];
        const T stored = Accumulate ? out + v[r] : v[r];
        out = stored;
        if (Checked && bad == 0 && !isfinite(stored)) bad = static_cast<int>(i + 1);
      }
    }
    if (Checked) ops.info[s] = breakdown != 0 ? breakdown : bad;
  }
}

}  // namespace block_thread

template <class T>
void cuda_block_thread_thomas(const BlockProblem& p, const Operands<T>& ops, void* workspace,
                              cudaStream_t stream) {
  with_block_size_and_mode(p, ops, [&](auto m, auto accumulate, auto checked) {
    launch_kernel(
        block_thread::block_thread_thomas_kernel<T, m.value, accumulate.value, checked.value>,
        block_kernel_grid(p.grid.count), block_kernel_threads, 0, stream, p, ops,
        static_cast<T*>(workspace));
  });
}

}  // namespace triax::detail::cuda
