#pragma once
// Launches of the back-to-back class kernel (var_b2b_kernel.cuh) for one variant (B2BVariant),
// each variant's instances compiled in a file of its own (var_b2b_launch_<variant>.cu) so that
// they build side by side. Host-visible: no kernel code here.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/problem.hpp"
#include "core/var_b2b_classes.hpp"

namespace triax::detail::cuda {

/// How one class launch runs: the blocks the device holds at once (the variants' look-ahead,
/// var_b2b_kernel), and whether it is the bound (the arithmetic-free kernel of the same launch,
/// TRIAX_CUDA_VAR_B2B_BOUND; never with accumulate).
struct B2BLaunch {
  std::int64_t wave = 1;
  bool bound = false;
};

/// Plan time, for a class of P chunk threads: opts the variant's kernels (solve, and the bound
/// where `bound`) into their shared memory beyond 48 KiB where they need it, and returns the
/// blocks of the solve kernel that the device holds at once (at least 1).
template <class T, B2BVariant V>
std::int64_t prepare_b2b_class(int P, bool bound);

/// Enqueues class `c` of a plan (entries: the plan's, on the device) on `stream`.
template <class T, B2BVariant V>
void launch_b2b_class(const Operands<T>& ops, const B2BEntry* entries, const B2BClass& c,
                      const B2BLaunch& how, cudaStream_t stream);

}  // namespace triax::detail::cuda
