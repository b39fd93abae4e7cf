#pragma once
// Median, minimum and maximum of repeated timings.
#include <algorithm>
#include <chrono>
#include <vector>

namespace triax::bench {

struct Timing {
  double median_ms = 0, min_ms = 0, max_ms = 0;
};

inline Timing summarise(std::vector<double> ms) {
  Timing t;
  if (ms.empty()) return t;
  std::sort(ms.begin(), ms.end());
  const std::size_t m = ms.size();
  t.median_ms = m % 2 ? ms[m / 2] : 0.5 * (ms[m / 2 - 1] + ms[m / 2]);
  t.min_ms = ms.front();
  t.max_ms = ms.back();
  return t;
}

}  // namespace triax::bench

namespace triax::bench {

/// Runs `prepare` (untimed: restore the output, flush caches) and then `time_one(solve)`, which
/// returns the milliseconds of one solve, `reps` times after two warm-up solves.
template <class Prepare, class Solve, class TimeOne>
Timing measure(int reps, Prepare&& prepare, Solve&& solve, TimeOne&& time_one) {
  for (int w = 0; w < 2; ++w) {
    prepare();
    time_one(solve);
  }
  std::vector<double> ms;
  ms.reserve(reps);
  for (int r = 0; r < reps; ++r) {
    prepare();
    ms.push_back(time_one(solve));
  }
  return summarise(std::move(ms));
}

/// measure() of `launches` back-to-back calls of `launch` per sample, each sample's time divided
/// by them (a solve's or a bound's time, triax-bench's --launches).
template <class Prepare, class Launch, class TimeOne>
Timing measure_launches(int reps, int launches, Prepare&& prepare, Launch&& launch,
                        TimeOne&& time_one) {
  auto all = [&] {
    for (int k = 0; k < launches; ++k) launch();
  };
  Timing t = measure(reps, prepare, all, time_one);
  t.median_ms /= launches;
  t.min_ms /= launches;
  t.max_ms /= launches;
  return t;
}

}  // namespace triax::bench

namespace triax::bench {

/// Milliseconds of one call of f by the host's steady clock.
template <class F>
double host_ms(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace triax::bench
