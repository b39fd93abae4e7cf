// block_thomas_pcr: the Thomas-PCR hybrid for systems longer than a warp's registers hold
// (paper 000, s.6.3, one level up). Each thread keeps a chunk of 8 or 16 rows in registers; up to
// 256 chunk threads (several warps) share a system, and its reduced system (two equations per
// chunk) goes through shared memory to one warp, which solves it with the same hybrid: a chunk of
// 2P/32 reduced rows per lane, PCR over shuffles, back substitution. Rows contiguous (axis 0):
// the system's threads are consecutive and each loads its own chunk with 16-byte vectors (through
// a shared-memory transpose of coalesced runs where the chunks are not 16-byte aligned);
// neighbouring systems adjacent (axes >= 1): lanes are systems, and for some lengths in float a,
// b and c wait in shared memory instead of registers (staged_kernel.cuh).
// Beyond 256 chunks (n > 4096 float, 2048 double) the long path runs: every chunk writes its two
// reduced equations to the workspace, that batch of systems (2 rows per chunk) is solved the
// same way (recursively), and the chunks are re-read to finish: no length limit, about twice
// the traffic. Kernels: hybrid_kernel.cuh; checked mode as documented there.
// Systems that all share one matrix (a, b, c with batch strides 0) of up to 1024 rows may take
// the shared-matrix route instead (cuda/factored/shared_matrix_route.hpp: a chunk table built
// on the device at each solve, then read and written once); its workspace comes first.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/problem.hpp"
#include "cuda/factored/shared_matrix_route.hpp"
#include "cuda/scalar/block/hybrid.hpp"
#include "cuda/launch/kernels.hpp"

namespace triax::detail::cuda {

template <class T>
bool block_thomas_pcr_supports(const Problem& p) {
  return hybrid_supports<T>(p, HybridFamily::block);
}

template <class T>
std::size_t block_thomas_pcr_workspace(const Problem& p) {
  return shared_matrix_workspace<T>(p) + hybrid_family_workspace<T>(p, HybridFamily::block);
}

template <class T>
void block_thomas_pcr(const Problem& p, const Operands<T>& ops, void* workspace,
                     cudaStream_t stream) {
  if (ops.info == nullptr && shared_matrix_takes<T>(p)) {
    shared_matrix_solve<T>(p, ops, workspace, stream);
    return;
  }
  // The route's bytes (a multiple of 256) first, where the plan reserved them.
  void* hybrid_space = workspace;
  if (const std::size_t route = shared_matrix_workspace<T>(p); route > 0) {
    hybrid_space = static_cast<char*>(workspace) + route;
  }
  hybrid_solve<T>(p, ops, HybridFamily::block, hybrid_space, stream);
}

TRIAX_INSTANTIATE_CUDA_ALGORITHM(block_thomas_pcr)

}  // namespace triax::detail::cuda
