#pragma once
// The tuned kernels of the coop kernel's `shared` variant (CoopTune, block_launchers.hpp): the
// same body (block_coop_thomas.cuh), so the same global loads and stores per lane and in order
// and the same bound, with a thread block of Warps warps, at most MaxRegs registers a thread
// (0: ptxas's choice), optionally the approximate reciprocal of the pivots and the late scaling
// of the back substitution. Compiled only for
// float M = 5 (the 64^3 grid's) and M = 8 (issue 27's last row) on blocks of column stride 1,
// every output mode; a translation unit a tune (block_coop_tuned_*.cu) keeps the build parallel.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "cuda/block_tridiag/block_coop_thomas.cuh"

namespace triax::detail::cuda {
namespace block_coop {

template <class T, int M, bool Accumulate, bool Checked, int Threads, bool ApproxRcp,
          bool LateScale>
__global__ void __launch_bounds__(Threads)
    block_coop_tuned_kernel(const __grid_constant__ BlockProblem p, Operands<T> ops,
                            T* __restrict__ work) {
  block_coop_thomas<T, M, Accumulate, Checked, CoopVariant::shared, true, Threads, ApproxRcp,
                    LateScale>(p, ops, work);
}

// The cap as thread blocks an SM (ptxas fits the registers to them, as coop_min_blocks does):
// with __maxnreg__(64) instead, ptxas spilled float M = 8 (unchecked, store) 56 bytes where
// __launch_bounds__(128, 8) spills 4 (sm_90, CUDA 13.0).
template <int Threads, int MaxRegs>
inline constexpr int min_blocks_for_regs = 65536 / (Threads * MaxRegs);

template <class T, int M, bool Accumulate, bool Checked, int Threads, int MaxRegs, bool ApproxRcp,
          bool LateScale>
__global__ void __launch_bounds__(Threads, (min_blocks_for_regs<Threads, MaxRegs>))
    block_coop_tuned_capped_kernel(const __grid_constant__ BlockProblem p, Operands<T> ops,
                                   T* __restrict__ work) {
  block_coop_thomas<T, M, Accumulate, Checked, CoopVariant::shared, true, Threads, ApproxRcp,
                    LateScale>(p, ops, work);
}

}  // namespace block_coop

template <class T, int Warps, int MaxRegs, bool ApproxRcp, bool LateScale>
bool cuda_block_coop_tuned(const BlockProblem& p, const Operands<T>& ops, void* workspace,
                           cudaStream_t stream) {
  const bool unit = p.entry_col[op_a] == 1 && p.entry_col[op_b] == 1 && p.entry_col[op_c] == 1;
  if (!unit || (p.m != 5 && p.m != 8)) return false;
  constexpr int threads = Warps * 32;
  auto go = [&](auto m) {
    constexpr int M = m.value;
    using namespace block_coop;
    const std::int64_t blocks = (p.grid.count * group_lanes<M> + threads - 1) / threads;
    const unsigned grid = static_cast<unsigned>(blocks < (1 << 30) ? blocks : (1 << 30));
    with_solve_mode(ops, [&](auto accumulate, auto checked) {
      auto launch = [&](auto kernel) {
        launch_kernel(kernel, grid, threads, 0, stream, p, ops, static_cast<T*>(workspace));
      };
      if constexpr (MaxRegs > 0) {
        launch(block_coop_tuned_capped_kernel<T, M, accumulate.value, checked.value, threads,
                                              MaxRegs, ApproxRcp, LateScale>);
      } else {
        launch(block_coop_tuned_kernel<T, M, accumulate.value, checked.value, threads, ApproxRcp,
                                       LateScale>);
      }
    });
  };
  if (p.m == 5) {
    go(std::integral_constant<int, 5>{});
  } else {
    go(std::integral_constant<int, 8>{});
  }
  return true;
}

/// In a tune's .cu, inside namespace triax::detail::cuda.
#define TRIAX_INSTANTIATE_COOP_TUNE(W, R, A, L)           \
  template bool cuda_block_coop_tuned<float, W, R, A, L>( \
      const BlockProblem&, const Operands<float>&, void*, cudaStream_t);

}  // namespace triax::detail::cuda
