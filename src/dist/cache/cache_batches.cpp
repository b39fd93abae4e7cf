// Options::batches = 0 on CPU ranks (cache_batches.hpp).
#include "dist/cache/cache_batches.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>

namespace triax::detail {
namespace {

constexpr std::int64_t fallback_bytes = std::int64_t(1) << 20;

// "2048K", "1M", "512" (bytes) as written in sysfs; 0 where unreadable.
std::int64_t parse_size(const std::string& text) {
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (v <= 0 || end == text.c_str()) return 0;
  switch (*end) {
    case 'K':
    case 'k':
      return v << 10;
    case 'M':
    case 'm':
      return v << 20;
    case 'G':
    case 'g':
      return v << 30;
    default:
      return v;
  }
}

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::int64_t sysfs_l2_bytes() {
  for (int index = 0; index < 16; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    const std::string level = first_line(dir + "/level");
    if (level.empty()) break;
    const std::string type = first_line(dir + "/type");
    if (level == "2" && (type == "Unified" || type == "Data")) {
      return parse_size(first_line(dir + "/size"));
    }
  }
  return 0;
}

std::int64_t find_cache_bytes() {
  if (const std::int64_t v = sysfs_l2_bytes(); v > 0) return v;
#if defined(_SC_LEVEL2_CACHE_SIZE)
  if (const long v = sysconf(_SC_LEVEL2_CACHE_SIZE); v > 0) return v;
#endif
  return fallback_bytes;
}

}  // namespace

std::int64_t core_cache_bytes() {
  // The variable is read at every plan (a test may set it between plans), sysfs once.
  if (const char* env = std::getenv("TRIAX_DIST_CACHE_BYTES")) {
    const std::int64_t v = parse_size(env);
    if (v > 0) return v;
  }
  static const std::int64_t bytes = find_cache_bytes();
  return bytes;
}

std::int64_t cache_batch_count(std::int64_t systems, std::int64_t rows, std::size_t value_bytes,
                               int threads, bool overlap, std::int64_t cache_bytes,
                               std::int64_t max_batch_systems) {
  if (systems <= 1) return 1;
  const std::int64_t t = std::max(1, threads);
  // Values per row of a system that pass through the cache between its two passes.
  const std::int64_t values = overlap ? 10 : 3;
  const std::int64_t per_system =
      std::max<std::int64_t>(1, values * std::max<std::int64_t>(rows, 1) *
                                    static_cast<std::int64_t>(value_bytes));
  const std::int64_t per_thread = std::max<std::int64_t>(64, (cache_bytes / 2) / per_system);
  std::int64_t batch = std::min(per_thread * t, std::max<std::int64_t>(1, max_batch_systems));
  batch = std::max<std::int64_t>(1, batch);
  std::int64_t batches = std::clamp<std::int64_t>((systems + batch - 1) / batch, 1, systems);
  // Batches of whole 64-system units for every thread, where the systems divide so: the threads
  // take a batch's SIMD groups statically, and 25.5 groups over 8 threads leave a fifth of them
  // idle. The unit count's divisor nearest to the count above (in ratio, between half and twice
  // it: the batch then fills between a quarter and the whole of the L2).
  const std::int64_t unit = 64 * t;
  if (batches > 1 && systems % unit == 0) {
    const std::int64_t units = systems / unit;
    std::int64_t best = 0;
    double best_gap = 0;
    for (std::int64_t d = (batches + 1) / 2; d <= std::min(units, 2 * batches); ++d) {
      if (units % d != 0 || systems / d > max_batch_systems) continue;
      const double gap = std::abs(std::log(double(d) / double(batches)));
      if (best == 0 || gap < best_gap) best = d, best_gap = gap;
    }
    if (best > 0) batches = best;
  }
  return batches;
}

}  // namespace triax::detail
