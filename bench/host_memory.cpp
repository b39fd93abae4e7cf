#include "host_memory.hpp"

#include <cstdint>

namespace triax::bench {

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
