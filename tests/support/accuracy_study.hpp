#pragma once
// The accuracy study of paper 001 (s.5.4), shared by the CPU test (reference, cpu and LAPACK
// ?gtsv rows) and the GPU test (cuda rows): its two matrix sets (random diagonally dominant
// systems; random systems with close values, a, b, c in [1, 1.1]) at n = 64 .. 512, the truth by
// dense LU with partial pivoting in long double, and per solver the worst system's forward error
// and normwise residual. With TRIAX_ACCURACY_JSON set to a folder, each test writes its rows there
// as <name>-<precision>.json, the input of scripts/plot_accuracy.py (docs/accuracy.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "support/cyclic_problems.hpp"

namespace triax::test {

/// Errors of one solver over a batch: the worst system's forward error (max |x - x*| / max |x*|)
/// and normwise residual (max |A x - d| / (||A|| max |x| + max |d|)) over the systems whose x is
/// finite, and how many are not.
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

/// One problem of the study: a batch of `systems` packed systems of n rows (solved along axis
/// 0), its truth and the bound the stable algorithms meet (32 epsilon times the condition).
template <class T>
struct StudyProblem {
  bool close = false;
  std::int64_t n = 0, systems = 0;
  Layout layout;
  Batch<T> batch;
  std::vector<T> truth;
  double bound = 0;
  const char* set() const { return close ? "close" : "dominant"; }
};

constexpr std::int64_t study_systems = 16;

/// The study's problems: both sets at n = 64, 128, 256, 512, the same seeds on every backend.
template <class T>
std::vector<StudyProblem<T>> study_problems() {
  std::vector<StudyProblem<T>> out;
  for (const bool close : {false, true}) {
    for (std::int64_t n : {64, 128, 256, 512}) {
      const Layout layout = Layout::packed({n, study_systems});
      StudyProblem<T> p{close, n, study_systems, layout, Batch<T>{OperandLayouts(layout)}, {}, 0};
      if (close) {
        fill_close_values(p.batch, 0, test_seed(n));
      } else {
        p.batch.fill_random(test_seed(n));
      }
      p.batch.fill_x(T(0));
      p.bound = tolerance<T>(p.batch.condition, 1);
      Batch<T> truth = p.batch;
      Solver<T>(Backend::reference, layout, 0, {.algorithm = Algorithm::reference_dense_lu})
          .solve(truth.a.data(), truth.b.data(), truth.c.data(), truth.d.data(), truth.x.data());
      p.truth = truth.x;
      out.push_back(std::move(p));
    }
  }
  return out;
}

/// One row of the study's table.
struct StudyRow {
  std::string backend, algorithm, set;
  std::int64_t n = 0, systems = 0;
  Errors errors;
  double bound = 0;
};

/// The algorithms that must meet the bound on a set: the Thomas family on the dominant set (no
/// pivoting), CR, PCR and CR+PCR there too, RD and CR+RD on the close set (they overflow on the
/// dominant one). The others are measured, not asserted.
inline bool bound_asserted(Algorithm a, bool close) {
  const std::string name(to_string(a));
  const bool rd = name.ends_with("_rd");
  return rd == close;
}

/// The table as the test prints it.
inline void print_study(const char* precision, const std::vector<StudyRow>& rows) {
  std::printf("\n%-6s %-9s %5s %-28s %10s %10s %s\n", precision, "set", "n", "solver", "fwd error",
              "residual", "non-finite");
  for (const StudyRow& r : rows) {
    std::printf("%-6s %-9s %5lld %-28s %10.2e %10.2e %d/%lld\n", precision, r.set.c_str(),
                static_cast<long long>(r.n), r.algorithm.c_str(), r.errors.forward,
                r.errors.residual, r.errors.non_finite, static_cast<long long>(r.systems));
  }
}

/// Writes the rows to $TRIAX_ACCURACY_JSON/<name>-<precision>.json when the variable is set.
/// Errors of a row whose every system is non-finite are null.
inline void write_study_json(const std::string& name, const char* precision,
                             const std::vector<StudyRow>& rows) {
  const char* folder = std::getenv("TRIAX_ACCURACY_JSON");
  if (folder == nullptr || *folder == '\0') return;
  const std::string path = std::string(folder) + "/" + name + "-" + precision + ".json";
  std::FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr) << "cannot write " << path;
  std::fprintf(f, "{\n  \"study\": \"paper001-accuracy\",\n  \"precision\": \"%s\",\n  \"rows\": [",
               precision);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const StudyRow& r = rows[i];
    const bool none = r.errors.non_finite == r.systems;
    char forward[32] = "null", residual[32] = "null";
    if (!none) {
      std::snprintf(forward, sizeof forward, "%.6e", r.errors.forward);
      std::snprintf(residual, sizeof residual, "%.6e", r.errors.residual);
    }
    std::fprintf(f,
                 "%s\n    {\"backend\": \"%s\", \"algorithm\": \"%s\", \"set\": \"%s\", "
                 "\"n\": %lld, \"systems\": %lld, \"forward\": %s, \"residual\": %s, "
                 "\"non_finite\": %d, \"bound\": %.6e}",
                 i ? "," : "", r.backend.c_str(), r.algorithm.c_str(), r.set.c_str(),
                 static_cast<long long>(r.n), static_cast<long long>(r.systems), forward, residual,
                 r.errors.non_finite, r.bound);
  }
  std::fprintf(f, "\n  ]\n}\n");
  std::fclose(f);
  std::printf("wrote %s\n", path.c_str());
}

/// Solves a problem's batch (in place in its x) with one algorithm; a plan the backend rejects
/// for this layout throws triax::invalid_argument.
template <class T>
using StudySolve = std::function<std::vector<T>(Backend, Algorithm, const StudyProblem<T>&)>;

/// Runs `algorithms` of `backend` on every problem, asserting the bound where bound_asserted
/// says so; algorithms whose plan rejects a problem (a size limit) get no row there.
template <class T>
void run_study(std::vector<StudyRow>& rows, const std::vector<StudyProblem<T>>& problems,
               Backend backend, const std::vector<Algorithm>& algorithms,
               const StudySolve<T>& solve) {
  for (const StudyProblem<T>& p : problems) {
    for (Algorithm alg : algorithms) {
      std::vector<T> x;
      try {
        x = solve(backend, alg, p);
      } catch (const invalid_argument&) {
        continue;
      }
      const Errors e = errors_of(p.batch, x, p.truth, p.n, p.systems);
      rows.push_back({std::string(to_string(backend)), std::string(to_string(alg)), p.set(), p.n,
                      p.systems, e, p.bound});
      SCOPED_TRACE(std::string(to_string(alg)) + ", " + p.set() + ", n " + std::to_string(p.n));
      if (bound_asserted(alg, p.close)) {
        EXPECT_EQ(e.non_finite, 0);
        EXPECT_LE(e.forward, p.bound);
      }
    }
  }
}

}  // namespace triax::test
