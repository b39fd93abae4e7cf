#pragma once
// The launchers of the CUDA block tridiagonal kernels, as the block plan (cuda_block_plan.cu)
// calls them. Each enqueues on the stream, allocates nothing, never synchronises, launches
// through launch_kernel (so that a plan being made only loads its kernels), and in checked mode
// (ops.info != nullptr, device memory) fills info per system as the CPU block plan does.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

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

/// How cuda_block_coop_thomas passes C*[i-1] and d*[i-1] between the lanes of a group and how
/// it sizes its registers; every variant moves the same global bytes in the same order, so the
/// bound of the kernel (bench/gpu_block_bound.cu) is the same for all of them:
///   shuffle           one __shfl_sync a value (M (M + 1) a block row; the kernel before
///                     2026-11-27, 83-107% of the bound on the H100 where shared has 87-118%);
///   shared            each lane stores its row of C*[i-1] | d*[i-1] in shared memory once and
///                     reads the group's M (M + 1) values back as 16-byte broadcasts (a quarter
///                     or half of the instructions), loads its blocks' rows at immediate
///                     offsets where the blocks have column stride 1, and indexes the workspace
///                     at one multiply-add an entry (the default: the fastest or within 2% of
///                     the fastest variant on every row measured, H100 2026-11-27);
///   shared_occupancy  shared, its registers capped per precision and M to fit more thread
///                     blocks an SM with few spills in the row loops (block_coop_thomas.cuh,
///                     coop_min_blocks).
enum class CoopVariant { shuffle, shared, shared_occupancy };

/// TRIAX_CUDA_BLOCK_COOP = shuffle | shared | shared_occupancy (unset or empty: shared), read by
/// each cuda block plan when it is made, so that one process can compare the variants.
inline CoopVariant parse_coop_variant(const char* value) {
  const std::string_view v(value == nullptr ? "" : value);
  if (v.empty() || v == "shared") return CoopVariant::shared;
  if (v == "shuffle") return CoopVariant::shuffle;
  if (v == "shared_occupancy") return CoopVariant::shared_occupancy;
  throw invalid_argument("triax::BlockSolver: TRIAX_CUDA_BLOCK_COOP = \"" + std::string(v) +
                         "\" is not one of shuffle, shared, shared_occupancy");
}
inline CoopVariant coop_variant_from_env() {
  return parse_coop_variant(std::getenv("TRIAX_CUDA_BLOCK_COOP"));
}

template <class T>
void cuda_block_thread_thomas(const BlockProblem& p, const Operands<T>& ops, void* workspace,
                              cudaStream_t stream);
template <class T, CoopVariant V>
void cuda_block_coop_variant(const BlockProblem& p, const Operands<T>& ops, void* workspace,
                             cudaStream_t stream);

template <class T>
void cuda_block_coop_thomas(const BlockProblem& p, const Operands<T>& ops, void* workspace,
                            cudaStream_t stream, CoopVariant variant = CoopVariant::shared) {
  switch (variant) {
    case CoopVariant::shuffle:
      return cuda_block_coop_variant<T, CoopVariant::shuffle>(p, ops, workspace, stream);
    case CoopVariant::shared:
      return cuda_block_coop_variant<T, CoopVariant::shared>(p, ops, workspace, stream);
    case CoopVariant::shared_occupancy:
      return cuda_block_coop_variant<T, CoopVariant::shared_occupancy>(p, ops, workspace, stream);
  }
}

}  // namespace triax::detail::cuda

/// In a kernel's per-precision .cu, inside namespace triax::detail::cuda.
#define TRIAX_INSTANTIATE_BLOCK_LAUNCHER(name, T) \
  template void name<T>(const BlockProblem&, const Operands<T>&, void*, cudaStream_t);
