#include "shape_suite.hpp"

#include <algorithm>
#include <cstdio>

#include "host_runner.hpp"
#if TRIAX_BENCH_HAS_CUDA
#include "gpu_runner.hpp"
#endif

namespace triax::bench {

ShapeBudget shape_budget(Backend backend, const ShapeSuiteSettings& settings) {
  ShapeBudget b;
  const bool gpu = backend == Backend::cuda;
  const double k = std::max(1.0, settings.scale);
  const auto scaled = [&](double v, double floor) {
    return static_cast<std::int64_t>(std::max(floor, v / k));
  };
  b.min_points = scaled(gpu ? 0x1p21 : 0x1p18, 64);
  b.max_points = scaled(gpu ? 0x1p26 : 0x1p25, 256);
  b.long_min = scaled(1e4, 1000);
  b.long_max = std::max(b.long_min, scaled(1e7, 1000));
  return b;
}

void run_shape_suite(Backend backend, const ShapeSuiteSettings& settings,
                     const CopyReference& copy, std::vector<ShapeRow>& rows) {
  const bool given = !settings.given.empty();
  const std::vector<ShapeDraw> draws =
      given ? settings.given : draw_shapes(settings.seed, shape_budget(backend, settings));
  if (given) {
    std::printf("shape suite: %zu draws given with --shape\n", draws.size());
  } else {
    std::printf("shape suite: %zu draws, seed %llu, size scale 1/%g\n", draws.size(),
                static_cast<unsigned long long>(settings.seed), std::max(1.0, settings.scale));
  }
  print_shape_header();
  if (backend == Backend::cuda) {
#if TRIAX_BENCH_HAS_CUDA
    run_gpu_shapes(draws, settings.reps, copy, rows);
#else
    std::fprintf(stderr, "triax-bench: built without CUDA: no cuda shape rows\n");
#endif
  } else {
    run_host_shapes(draws, backend, settings.reps, copy, rows);
  }
}

}  // namespace triax::bench
