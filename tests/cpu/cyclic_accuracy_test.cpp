// The accuracy study of paper 001 (s.6) on the CPU references of the cyclic family: forward
// error and residual of every algorithm, beside LAPACK ?gtsv (partial pivoting) and cpu_thomas,
// on its two matrix sets: random diagonally dominant systems, and random systems with close
// values (a, b, c in [1, 1.1]). The truth is dense LU with partial pivoting in long double.
// Prints the table (ctest -V, or the test binary with --gtest_filter=CpuCyclicAccuracy*) and
// asserts the bounds docs/algorithms.md states: CR, PCR and CR+PCR within 32 epsilon times the
// condition estimate on the dominant set; RD and CR+RD on the close set; on the dominant set RD
// and CR+RD are reported by checked mode for every system.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#if defined(TRIAX_TEST_HAS_LAPACKE)
#include <lapacke.h>
#endif

#include "cpu/host_solvers.hpp"
#include "support/cyclic_problems.hpp"

namespace triax::test {
namespace {

template <class T>
class CpuCyclicAccuracy : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CpuCyclicAccuracy, ValueTypes);

/// Errors of one solver over a batch: the worst system's forward error (max |x - x*| / max |x*|)
/// and normwise residual (max |A x - d| / (||A|| max |x| + max |d|)), and the systems whose x is
/// not finite.
struct Errors {
  double forward = 0, residual = 0;
  int non_finite = 0;
};

template <class T>
Errors errors_of(const Batch<T>& batch, const std::vector<T>& x, const std::vector<T>& truth,
                 std::int64_t n, std::int64_t systems) {
  const Layout& l = batch.layouts.d;
  Errors e;
  for (std::int64_t s = 0; s < systems; ++s) {
    const std::vector<std::int64_t> rows = system_rows(l, 0, s);
    long double err = 0, scale = 0, xmax = 0, dmax = 0, amax = 0, rmax = 0;
    bool finite = true;
    for (std::int64_t i = 0; i < n; ++i) {
      finite &= std::isfinite(x[rows[i]]);
      err = std::max<long double>(err, std::fabs((long double)x[rows[i]] - truth[rows[i]]));
      scale = std::max<long double>(scale, std::fabs((long double)truth[rows[i]]));
      xmax = std::max<long double>(xmax, std::fabs((long double)x[rows[i]]));
      dmax = std::max<long double>(dmax, std::fabs((long double)batch.d[rows[i]]));
      long double r = (long double)batch.b[rows[i]] * x[rows[i]] - batch.d[rows[i]];
      long double row = std::fabs((long double)batch.b[rows[i]]);
      if (i > 0) {
        r += (long double)batch.a[rows[i]] * x[rows[i - 1]];
        row += std::fabs((long double)batch.a[rows[i]]);
      }
      if (i + 1 < n) {
        r += (long double)batch.c[rows[i]] * x[rows[i + 1]];
        row += std::fabs((long double)batch.c[rows[i]]);
      }
      rmax = std::max<long double>(rmax, std::fabs(r));
      amax = std::max(amax, row);
    }
    if (!finite) {
      ++e.non_finite;
      continue;
    }
    e.forward = std::max(e.forward, double(err / scale));
    e.residual = std::max(e.residual, double(rmax / (amax * xmax + dmax)));
  }
  return e;
}

#if defined(TRIAX_TEST_HAS_LAPACKE)
template <class T>
void gtsv_all(const Batch<T>& batch, std::int64_t n, std::int64_t systems, std::vector<T>& out) {
  for (std::int64_t s = 0; s < systems; ++s) {
    const std::vector<std::int64_t> rows = system_rows(batch.layouts.d, 0, s);
    std::vector<T> dl(n), dg(n), du(n), rhs(n);
    for (std::int64_t i = 0; i < n; ++i) {
      if (i > 0) dl[i - 1] = batch.a[rows[i]];
      dg[i] = batch.b[rows[i]];
      if (i + 1 < n) du[i] = batch.c[rows[i]];
      rhs[i] = batch.d[rows[i]];
    }
    if constexpr (std::is_same_v<T, double>) {
      LAPACKE_dgtsv(LAPACK_COL_MAJOR, n, 1, dl.data(), dg.data(), du.data(), rhs.data(), n);
    } else {
      LAPACKE_sgtsv(LAPACK_COL_MAJOR, n, 1, dl.data(), dg.data(), du.data(), rhs.data(), n);
    }
    for (std::int64_t i = 0; i < n; ++i) out[rows[i]] = rhs[i];
  }
}
#endif

TYPED_TEST(CpuCyclicAccuracy, TwoMatrixSetsOfPaper001) {
  using T = TypeParam;
  constexpr std::int64_t systems = 16;
  const char* precision = sizeof(T) == 4 ? "float" : "double";
  std::printf("\n%-6s %-9s %5s %-12s %10s %10s %s\n", precision, "set", "n", "solver", "fwd error",
              "residual", "non-finite");
  for (const bool close : {false, true}) {
    for (std::int64_t n : {64, 128, 256, 512}) {
      const Layout layout = Layout::packed({n, systems});
      Batch<T> batch{OperandLayouts(layout)};
      if (close) {
        fill_close_values(batch, 0, test_seed(n));
      } else {
        batch.fill_random(test_seed(n));
      }
      batch.fill_x(T(0));
      const double bound = tolerance<T>(batch.condition, 1);
      Batch<T> truth_batch = batch;
      Solver<T>(Backend::reference, layout, 0, {.algorithm = Algorithm::reference_dense_lu})
          .solve(truth_batch.a.data(), truth_batch.b.data(), truth_batch.c.data(),
                 truth_batch.d.data(), truth_batch.x.data());
      auto report = [&](const std::string& name, const Errors& e) {
        std::printf("%-6s %-9s %5lld %-12s %10.2e %10.2e %d/%lld\n", precision,
                    close ? "close" : "dominant", static_cast<long long>(n), name.c_str(),
                    e.forward, e.residual, e.non_finite, static_cast<long long>(systems));
      };
#if defined(TRIAX_TEST_HAS_LAPACKE)
      std::vector<T> lapack(batch.x.size());
      gtsv_all(batch, n, systems, lapack);
      report("gtsv", errors_of(batch, lapack, truth_batch.x, n, systems));
#endif
      for (Algorithm alg : {Algorithm::cpu_thomas, Algorithm::cpu_cr, Algorithm::cpu_pcr,
                            Algorithm::cpu_rd, Algorithm::cpu_cr_pcr, Algorithm::cpu_cr_rd}) {
        Batch<T> work = batch;
        Solver<T>(Backend::cpu, layout, 0, {.algorithm = alg})
            .solve(work.a.data(), work.b.data(), work.c.data(), work.d.data(), work.x.data());
        const Errors e = errors_of(batch, work.x, truth_batch.x, n, systems);
        const std::string name(to_string(alg).substr(4));
        report(name, e);
        const bool rd = alg == Algorithm::cpu_rd || alg == Algorithm::cpu_cr_rd;
        SCOPED_TRACE(name + (close ? ", close" : ", dominant") + ", n " + std::to_string(n));
        if (rd == close) {
          // The set each algorithm is stable on: every system solved within the bound.
          EXPECT_EQ(e.non_finite, 0);
          EXPECT_LE(e.forward, bound);
        }
        if (rd && !close) {
          // Dominant rows: RD's products overflow (float) or grow past 1 / epsilon (double, whose
          // finite x are then meaningless): checked mode reports every system.
          Batch<T> checked = batch;
          std::vector<int> info(systems, 0);
          Solver<T>(Backend::cpu, layout, 0, {.algorithm = alg, .checked = true})
              .solve(checked.a.data(), checked.b.data(), checked.c.data(), checked.d.data(),
                     checked.x.data(), info.data());
          for (std::int64_t s = 0; s < systems; ++s) EXPECT_GT(info[s], 0) << "system " << s;
          if (sizeof(T) == 4) EXPECT_EQ(e.non_finite, systems);
        }
      }
    }
  }
}

}  // namespace
}  // namespace triax::test
