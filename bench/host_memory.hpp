#pragma once
// Host buffers without serial first touch, a parallel copy, and a cache flush by reading.
#include <cstddef>
#include <cstring>
#include <cstdlib>
#include <memory>
#include <new>

#include <omp.h>

namespace triax::bench {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
template <class T>
using HostArray = std::unique_ptr<T[], FreeDeleter>;

/// An uninitialised host array (first touched by whoever fills it, in parallel), aligned to a
/// 64-byte cache line as HPC codes allocate their fields. (Plain `new` of a large array returns
/// 16 bytes past a page boundary; on the development VM the CPU solves along y and z then ran
/// 15-25% slower, for reasons not yet found: docs/performance.md.)
template <class T>
HostArray<T> host_array(std::size_t count) {
  constexpr std::size_t line = 64;
  const std::size_t bytes = (count * sizeof(T) + line - 1) / line * line;
  void* p = std::aligned_alloc(line, bytes == 0 ? line : bytes);
  if (p == nullptr) throw std::bad_alloc();
  return HostArray<T>(static_cast<T*>(p));
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
