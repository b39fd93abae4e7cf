#pragma once
// The bound of the GPU block rows (gpu_block_bound.cu): the bytes of a block kernel without its
// arithmetic, for --block-bound.
#include <cuda_runtime.h>

#include "core/block_problem.hpp"
#include "triax/block.hpp"

namespace triax::bench {

/// Enqueues on `stream` the bound kernel of `algorithm` (cuda_block_thread_thomas or
/// cuda_block_coop_thomas) on the in-place problem p: reads a, b, c and u (d), writes the
/// workspace (cuda_block_workspace_bytes) and u, in that kernel's order and thread mapping.
template <class T>
void launch_block_bound(BlockAlgorithm algorithm, const detail::BlockProblem& p, T* u, const T* a,
                        const T* b, const T* c, void* workspace, cudaStream_t stream);

}  // namespace triax::bench
