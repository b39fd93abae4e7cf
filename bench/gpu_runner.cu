#include <cstdio>

#include "driver.hpp"
#include "gpu_baseline.hpp"
#include "gpu_context.hpp"
#include "gpu_runner.hpp"
#include "gpu_two_pass_bound.hpp"
#include "shape_runner.hpp"

namespace triax::bench {
namespace {

/// Device memory, events on one stream, the cuSPARSE baselines.
template <class T>
class GpuEnv {
 public:
  T* upload(const T* host, std::int64_t count) {
    T* p = scratch(count);
    TRIAX_CUDA_CHECK(cudaMemcpy(p, host, bytes(count), cudaMemcpyHostToDevice));
    return p;
  }
  T* scratch(std::int64_t count) { return static_cast<T*>(ctx_.allocate(bytes(count))); }
  void copy(T* dst, const T* src, std::int64_t count) { ctx_.copy(dst, src, bytes(count)); }
  void flush() { ctx_.flush(); }
  template <class F>
  double time_one(F& f) {
    return ctx_.time_one(f);
  }
  const T* fetch(const T* out, std::int64_t count) {
    if (count > host_count_) {  // the shape suite fetches spans of many sizes
      host_ = host_array<T>(count);
      host_count_ = count;
    }
    TRIAX_CUDA_CHECK(
        cudaMemcpyAsync(host_.get(), out, bytes(count), cudaMemcpyDeviceToHost, ctx_.stream()));
    TRIAX_CUDA_CHECK(cudaStreamSynchronize(ctx_.stream()));
    return host_.get();
  }
  /// A device-to-device copy of count elements, timed like a solve (caches flushed first).
  double copy_ms(T* dst, const T* src, std::int64_t count) {
    auto once = [&] { ctx_.copy(dst, src, bytes(count)); };
    return measure(
               10, [&] { ctx_.flush(); }, once, [&](auto& f) { return ctx_.time_one(f); })
        .median_ms;
  }
  /// An empty kernel's launch, timed like a solve: the floor of any one-launch solve.
  double launch_floor_ms() {
    auto once = [&] { ctx_.empty_launch(); };
    return measure(
               20, [] {}, once, [&](auto& f) { return ctx_.time_one(f); })
        .median_ms;
  }
  Options options(Algorithm alg) const {
    Options o;
    o.algorithm = alg;
    o.stream = ctx_.stream();
    return o;
  }
  /// Separate and in place: the two-pass bound's median (gpu_two_pass_bound.hpp) on this case's
  /// arrays, for the long path's rows (issues 26, 30). Measured once per case: the bound streams
  /// the arrays whole, so it is the same along every axis of a packed array (the long path along
  /// axes >= 1 reads and writes the same bytes twice / once, issue 30).
  double two_pass_bound_ms(const Case& c, int axis, const DeviceInputs<T>& in) {
    (void)axis;
    if (c.mode == Mode::increment) return 0;
    if (bound_ms_ == 0) {
      const T* d = c.mode == Mode::in_place ? in.out : in.d;
      bound_ms_ = two_pass_bound<T>(ctx_, in.a, in.b, in.c, d, in.out, in.count, c.reps).median_ms;
    }
    return bound_ms_;
  }
  /// Batches of at most this many systems also time cuSPARSE's large-system routine.
  static constexpr std::int64_t few_systems = 16;

  void baselines(const Case& c, int axis, const DeviceInputs<T>& in, std::vector<Row>& rows) {
    const AxisGeometry g(c.extents, axis);
    const bool last = axis + 1 == static_cast<int>(c.extents.size());
    const char* p = c.precision == Precision::f32 ? "S" : "D";
    if (axis == 0) {
      add(c, axis, in, rows, std::string("cusparse") + p + "gtsv2StridedBatch", [&] {
        return cusparse_gtsv2_strided_batch<T>(ctx_, g, in.a, in.b, in.c, in.d, in.out, c.reps);
      });
    }
    if (axis == 0 && g.systems <= few_systems) {
      add(c, axis, in, rows, std::string("cusparse") + p + "gtsv2_nopivot", [&] {
        return cusparse_gtsv2_nopivot<T>(ctx_, g, in.a, in.b, in.c, in.d, in.out, c.reps);
      });
    }
    // The interleaved routine runs one thread per system: for a few long systems it is no
    // baseline (one system of 10^7 rows: 2.3 s), and their rows have the large-system one.
    if (last && g.systems > few_systems) {
      add(c, axis, in, rows, std::string("cusparse") + p + "gtsvInterleavedBatch", [&] {
        return cusparse_gtsv_interleaved_batch<T>(ctx_, g, in.a, in.b, in.c, in.d, in.out, c.reps);
      });
    }
  }

 private:
  static std::size_t bytes(std::int64_t count) { return std::size_t(count) * sizeof(T); }

  template <class Run>
  void add(const Case& c, int axis, const DeviceInputs<T>& in, std::vector<Row>& rows,
           const std::string& name, Run&& run) {
    Row r = base_row<T>(c, axis, "cusparse", name);
    r.bytes = effective_bytes(in.count, c.precision, Mode::separate);
    try {
      set_timing(r, run());
    } catch (const error& e) {
      std::printf("  %s skipped: %s\n", name.c_str(), e.what());
      return;
    }
    r.residual = sampled_residual<T>(c.extents, axis, in.host_a, in.host_b, in.host_c, in.host_d,
                                     fetch(in.out, in.count));
    rows.push_back(r);
  }

  GpuContext ctx_;
  double bound_ms_ = 0;
  HostArray<T> host_;
  std::int64_t host_count_ = 0;
};

}  // namespace

void run_gpu_case(const Case& c, const CopyReference& copy, std::vector<Row>& rows) {
  run_case_in_precision<GpuEnv>(c, copy, rows);
}

void run_gpu_shapes(const std::vector<ShapeDraw>& draws, int reps, const CopyReference& copy,
                    std::vector<ShapeRow>& rows) {
  const double from = shape_counting_bytes(Backend::cuda);
  {
    GpuEnv<float> env;
    run_shapes<float>(draws, Backend::cuda, reps, copy, from, env, rows);
  }
  GpuEnv<double> env;
  run_shapes<double>(draws, Backend::cuda, reps, copy, from, env, rows);
}

}  // namespace triax::bench
