#pragma once
// The launchers of every CUDA algorithm, as the plan (launch/cuda_plan.cu) calls them. Each
// algorithm lives in the folder of who cooperates on a system (thread/, warp/, block/) and
// provides, for T in {float, double}:
//   bool        <algo>_supports(const Problem&)       can it solve this normalised batch?
//   std::size_t <algo>_workspace(const Problem&)      device bytes it needs (0 if none)
//   void        <algo>(const Problem&, const Operands<T>&, void* workspace, cudaStream_t)
// Launchers enqueue on the stream, allocate nothing, never synchronise, and check the launch
// with TRIAX_CUDA_CHECK_LAUNCH(). In checked mode (ops.info != nullptr) they fill info per
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

// thread/: one thread per system. (The shuffle-transpose variant of paper 000's Algorithm 9 and
// the warp-per-system hybrid of warp/ come next; their Algorithm values exist and the plan
// rejects them until they are built.)
TRIAX_DECLARE_CUDA_ALGORITHM(thread_thomas)
TRIAX_DECLARE_CUDA_ALGORITHM(thread_thomas_shared_transpose)
// block/: a block of 32 neighbouring systems x P chunk warps, Thomas-PCR hybrid in registers.
TRIAX_DECLARE_CUDA_ALGORITHM(block_thomas_pcr)

#undef TRIAX_DECLARE_CUDA_ALGORITHM

}  // namespace triax::detail::cuda
