#include <cstdio>

#include "bound_report.hpp"
#include "core/normalize.hpp"
#include "driver.hpp"
#include "gpu_baseline.hpp"
#include "gpu_context.hpp"
#include "gpu_pattern_bound.hpp"
#include "gpu_runner.hpp"
#include "gpu_two_pass_bound.hpp"
#include "shape_runner.hpp"

namespace triax::bench {
namespace {

/// Elements of x (host) that are not a + b + c + d, summed in that order in T, as the bound
/// kernels write them; ends_zeroed: a of each system's row 0 and c of its last row count as 0
/// (the cyclic staging reads them as its kernel does).
template <class T>
std::int64_t bound_mismatches(const Case& c, int axis, const DeviceInputs<T>& in, const T* x,
                              bool ends_zeroed) {
  std::int64_t stride = 1;
  for (int k = 0; k < axis; ++k) stride *= c.extents[k];
  const std::int64_t n = c.extents[axis];
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < in.count; ++i) {
    const std::int64_t row = i / stride % n;
    const T a = ends_zeroed && row == 0 ? T(0) : in.host_a[i];
    const T cc = ends_zeroed && row == n - 1 ? T(0) : in.host_c[i];
    const T want = a + in.host_b[i] + cc + in.host_d[i];
    wrong += x[i] != want;
  }
  return wrong;
}

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
  /// --suite small (Case::pattern_bounds): the arithmetic-free bounds of this axis as rows of
  /// backend "bound" (gpu_pattern_bound.hpp), each timed as run_case times a solve (the output
  /// restored and the caches flushed before each, two warm-ups, the median of c.reps, `launches`
  /// back to back): the pick's pattern, a one-launch stream of the same bytes and, where the
  /// case times the cyclic family, its staging. Not in increment mode.
  void pattern_bounds(const Case& c, int axis, const DeviceInputs<T>& in, Algorithm pick,
                      std::vector<Row>& rows) {
    if (c.mode == Mode::increment) return;
    const detail::Problem p = detail::normalize(OperandLayouts(Layout::packed(c.extents)), axis);
    const T* d = c.mode == Mode::in_place ? in.out : in.d;
    const detail::Operands<T> ops{in.a, in.b, in.c, d, in.out, false, nullptr};
    auto time_bound = [&](const std::string& name, const BoundLaunch& launch) {
      if (!launch) return;
      Row r = base_row<T>(c, axis, "bound", name);
      auto prepare = [&] {
        if (c.mode != Mode::separate) copy(in.out, in.d, in.count);
        flush();
      };
      set_timing(r, measure_launches(c.reps, c.launches, prepare, launch,
                                     [&](auto& f) { return ctx_.time_one(f); }));
      // Once more from the prepared state, on a poisoned output (NaN; in place then d): the
      // bound must have written x = a + b + c + d at every element, or it did not move the
      // solve's bytes (a row left out, a system skipped).
      TRIAX_CUDA_CHECK(cudaMemsetAsync(in.out, 0xff, bytes(in.count), ctx_.stream()));
      prepare();
      launch();
      const std::int64_t wrong =
          bound_mismatches<T>(c, axis, in, fetch(in.out, in.count), name == cyclic_bound_name);
      if (wrong != 0) {
        std::printf("  bound %s left out: %lld elements of x are not a + b + c + d\n", name.c_str(),
                    static_cast<long long>(wrong));
        return;
      }
      rows.push_back(r);
    };
    time_bound(hybrid_bound_name, hybrid_pattern_bound<T>(ctx_, p, pick, ops));
    time_bound(stream_bound_name, one_pass_stream<T>(ctx_, in.a, in.b, in.c, d, in.out, in.count));
    if (c.algorithm == "cyclic") time_bound(cyclic_bound_name, cyclic_stage_bound<T>(ctx_, p, ops));
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
