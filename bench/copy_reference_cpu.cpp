#include <omp.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <vector>

#include "copy_reference.hpp"
#include "host_memory.hpp"
#include "stats.hpp"

namespace triax::bench {

CopyReference measure_host_copy(double gib, int reps) {
  const std::size_t bytes = static_cast<std::size_t>(gib * double(1 << 30)) / 64 * 64;
  auto src = host_array<char>(bytes), dst = host_array<char>(bytes);
  parallel_copy(src.get(), dst.get(), bytes);  // first touch of both, in parallel
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(bytes); i += 4096) src[i] = char(i);

  const std::pair<const char*, std::function<void()>> candidates[] = {
      {"std::memcpy", [&] { std::memcpy(dst.get(), src.get(), bytes); }},
      {"openmp_copy", [&] { parallel_copy(dst.get(), src.get(), bytes); }},
  };
  CopyReference ref;
  ref.bytes = static_cast<double>(bytes);
  for (const auto& [name, copy] : candidates) {
    const Timing t = measure(
        reps, [] {}, copy, [](auto& f) { return host_ms(f); });
    const double gbps = 2.0 * ref.bytes / (t.median_ms * 1e-3) / 1e9;
    ref.candidates.emplace_back(name, gbps);
    if (gbps > ref.gbps) {
      ref.gbps = gbps;
      ref.how = name;
    }
  }
  // The solve's own traffic: four arrays of a quarter of the buffer each, allocated as the
  // solves' arrays are (four quarters of one buffer lie a power of two apart, and streamed at
  // 65% of the copy against 92% for separate arrays on the development VM), the last one updated
  // in place.
  const std::size_t quarter = bytes / 4 / sizeof(std::uint32_t);
  HostArray<std::uint32_t> arrays[4];
  for (auto& array : arrays) {
    array = host_array<std::uint32_t>(quarter);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(quarter); ++i) array[i] = 1;
  }
  const Timing stream = measure(
      reps, [] {},
      [&] {
        parallel_stream(arrays[0].get(), arrays[1].get(), arrays[2].get(), arrays[3].get(),
                        quarter);
      },
      [](auto& f) { return host_ms(f); });
  ref.stream_gbps = 5.0 * double(quarter * sizeof(std::uint32_t)) / (stream.median_ms * 1e-3) / 1e9;
  return ref;
}

std::string host_description() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model = "unknown CPU";
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  }
  return model + ", " + std::to_string(omp_get_max_threads()) + " OpenMP threads";
}

}  // namespace triax::bench
