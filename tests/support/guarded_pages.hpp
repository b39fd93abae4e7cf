#pragma once
// Operand arrays that end (or begin) exactly at a page the process may not touch, so that a
// solver reading one element past what it is allowed to read crashes instead of passing
// silently: the elements a layout names but the API promises never to read (a[0] and c[n-1] of
// every system) can be placed in that page.

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace triax::test {

/// Which end of the readable memory a guard page sits against.
enum class Guard { before, after };

/// Memory for the elements at offsets [lo, hi] of an operand, mapped so that offset lo is the
/// first element after a PROT_NONE page (Guard::before) or offset hi the last element before
/// one (Guard::after). origin()[o] is the element at offset o. With lo > hi (no element may be
/// read) the origin points into the guard page itself.
template <class T>
class GuardedArray {
 public:
  GuardedArray(std::int64_t lo, std::int64_t hi, Guard guard) {
    page_ = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    const std::int64_t count = std::max<std::int64_t>(hi - lo + 1, 0);
    const std::size_t data_pages = (count * sizeof(T) + page_ - 1) / page_;
    // A guard page on both sides: the far one keeps a stray read on that side from landing in
    // some other mapping.
    bytes_ = (data_pages + 2) * page_;
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("mmap failed");
    base_ = static_cast<char*>(p);
    if (mprotect(base_, page_, PROT_NONE) != 0 ||
        mprotect(base_ + (data_pages + 1) * page_, page_, PROT_NONE) != 0) {
      throw std::runtime_error("mprotect failed");
    }
    // The address of offset lo (before) or of one past offset hi (after), in integers: the
    // origin may lie outside the mapping, as a caller's pointer to a system whose first row is
    // never read may.
    const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(base_ + page_);
    const std::uintptr_t end = first + data_pages * page_;
    origin_ = guard == Guard::before ? first - lo * sizeof(T) : end - (hi + 1) * sizeof(T);
  }
  ~GuardedArray() { munmap(base_, bytes_); }
  GuardedArray(const GuardedArray&) = delete;
  GuardedArray& operator=(const GuardedArray&) = delete;

  T* origin() const { return reinterpret_cast<T*>(origin_); }

 private:
  std::size_t page_ = 0, bytes_ = 0;
  char* base_ = nullptr;
  std::uintptr_t origin_ = 0;
};

}  // namespace triax::test
