#pragma once
// Host buffers without serial first touch, a parallel copy, the stream reference's loop, and a
// cache flush by reading.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include <omp.h>

namespace triax::bench {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
template <class T>
using HostArray = std::unique_ptr<T[], FreeDeleter>;

/// Whether host arrays of 2 MiB or more ask the kernel for transparent huge pages (the default;
/// `--small-pages` turns it off). Along axis 2 of 256^3 every row of a strip lies in its own
/// 4 KiB page, so the CPU solve there touches a new page for every row run: on the development VM
/// huge pages made double 7-13% faster along z and 7% along y, float up to 8%
/// (docs/notes/cpu-suite-history.md, "Host pages").
/// Applied to every host buffer of the run alike: the copy reference, the baselines' inputs and
/// triax's.
void set_huge_pages(bool on);

/// The kernel's transparent huge page mode ("always", "madvise", "never"; "" where unknown).
std::string transparent_huge_page_mode();

/// Uninitialised host memory: 64-byte aligned, as HPC codes allocate their fields (plain `new` of
/// a large array returns 16 bytes past a page boundary; on the development VM the CPU solves
/// along y and z then ran 15-25% slower, for reasons not yet found:
/// docs/notes/cpu-suite-history.md), or 2 MiB aligned and advised for huge pages (set_huge_pages).
void* host_allocate(std::size_t bytes);

/// An uninitialised host array (first touched by whoever fills it, in parallel).
template <class T>
HostArray<T> host_array(std::size_t count) {
  return HostArray<T>(static_cast<T*>(host_allocate(count * sizeof(T))));
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

/// d[i] += a[i] + b[i] + c[i] for i < count, one contiguous chunk per OpenMP thread: the memory
/// traffic of an in-place solve (read a, b, c, d; write d) with no arithmetic to speak of.
/// Integers, so that whatever bytes the buffers hold cost no floating-point assists.
void parallel_stream(const std::uint32_t* a, const std::uint32_t* b, const std::uint32_t* c,
                     std::uint32_t* d, std::size_t count);

/// Reads a buffer several times the last-level cache, so that what the previous step wrote is
/// evicted clean-side first (reading leaves no dirty lines to be written back inside a timing).
void flush_host_caches();

}  // namespace triax::bench
