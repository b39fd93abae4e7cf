#include "shape_suite.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

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
  std::vector<ShapeDraw> draws = draw_shapes(settings.seed, shape_budget(backend, settings));
  // TRIAX_BENCH_SHAPE_AXIS=k keeps the draws along axis k only (the same draws as the full
  // suite, for a shorter run on one axis's kernels).
  if (const char* only = std::getenv("TRIAX_BENCH_SHAPE_AXIS")) {
    const int axis = std::atoi(only);
    std::erase_if(draws, [&](const ShapeDraw& d) { return d.axis != axis; });
    // And one ghost layer around a 256^3 interior (258^3 allocated), in both precisions: the
    // issue's padded case, whose rows start one element past a 16-byte boundary along x.
    for (Precision precision : {Precision::f32, Precision::f64}) {
      ShapeDraw g;
      g.klass = ShapeClass::padded;
      g.precision = precision;
      g.extents = {256, 256, 256};
      g.allocated = {258, 258, 258};
      g.begin = {1, 1, 1};
      g.axis = axis;
      draws.push_back(g);
    }
  }
  std::printf("shape suite: %zu draws, seed %llu, size scale 1/%g\n", draws.size(),
              static_cast<unsigned long long>(settings.seed), std::max(1.0, settings.scale));
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
