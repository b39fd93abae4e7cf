// The accuracy study of paper 001 (s.5.4) on the host (support/accuracy_study.hpp): forward error
// and residual of LAPACK ?gtsv (partial pivoting), reference_thomas and every cpu algorithm (the
// Thomas solvers and the five cyclic references) on the paper's two matrix sets: random diagonally
// dominant systems, and random systems with close values (a, b, c in [1, 1.1]). Prints the table
// (ctest -V, or the test binary with --gtest_filter=CpuCyclicAccuracy*); with
// TRIAX_ACCURACY_JSON=FOLDER it writes FOLDER/host-float.json and host-double.json for
// scripts/plot_accuracy.py (docs/accuracy.md). Asserts the bounds docs/algorithms.md states: the
// Thomas solvers, CR, PCR and CR+PCR within 32 epsilon times the condition estimate on the
// dominant set; RD and CR+RD on the close set; on the dominant set RD and CR+RD are reported by
// checked mode for every system.
#include <gtest/gtest.h>

#include <type_traits>
#include <vector>

#if defined(TRIAX_TEST_HAS_LAPACKE)
#include <lapacke.h>
#endif

#include "support/accuracy_study.hpp"

namespace triax::test {
namespace {

template <class T>
class CpuCyclicAccuracy : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CpuCyclicAccuracy, ValueTypes);

#if defined(TRIAX_TEST_HAS_LAPACKE)
template <class T>
std::vector<T> gtsv_all(const StudyProblem<T>& p) {
  std::vector<T> out(p.batch.x.size());
  for (std::int64_t s = 0; s < p.systems; ++s) {
    const std::vector<std::int64_t> rows = system_rows(p.batch.layouts.d, 0, s);
    const std::int64_t n = p.n;
    std::vector<T> dl(n), dg(n), du(n), rhs(n);
    for (std::int64_t i = 0; i < n; ++i) {
      if (i > 0) dl[i - 1] = p.batch.a[rows[i]];
      dg[i] = p.batch.b[rows[i]];
      if (i + 1 < n) du[i] = p.batch.c[rows[i]];
      rhs[i] = p.batch.d[rows[i]];
    }
    if constexpr (std::is_same_v<T, double>) {
      LAPACKE_dgtsv(LAPACK_COL_MAJOR, n, 1, dl.data(), dg.data(), du.data(), rhs.data(), n);
    } else {
      LAPACKE_sgtsv(LAPACK_COL_MAJOR, n, 1, dl.data(), dg.data(), du.data(), rhs.data(), n);
    }
    for (std::int64_t i = 0; i < n; ++i) out[rows[i]] = rhs[i];
  }
  return out;
}
#endif

template <class T>
std::vector<T> host_solve(Backend backend, Algorithm alg, const StudyProblem<T>& p) {
  Batch<T> work = p.batch;
  Solver<T>(backend, p.layout, 0, {.algorithm = alg})
      .solve(work.a.data(), work.b.data(), work.c.data(), work.d.data(), work.x.data());
  return work.x;
}

TYPED_TEST(CpuCyclicAccuracy, TwoMatrixSetsOfPaper001) {
  using T = TypeParam;
  const char* precision = sizeof(T) == 4 ? "float" : "double";
  const std::vector<StudyProblem<T>> problems = study_problems<T>();
  std::vector<StudyRow> rows;
#if defined(TRIAX_TEST_HAS_LAPACKE)
  for (const StudyProblem<T>& p : problems) {
    rows.push_back({"lapack", sizeof(T) == 4 ? "sgtsv" : "dgtsv", p.set(), p.n, p.systems,
                    errors_of(p.batch, gtsv_all(p), p.truth, p.n, p.systems), p.bound});
  }
#endif
  run_study<T>(rows, problems, Backend::reference, {Algorithm::reference_thomas}, host_solve<T>);
  run_study<T>(rows, problems, Backend::cpu,
               {Algorithm::cpu_thomas, Algorithm::cpu_thomas_transpose,
                Algorithm::cpu_thomas_partitioned, Algorithm::cpu_cr, Algorithm::cpu_pcr,
                Algorithm::cpu_rd, Algorithm::cpu_cr_pcr, Algorithm::cpu_cr_rd},
               host_solve<T>);
  print_study(precision, rows);
  write_study_json("host", precision, rows);

  // Dominant rows: RD's products overflow (float) or grow past 1 / epsilon (double, whose finite
  // x are then meaningless): checked mode reports every system.
  for (const StudyProblem<T>& p : problems) {
    if (p.close) continue;
    for (Algorithm alg : {Algorithm::cpu_rd, Algorithm::cpu_cr_rd}) {
      SCOPED_TRACE(std::string(to_string(alg)) + ", dominant, n " + std::to_string(p.n));
      Batch<T> checked = p.batch;
      std::vector<int> info(p.systems, 0);
      Solver<T>(Backend::cpu, p.layout, 0, {.algorithm = alg, .checked = true})
          .solve(checked.a.data(), checked.b.data(), checked.c.data(), checked.d.data(),
                 checked.x.data(), info.data());
      for (std::int64_t s = 0; s < p.systems; ++s) EXPECT_GT(info[s], 0) << "system " << s;
      if (sizeof(T) == 4) {
        const std::vector<T> x = host_solve(Backend::cpu, alg, p);
        EXPECT_EQ(errors_of(p.batch, x, p.truth, p.n, p.systems).non_finite, p.systems);
      }
    }
  }
}

}  // namespace
}  // namespace triax::test
