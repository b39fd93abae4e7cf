#include "block_baseline.hpp"

#include <algorithm>

#if TRIAX_BENCH_HAS_LAPACKE
#include <lapacke.h>
#endif

namespace triax::bench {

template <>
std::string gbsv_name<float>() {
  return "lapacke_sgbsv";
}
template <>
std::string gbsv_name<double>() {
  return "lapacke_dgbsv";
}

namespace {

#if TRIAX_BENCH_HAS_LAPACKE
lapack_int gbsv(lapack_int n, lapack_int kl, lapack_int ku, float* ab, lapack_int ldab,
                lapack_int* ipiv, float* rhs) {
  return LAPACKE_sgbsv_work(LAPACK_COL_MAJOR, n, kl, ku, 1, ab, ldab, ipiv, rhs, n);
}
lapack_int gbsv(lapack_int n, lapack_int kl, lapack_int ku, double* ab, lapack_int ldab,
                lapack_int* ipiv, double* rhs) {
  return LAPACKE_dgbsv_work(LAPACK_COL_MAJOR, n, kl, ku, 1, ab, ldab, ipiv, rhs, n);
}
#endif

template <class T>
std::int64_t solve_batch(const BlockSystems& g, const T* a, const T* b, const T* c, const T* d,
                         T* out) {
  std::int64_t failures = 0;
#if TRIAX_BENCH_HAS_LAPACKE
  const int m = g.m;
  const std::int64_t size = g.n * m;
  const int kl = 2 * m - 1, ku = 2 * m - 1;
  const int ldab = 2 * kl + ku + 1;  // gbsv needs kl extra rows for the fill-in of pivoting
#pragma omp parallel reduction(+ : failures)
  {
    std::vector<T> ab(static_cast<std::size_t>(ldab) * size), rhs(size);
    std::vector<lapack_int> ipiv(size);
#pragma omp for schedule(static)
    for (std::int64_t s = 0; s < g.count(); ++s) {
      std::fill(ab.begin(), ab.end(), T(0));
      // Column-major band storage: A(i, j) at ab[kl + ku + i - j + j * ldab].
      auto put = [&](std::int64_t i, std::int64_t j, T v) { ab[kl + ku + i - j + j * ldab] = v; };
      for (std::int64_t i = 0; i < g.n; ++i) {
        const std::int64_t bo = g.block_start[s] + i * g.block_row_stride;
        for (int r = 0; r < m; ++r) {
          const std::int64_t row = i * m + r;
          for (int col = 0; col < m; ++col) {
            const std::int64_t e = bo + r * g.block_r + col * g.block_c;
            if (i > 0) put(row, (i - 1) * m + col, a[e]);
            put(row, i * m + col, b[e]);
            if (i + 1 < g.n) put(row, (i + 1) * m + col, c[e]);
          }
          rhs[row] = d[g.vector_start[s] + i * g.vector_row_stride + r * g.vector_r];
        }
      }
      failures += gbsv(static_cast<lapack_int>(size), kl, ku, ab.data(), ldab, ipiv.data(),
                       rhs.data()) != 0;
      for (std::int64_t i = 0; i < g.n; ++i)
        for (int r = 0; r < m; ++r)
          out[g.vector_start[s] + i * g.vector_row_stride + r * g.vector_r] = rhs[i * m + r];
    }
  }
#else
  (void)g, (void)a, (void)b, (void)c, (void)d, (void)out;
#endif
  return failures;
}

}  // namespace

template <class T>
Timing lapack_gbsv_batch(const BlockSystems& g, const T* a, const T* b, const T* c, const T* d,
                         T* out, int reps, void (*prepare)(), std::int64_t* failures) {
  *failures = 0;
  auto solve = [&] { *failures = solve_batch(g, a, b, c, d, out); };
  return measure(reps, prepare, solve, [](auto& f) { return host_ms(f); });
}

template Timing lapack_gbsv_batch<float>(const BlockSystems&, const float*, const float*,
                                         const float*, const float*, float*, int, void (*)(),
                                         std::int64_t*);
template Timing lapack_gbsv_batch<double>(const BlockSystems&, const double*, const double*,
                                          const double*, const double*, double*, int, void (*)(),
                                          std::int64_t*);

}  // namespace triax::bench
