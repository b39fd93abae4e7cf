#pragma once
// One case, whatever the backend: generate the inputs once, then per axis run the baselines and
// every requested triax algorithm, and add a Row for each. The memory space, the clock and the
// baselines come from an environment `Env` (host_runner.cpp, gpu_runner.cu):
//   T* upload(const T* host, n)           an array in the backend's memory (owned by env)
//   T* scratch(n)                         an uninitialised array in the backend's memory
//   void copy(T* dst, const T* src, n)    a copy in the backend's memory (untimed)
//   void flush()                          evict caches (untimed)
//   double time_one(solve)                milliseconds of one solve
//   const T* fetch(const T* out, n)       a host view of `out`
//   Options options(Algorithm)            the plan's options (stream for cuda)
//   void baselines(axis, inputs, rows&)   the baselines of this axis, as Rows
#include <cstdio>
#include <string>
#include <vector>

#include "case.hpp"
#include "env_scope.hpp"
#include "host_memory.hpp"
#include "inputs.hpp"
#include "options.hpp"
#include "stats.hpp"
#include "triax/triax.hpp"

namespace triax::bench {

/// The arrays of one case in the backend's memory: pristine a, b, c, d and a working output.
template <class T>
struct DeviceInputs {
  const T *a, *b, *c, *d;
  T* out;
  std::int64_t count;
  /// Host copies, for the residual check.
  const T *host_a, *host_b, *host_c, *host_d;
};

template <class T>
Row base_row(const Case& c, int axis, const std::string& backend, const std::string& algorithm) {
  Row r;
  r.backend = backend;
  r.algorithm = algorithm;
  r.precision = to_string(c.precision);
  r.mode = to_string(c.mode);
  r.launches = c.launches;
  r.extents = c.extents;
  r.axis = axis;
  const AxisGeometry g(c.extents, axis);
  r.n = g.n;
  r.systems = g.systems;
  r.bytes = effective_bytes(product(c.extents), c.precision, c.mode);
  return r;
}

inline void set_timing(Row& r, const Timing& t) {
  r.median_ms = t.median_ms;
  r.min_ms = t.min_ms;
  r.max_ms = t.max_ms;
}

/// The algorithm the plan's automatic choice picks, or automatic if no plan can be made.
template <class T, class Env>
Algorithm automatic_pick(Env& env, const Case& c, const Layout& layout, int axis) {
  try {
    return Solver<T>(c.backend, layout, axis, env.options(Algorithm::automatic)).algorithm();
  } catch (const error&) {  // rejected, or the backend is not compiled (baselines only)
    return Algorithm::automatic;
  }
}

template <class T, class Env>
void run_case(const Case& c, const CopyReference& copy, Env& env, std::vector<Row>& rows) {
  const std::int64_t count = product(c.extents);
  auto ha = host_array<T>(count), hb = host_array<T>(count), hc = host_array<T>(count),
       hd = host_array<T>(count);
  generate<T>(c.extents, ha.get(), hb.get(), hc.get(), hd.get());
  const DeviceInputs<T> in{env.upload(ha.get(), count),
                           env.upload(hb.get(), count),
                           env.upload(hc.get(), count),
                           env.upload(hd.get(), count),
                           env.scratch(count),
                           count,
                           ha.get(),
                           hb.get(),
                           hc.get(),
                           hd.get()};
  const Layout layout = Layout::packed(c.extents);

  for (int axis : c.axes) {
    const std::size_t first = rows.size();
    if (c.baselines) env.baselines(c, axis, in, rows);
    const std::size_t baseline_end = rows.size();
    for (std::size_t i = first; i < baseline_end; ++i) finish_row(rows[i], copy);

    const Algorithm pick = automatic_pick<T>(env, c, layout, axis);
    // GPU, --suite small: the arithmetic-free bounds, timed as the solves are below.
    if constexpr (requires { env.pattern_bounds(c, axis, in, pick, rows); }) {
      const std::size_t bounds_first = rows.size();
      if (c.pattern_bounds) env.pattern_bounds(c, axis, in, pick, rows);
      for (std::size_t i = bounds_first; i < rows.size(); ++i) finish_row(rows[i], copy);
    }
    // One algorithm's row; `label` names an EnvVariant (its rows are never the pick's).
    auto time_algorithm = [&](Algorithm alg, const std::string& label) {
      std::unique_ptr<Solver<T>> solver;
      try {
        solver = std::make_unique<Solver<T>>(c.backend, layout, axis, env.options(alg));
      } catch (const invalid_argument& e) {
        std::printf("  skipped %s%s on axis %d: %s\n", std::string(to_string(alg)).c_str(),
                    label.empty() ? "" : (" [" + label + "]").c_str(), axis, e.what());
        return;
      }
      auto prepare = [&] {
        if (c.mode != Mode::separate) env.copy(in.out, in.d, count);  // d (inplace) or u0 = d
        env.flush();
      };
      auto solve = [&] {
        switch (c.mode) {
          case Mode::in_place:
            solver->solve_in_place(in.a, in.b, in.c, in.out);
            break;
          case Mode::separate:
            solver->solve(in.a, in.b, in.c, in.d, in.out);
            break;
          case Mode::increment:
            solver->solve_increment(in.a, in.b, in.c, in.d, in.out);
            break;
        }
      };
      Row r = base_row<T>(
          c, axis, std::string(to_string(c.backend)),
          std::string(to_string(solver->algorithm())) + (label.empty() ? "" : " [" + label + "]"));
      r.automatic = label.empty() && solver->algorithm() == pick;
      try {
        set_timing(r, measure_launches(c.reps, c.launches, prepare, solve,
                                       [&](auto& f) { return env.time_one(f); }));
        if (c.launches > 1) {  // the residual of one solve from the prepared state
          prepare();
          solve();
        }
        r.residual = sampled_residual<T>(c.extents, axis, in.host_a, in.host_b, in.host_c,
                                         in.host_d, env.fetch(in.out, count),
                                         c.mode == Mode::increment ? in.host_d : nullptr);
      } catch (const error& e) {  // a failed launch: report it, go on with the next algorithm
        std::printf("  FAILED %s on axis %d: %s\n", r.algorithm.c_str(), axis, e.what());
        return;
      }
      // The speedup column compares with the last baseline of this axis, if there is one.
      if (baseline_end > first) {
        r.baseline = rows[baseline_end - 1].algorithm;
        r.baseline_ms = rows[baseline_end - 1].median_ms;
      }
      finish_row(r, copy);
      // GPU: the row's time against the two-pass bound (gpu_two_pass_bound.hpp).
      if constexpr (requires { env.two_pass_bound_ms(c, axis, in); }) {
        const double bound = env.two_pass_bound_ms(c, axis, in);
        if (bound > 0 && r.median_ms > 0) {
          r.bound_ms = bound;
          r.bound_gbps = r.bytes / (bound * 1e-3) / 1e9;
          r.pct_bound = 100.0 * bound / r.median_ms;
        }
      }
      rows.push_back(r);
    };
    for (Algorithm alg : requested_algorithms(c)) time_algorithm(alg, "");
    for (const EnvVariant& v : c.variants) {
      const EnvScope scope(v.env);
      time_algorithm(v.algorithm, v.label);
    }
  }
}

/// run_case in the case's precision, with a fresh Env<float> or Env<double>.
template <template <class> class Env>
void run_case_in_precision(const Case& c, const CopyReference& copy, std::vector<Row>& rows) {
  if (c.precision == Precision::f32) {
    Env<float> env;
    run_case<float>(c, copy, env, rows);
  } else {
    Env<double> env;
    run_case<double>(c, copy, env, rows);
  }
}

}  // namespace triax::bench
