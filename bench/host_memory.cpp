#include "host_memory.hpp"

#include <cstdint>
#include <fstream>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace triax::bench {

namespace {
bool huge_pages_on = true;
}  // namespace

void set_huge_pages(bool on) { huge_pages_on = on; }

std::string transparent_huge_page_mode() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(f, line)) return "";
  const auto open = line.find('['), close = line.find(']');
  return open != std::string::npos && close > open ? line.substr(open + 1, close - open - 1) : "";
}

void* host_allocate(std::size_t bytes) {
  constexpr std::size_t line = 64, huge_page = std::size_t(2) << 20;
  const bool huge = huge_pages_on && bytes >= huge_page;
  const std::size_t align = huge ? huge_page : line;
  const std::size_t size = bytes == 0 ? line : (bytes + align - 1) / align * align;
  void* p = std::aligned_alloc(align, size);
  if (p == nullptr) throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
  // Advice only: where the kernel has no huge pages to give, the pages stay 4 KiB.
  if (huge) madvise(p, size, MADV_HUGEPAGE);
#endif
  return p;
}

void parallel_stream(const std::uint32_t* a, const std::uint32_t* b, const std::uint32_t* c,
                     std::uint32_t* d, std::size_t count) {
  const auto n = static_cast<std::int64_t>(count);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) d[i] += a[i] + b[i] + c[i];
}

/// Where the flush's sum goes, so the reads are not optimised away.
volatile std::uint64_t flush_sink = 0;

void flush_host_caches() {
  constexpr std::size_t words = (std::size_t(256) << 20) / sizeof(std::uint64_t);  // 256 MiB
  static const HostArray<std::uint64_t> buffer = [] {
    auto b = host_array<std::uint64_t>(words);
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < words; ++i) b[i] = i;
    return b;
  }();
  std::uint64_t sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
  for (std::size_t i = 0; i < words; i += 8) sum += buffer[i];  // one word per 64-byte line
  flush_sink = sum;
}

}  // namespace triax::bench
