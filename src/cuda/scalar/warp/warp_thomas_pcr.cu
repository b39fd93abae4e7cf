// warp_thomas_pcr: the Thomas-PCR hybrid with at most 32 chunk threads per system (paper 000,
// s.6.3): each thread keeps a chunk of 8 or 16 rows in registers, the reduced system of two
// equations per chunk is solved by PCR over warp shuffles.
//  * Rows contiguous (axis 0, Algorithm 10): a system's chunk threads are the lanes of one
//    warp (or of a group of 2..16 lanes, several systems per warp); rows arrive by coalesced runs
//    and a shared-memory transpose, and the reduced system never leaves the warp.
//  * Neighbouring systems adjacent (axes >= 1, Algorithm 11): lanes are neighbouring systems
//    (coalesced rows), chunks are warps; the reduced systems go through shared memory to the
//    warps that solve them.
// n up to 512 float (32 chunks of 16 rows) or 256 double (of 8); block_thomas_pcr takes longer systems. Every layout is
// correct; the kernels and their arithmetic are in cuda/block/hybrid_kernel.cuh and
// cuda/warp/hybrid_math.cuh, checked mode as documented there.
#include <cuda_runtime.h>

#include "core/problem.hpp"
#include "cuda/scalar/block/hybrid.hpp"
#include "cuda/launch/kernels.hpp"

namespace triax::detail::cuda {

template <class T>
bool warp_thomas_pcr_supports(const Problem& p) {
  return hybrid_supports<T>(p, HybridFamily::warp);
}

template <class T>
std::size_t warp_thomas_pcr_workspace(const Problem& p) {
  return hybrid_family_workspace<T>(p, HybridFamily::warp);
}

template <class T>
void warp_thomas_pcr(const Problem& p, const Operands<T>& ops, void* workspace,
                     cudaStream_t stream) {
  hybrid_solve<T>(p, ops, HybridFamily::warp, workspace, stream);
}

TRIAX_INSTANTIATE_CUDA_ALGORITHM(warp_thomas_pcr)

}  // namespace triax::detail::cuda
