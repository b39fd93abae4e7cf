#pragma once
// Padded variable-size batches on the fixed batch's own fastest path (NCP over padded storage
// such as Full-Interleaved): the pipelined Thomas-PCR hybrid (scalar/block/pipelined_kernel.cuh)
// with a per-system length, chosen exactly as the fixed batch of the longest length would choose
// it. A block streams groups of S neighbouring systems (64- or 128-byte runs of a row) through
// shared memory while it solves the previous group; a row's run is read while any of its
// systems reaches that row (whole sectors, as the fixed batch reads them), and rows past a
// system's length enter the arithmetic as the identity, so the rows it solves are exactly those
// of the CP form (the padding filled with identity rows) without the padding being needed.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/problem.hpp"
#include "cuda/scalar/block/hybrid.hpp"

namespace triax::detail::cuda {

template <class T>
class VarPipelined {
 public:
  /// Whether the fixed batch `p` (n = the longest length) runs the pipelined kernel with per-warp
  /// staging in one block per group (the only form with lengths); if so, sets up its launch.
  /// Needs a device (occupancy). Outside checked mode only.
  bool choose(const Problem& p);
  /// Enqueues the solve of system s's first lengths[s] rows (device memory, clamped to 0 ..
  /// p.n); false (nothing enqueued) where the pointers are not 16-byte aligned.
  bool run(const Problem& p, const Operands<T>& ops, const std::int64_t* lengths,
           cudaStream_t stream) const;

 private:
  HybridConfig cfg_{};
  std::int64_t n_ = 0;
  std::size_t smem_ = 0;
  unsigned blocks_ = 0;
};

extern template class VarPipelined<float>;
extern template class VarPipelined<double>;

}  // namespace triax::detail::cuda
