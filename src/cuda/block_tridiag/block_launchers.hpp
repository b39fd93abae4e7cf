#pragma once
// The launchers of the CUDA block tridiagonal kernels, as the block plan (cuda_block_plan.cu)
// calls them. Each enqueues on the stream, allocates nothing, never synchronises, launches
// through launch_kernel (so that a plan being made only loads its kernels), and in checked mode
// (ops.info != nullptr, device memory) fills info per system as the CPU block plan does.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/block_problem.hpp"
#include "triax/errors.hpp"

namespace triax::detail::cuda {

/// The largest M the CUDA block kernels take: the coop kernel's groups of lanes stay within a
/// warp, and a block row of the one-thread kernel within its registers.
inline constexpr int max_cuda_block_size = 8;

/// Throws for an M the kernels do not take (before a plan allocates anything).
inline void check_cuda_block_size(int m) {
  if (m < 1 || m > max_cuda_block_size) {
    throw invalid_argument("triax::BlockSolver: m = " + std::to_string(m) +
                           " is beyond the cuda block kernels (1 <= m <= " +
                           std::to_string(max_cuda_block_size) + ")");
  }
}

/// The workspace of both kernels: C*[i] and d*[i] of every block row of every system
/// (M * M + M values a block row), each kernel in its own system-interleaved order. Throws for
/// an M the kernels do not take, so that a plan fails before it allocates.
template <class T>
std::size_t cuda_block_workspace_bytes(const BlockProblem& p) {
  check_cuda_block_size(p.m);
  const std::size_t per_row = static_cast<std::size_t>(p.m) * (p.m + 1);
  return per_row * static_cast<std::size_t>(p.grid.n) * static_cast<std::size_t>(p.grid.count) *
         sizeof(T);
}

template <class T>
void cuda_block_thread_thomas(const BlockProblem& p, const Operands<T>& ops, void* workspace,
                              cudaStream_t stream);
template <class T>
void cuda_block_coop_thomas(const BlockProblem& p, const Operands<T>& ops, void* workspace,
                            cudaStream_t stream);

}  // namespace triax::detail::cuda

/// In a kernel's per-precision .cu, inside namespace triax::detail::cuda.
#define TRIAX_INSTANTIATE_BLOCK_LAUNCHER(name, T) \
  template void name<T>(const BlockProblem&, const Operands<T>&, void*, cudaStream_t);
