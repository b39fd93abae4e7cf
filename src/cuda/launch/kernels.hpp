#pragma once
// The launchers of every CUDA algorithm, as the plan (launch/cuda_plan.cu) calls them. Each
// algorithm lives in the folder of who cooperates on a system (thread/, warp/, block/) and
// provides, for T in {float, double}:
//   bool        <algo>_supports(const Problem&)       can it solve this normalised batch?
//   std::size_t <algo>_workspace(const Problem&)      device bytes it needs (0 if none)
//   void        <algo>(const Problem&, const Operands<T>&, void* workspace, cudaStream_t)
// Launchers enqueue on the stream, allocate nothing, never synchronise, and launch every kernel
// through launch_kernel (launch/launch_kernel.hpp: the launch is checked, and a plan being made
// only loads the kernels, with null operands). In checked mode (ops.info != nullptr) they fill info per
// system as the CPU backend does (see Options::checked).
#include <cuda_runtime.h>

#include <cstddef>

#include "core/problem.hpp"

namespace triax::detail::cuda {

#define TRIAX_DECLARE_CUDA_ALGORITHM(name)                                             \
  template <class T>                                                                   \
  bool name##_supports(const Problem& p);                                              \
  template <class T>                                                                   \
  std::size_t name##_workspace(const Problem& p);                                      \
  template <class T>                                                                   \
  void name(const Problem& p, const Operands<T>& ops, void* workspace, cudaStream_t stream);

// thread/: one thread per system: at the row stride, and for axis 0 through a shared-memory
// (Algorithm 8) or a register-shuffle (Algorithm 9) transpose.
TRIAX_DECLARE_CUDA_ALGORITHM(thread_thomas)
TRIAX_DECLARE_CUDA_ALGORITHM(thread_thomas_shared_transpose)
TRIAX_DECLARE_CUDA_ALGORITHM(thread_thomas_shuffle_transpose)
// warp/ and block/: the Thomas-PCR hybrid in registers (block/hybrid.hpp), with at most 32
// chunk threads per system (n <= 512 float, 256 double) or up to 256 and a multi-kernel long path (any n).
TRIAX_DECLARE_CUDA_ALGORITHM(warp_thomas_pcr)
TRIAX_DECLARE_CUDA_ALGORITHM(block_thomas_pcr)
// cyclic/: the CR / PCR / RD family of paper 001, one thread block per system in shared memory
// (cyclic/block_cyclic.cuh); n <= 4096 float, 2048 double.
TRIAX_DECLARE_CUDA_ALGORITHM(block_cr)
TRIAX_DECLARE_CUDA_ALGORITHM(block_pcr)
TRIAX_DECLARE_CUDA_ALGORITHM(block_rd)
TRIAX_DECLARE_CUDA_ALGORITHM(block_cr_pcr)
TRIAX_DECLARE_CUDA_ALGORITHM(block_cr_rd)

#undef TRIAX_DECLARE_CUDA_ALGORITHM

}  // namespace triax::detail::cuda

/// In an algorithm's own .cu, inside namespace triax::detail::cuda: instantiates its three
/// launchers for float and double.
#define TRIAX_INSTANTIATE_CUDA_ALGORITHM(name)                                                 \
  template bool name##_supports<float>(const Problem&);                                        \
  template std::size_t name##_workspace<float>(const Problem&);                                \
  template void name<float>(const Problem&, const Operands<float>&, void*, cudaStream_t);      \
  template bool name##_supports<double>(const Problem&);                                       \
  template std::size_t name##_workspace<double>(const Problem&);                               \
  template void name<double>(const Problem&, const Operands<double>&, void*, cudaStream_t);
