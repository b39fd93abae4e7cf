#pragma once
// The two-pass bound of a long system's solve on the GPU (issues 26 and 30): what a solver that
// reads a, b, c and d in one pass and reads them again and writes x in a second must move, with
// no arithmetic. 9 arrays' bytes where a one-pass solve moves 5: 5/9 of the copy's rate.
#include <functional>

#include "gpu_context.hpp"
#include "stats.hpp"

namespace triax::bench {

/// Milliseconds (median of `reps`, caches flushed before each) of the two passes over `count`
/// elements: pass 1 reads a, b, c, d; pass 2 reads them again in the same order and writes x.
/// In place (x == d) the second pass writes d.
template <class T>
Timing two_pass_bound(GpuContext& ctx, const T* a, const T* b, const T* c, const T* d, T* x,
                      std::int64_t count, int reps);

/// The second pass alone, launched as the caller times a solve (issue 30's small batches,
/// gpu_pattern_bound.hpp): one launch reading a, b, c, d and writing x in 16-byte vectors over
/// the whole device, whatever the solve's launch shape; what any one-launch solve of these bytes
/// could do. Empty where count is not a whole number of vectors.
template <class T>
std::function<void()> one_pass_stream(GpuContext& ctx, const T* a, const T* b, const T* c,
                                      const T* d, T* x, std::int64_t count);

}  // namespace triax::bench
