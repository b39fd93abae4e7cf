#pragma once
// The loop over the items of a batch (strips, groups of systems, single systems) that the host
// backends (cpu, reference) run in every solve. Solve calls allocate nothing, but an OpenMP
// runtime may allocate when a parallel region starts (issue 25 saw one malloc per solve with one
// thread or inside a user's parallel region; GCC 12's libgomp allocates a team only on its first
// region, tests/cpu/solve_allocations.cpp). Where the region would bring nothing (one thread,
// or a caller already inside a parallel region, where a nested region gets one thread unless the
// user turned nesting on) the loop runs in the calling thread and the runtime is not involved.

#include <omp.h>

#include <cstdint>

namespace triax::detail {

/// Calls body(item, thread) for every item in [0, count), thread being the index of the
/// per-thread workspace to use (0 .. threads - 1): statically scheduled over `threads` OpenMP
/// threads, or in order in the calling thread (thread 0) where threads <= 1 or the caller is
/// already inside a parallel region.
template <class Body>
inline void for_each_item(std::int64_t count, int threads, Body&& body) {
  if (threads <= 1 || omp_get_level() > 0) {
    for (std::int64_t item = 0; item < count; ++item) body(item, 0);
    return;
  }
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t item = 0; item < count; ++item) body(item, omp_get_thread_num());
}

}  // namespace triax::detail
