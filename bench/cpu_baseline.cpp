#include "cpu_baseline.hpp"

#include <vector>

#include "inputs.hpp"

#if TRIAX_BENCH_HAS_LAPACKE
#include <lapacke.h>
#endif

namespace triax::bench {

bool lapack_available() { return TRIAX_BENCH_HAS_LAPACKE != 0; }

template <>
std::string lapack_name<float>() {
  return "lapacke_sgtsv";
}
template <>
std::string lapack_name<double>() {
  return "lapacke_dgtsv";
}

namespace {

#if TRIAX_BENCH_HAS_LAPACKE
lapack_int gtsv(lapack_int n, float* dl, float* d, float* du, float* b) {
  return LAPACKE_sgtsv_work(LAPACK_COL_MAJOR, n, 1, dl, d, du, b, n);
}
lapack_int gtsv(lapack_int n, double* dl, double* d, double* du, double* b) {
  return LAPACKE_dgtsv_work(LAPACK_COL_MAJOR, n, 1, dl, d, du, b, n);
}
#endif

/// One batch: every system gathered, solved by gtsv and scattered, OpenMP across systems in
/// contiguous chunks (so neighbouring systems of a thread share cache lines when axis > 0).
template <class T>
std::int64_t solve_batch(const AxisGeometry& g, const T* a, const T* b, const T* c, const T* d,
                         T* out) {
  std::int64_t failures = 0;
#if TRIAX_BENCH_HAS_LAPACKE
#pragma omp parallel reduction(+ : failures)
  {
    std::vector<T> dl(g.n), dd(g.n), du(g.n), rhs(g.n);
#pragma omp for schedule(static)
    for (std::int64_t j = 0; j < g.systems; ++j) {
      const std::int64_t o0 = g.start(j), s = g.stride;
      for (std::int64_t i = 0; i < g.n; ++i) {
        const std::int64_t o = o0 + i * s;
        if (i > 0) dl[i - 1] = a[o];
        dd[i] = b[o];
        if (i + 1 < g.n) du[i] = c[o];
        rhs[i] = d[o];
      }
      failures +=
          gtsv(static_cast<lapack_int>(g.n), dl.data(), dd.data(), du.data(), rhs.data()) != 0;
      for (std::int64_t i = 0; i < g.n; ++i) out[o0 + i * s] = rhs[i];
    }
  }
#else
  (void)g, (void)a, (void)b, (void)c, (void)d, (void)out;
#endif
  return failures;
}

}  // namespace

template <class T>
Timing lapack_gtsv_batch(std::span<const std::int64_t> extents, int axis, const T* a, const T* b,
                         const T* c, const T* d, T* out, int reps, void (*prepare)(),
                         std::int64_t* failures) {
  const AxisGeometry g(extents, axis);
  *failures = 0;
  auto solve = [&] { *failures = solve_batch(g, a, b, c, d, out); };
  return measure(reps, prepare, solve, [](auto& f) { return host_ms(f); });
}

template Timing lapack_gtsv_batch<float>(std::span<const std::int64_t>, int, const float*,
                                         const float*, const float*, const float*, float*, int,
                                         void (*)(), std::int64_t*);
template Timing lapack_gtsv_batch<double>(std::span<const std::int64_t>, int, const double*,
                                          const double*, const double*, const double*, double*, int,
                                          void (*)(), std::int64_t*);

}  // namespace triax::bench
