#include "host_runner.hpp"

#include <cstring>

#include "cpu_baseline.hpp"
#include "driver.hpp"
#include "shape_runner.hpp"

namespace triax::bench {
namespace {

/// Host memory, the steady clock, LAPACK ?gtsv as the baseline of the cpu backend.
template <class T>
class HostEnv {
 public:
  T* upload(const T* host, std::int64_t) { return const_cast<T*>(host); }
  T* scratch(std::int64_t count) {
    owned_.push_back(host_array<T>(count));
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < count; ++i) owned_.back()[i] = T(0);  // first touch
    return owned_.back().get();
  }
  void copy(T* dst, const T* src, std::int64_t count) {
    parallel_copy(dst, src, static_cast<std::size_t>(count) * sizeof(T));
  }
  void flush() { flush_host_caches(); }
  template <class F>
  double time_one(F& f) {
    return host_ms(f);
  }
  const T* fetch(const T* out, std::int64_t) { return out; }
  /// The shape suite's latency references: not measured on the host (its rows count whatever
  /// their size; the stream reference is their basis).
  double copy_ms(T*, const T*, std::int64_t) { return 0; }
  double launch_floor_ms() { return 0; }
  Options options(Algorithm alg) const {
    Options o;
    o.algorithm = alg;
    return o;
  }
  void baselines(const Case& c, int axis, const DeviceInputs<T>& in, std::vector<Row>& rows) {
    if (c.backend != Backend::cpu) return;
    if (!lapack_available()) {
      std::printf("  no LAPACK baseline: triax-bench was built without LAPACKE\n");
      return;
    }
    std::int64_t failures = 0;
    Row r = base_row<T>(c, axis, "lapack", lapack_name<T>());
    r.bytes = effective_bytes(in.count, c.precision, Mode::separate);
    set_timing(r, lapack_gtsv_batch<T>(c.extents, axis, in.a, in.b, in.c, in.d, in.out, c.reps,
                                       flush_host_caches, &failures));
    r.residual = sampled_residual<T>(c.extents, axis, in.a, in.b, in.c, in.d, in.out);
    if (failures)
      std::printf("  %s: %lld systems reported singular\n", r.algorithm.c_str(),
                  static_cast<long long>(failures));
    rows.push_back(r);
  }

 private:
  std::vector<HostArray<T>> owned_;
};

}  // namespace

void run_host_case(const Case& c, const CopyReference& copy, std::vector<Row>& rows) {
  run_case_in_precision<HostEnv>(c, copy, rows);
}

void run_host_shapes(const std::vector<ShapeDraw>& draws, Backend backend, int reps,
                     const CopyReference& copy, std::vector<ShapeRow>& rows) {
  const double from = shape_counting_bytes(backend);
  {
    HostEnv<float> env;
    run_shapes<float>(draws, backend, reps, copy, from, env, rows);
  }
  HostEnv<double> env;
  run_shapes<double>(draws, backend, reps, copy, from, env, rows);
}

}  // namespace triax::bench
