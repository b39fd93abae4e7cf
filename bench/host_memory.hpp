#pragma once
// Host buffers without serial first touch, a parallel copy, and a cache flush by reading.
#include <cstddef>
#include <cstring>
#include <memory>

#include <omp.h>

namespace triax::bench {

/// An uninitialised host array (first touched by whoever fills it, in parallel).
template <class T>
std::unique_ptr<T[]> host_array(std::size_t count) {
  return std::unique_ptr<T[]>(new T[count]);
}

/// std::memcpy split into one contiguous chunk per OpenMP thread.
inline void parallel_copy(void* dst, const void* src, std::size_t bytes) {
#pragma omp parallel
  {
    const std::size_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    const std::size_t begin = bytes * t / nt, end = bytes * (t + 1) / nt;
    std::memcpy(static_cast<char*>(dst) + begin, static_cast<const char*>(src) + begin,
                end - begin);
  }
}

/// Reads a buffer several times the last-level cache, so that what the previous step wrote is
/// evicted clean-side first (reading leaves no dirty lines to be written back inside a timing).
void flush_host_caches();

}  // namespace triax::bench
