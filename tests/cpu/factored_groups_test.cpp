// triax::FactoredSolver with one matrix per group of systems (the coefficients-Layout
// constructor) on the cpu and reference backends: against the general solver given the same
// a, b, c (support/factored_groups.hpp), every axis of 2-D and 3-D grids with ghost layers,
// 1..64 groups mixing matrices that converge fast, slowly and never, cpu_thomas and cpu_cr, in
// place / separate / increment; checked mode per group (a breakdown in one group only, the info
// scatter for group dimensions that are not the slowest); bad coefficient layouts refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

#include "support/factored_groups.hpp"

namespace triax::test {
namespace {

template <class T>
class FactoredGroups : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FactoredGroups, Precisions);

template <class T>
GroupedRunner<T> host_runner(Backend backend) {
  // A plan per call: host plans are cheap.
  return [backend](const GroupedCase<T>& gc, FactoredAlgorithm algorithm) -> FactoredModeRun<T> {
    return [backend, &gc, algorithm](Mode mode, std::vector<T>& d, std::vector<T>& x) {
      run_grouped_host(backend, gc, mode, d, x, algorithm);
    };
  };
}

TYPED_TEST(FactoredGroups, CpuMatchesGeneralSolver) {
  using T = TypeParam;
  for (std::int64_t n : {1, 2, 7, 40}) {
    for (const auto& gc : grouped_cases<T>(n, quick_mode())) {
      for (auto algorithm : {FactoredAlgorithm::cpu_thomas, FactoredAlgorithm::cpu_cr}) {
        check_grouped_against_reference(gc, host_runner<T>(Backend::cpu), algorithm);
        if (this->HasFatalFailure()) return;
      }
    }
  }
}

// The same cases with every group solved by a plan of its own (TRIAX_FACTORED_GROUP_LOOP=1),
// the path that plans whose group dimensions are not the slowest (and CR) always take.
TYPED_TEST(FactoredGroups, CpuGroupByGroupMatchesGeneralSolver) {
  using T = TypeParam;
  ::setenv("TRIAX_FACTORED_GROUP_LOOP", "1", 1);
  for (std::int64_t n : {2, 40}) {
    for (const auto& gc : grouped_cases<T>(n, true)) {
      check_grouped_against_reference(gc, host_runner<T>(Backend::cpu),
                                      FactoredAlgorithm::cpu_thomas);
      if (this->HasFatalFailure()) break;
    }
  }
  ::unsetenv("TRIAX_FACTORED_GROUP_LOOP");
}

TYPED_TEST(FactoredGroups, CpuLongSystemsCompressPerGroup) {
  using T = TypeParam;
  // n = 600: the fast groups' factors converge and compress, the slow ones (float) too, the
  // varying ones are stored row by row; one plan holds all three kinds.
  const std::int64_t n = 600;
  const auto gc = grouped_case<T>({n, 6}, 0, {1});
  for (auto algorithm : {FactoredAlgorithm::cpu_thomas, FactoredAlgorithm::cpu_cr}) {
    check_grouped_against_reference(gc, host_runner<T>(Backend::cpu), algorithm);
  }
  FactoredSolver<T> s(Backend::cpu, gc.a.data(), gc.b.data(), gc.c.data(), gc.coefficients,
                      gc.layouts, 0);
  EXPECT_EQ(s.group_count(), 6);
  // The stored rows are each group's own: the sum of one-matrix plans' figures.
  std::int64_t sum = 0;
  for (std::int64_t g = 0; g < 6; ++g) {
    const auto m = group_matrix<T>(n, g);
    FactoredSolver<T> one(Backend::cpu, m.a.data(), m.b.data(), m.c.data(), n,
                          Layout::packed({n, 1}), 0);
    sum += one.stored_rows();
  }
  EXPECT_EQ(s.stored_rows(), sum);
  EXPECT_LT(s.stored_rows(), 6 * (n + 1));  // the fast groups compress
  EXPECT_FALSE(s.compressed());             // the varying groups do not
}

TYPED_TEST(FactoredGroups, ReferenceBackendMatchesGeneralSolver) {
  using T = TypeParam;
  for (std::int64_t n : {3, 17}) {
    for (const auto& gc : grouped_cases<T>(n, true)) {
      check_grouped_against_reference(gc, host_runner<T>(Backend::reference),
                                      FactoredAlgorithm::automatic);
      if (this->HasFatalFailure()) return;
    }
  }
}

// Checked mode: group 1 of 4 is the Pade matrix of 3 rows (its pivot 2 is 0): its systems get
// info 3 and NaN; the other groups' systems report a NaN put in d at a known row, or 0. The
// groups lie along dimension 0 (fastest: info is scattered) or 2 (slowest: written in place).
TYPED_TEST(FactoredGroups, CheckedModePerGroup) {
  using T = TypeParam;
  const std::int64_t n = 3;
  for (int group_dim : {0, 2}) {
    for (auto algorithm : {FactoredAlgorithm::cpu_thomas, FactoredAlgorithm::cpu_cr}) {
      SCOPED_TRACE("group dim " + std::to_string(group_dim) + " " +
                   std::string(to_string(algorithm)));
      const std::vector<std::int64_t> shape =
          group_dim == 0 ? std::vector<std::int64_t>{4, n, 5} : std::vector<std::int64_t>{5, n, 4};
      auto gc = grouped_case<T>(shape, 1, {group_dim});
      plant_singular_group_one(gc, n);
      const Layout& l = gc.layouts.d;
      const std::int64_t count = 20;
      std::vector<T> d(buffer_size(l), T(0.5)), x(buffer_size(gc.layouts.x), T(1));
      std::vector<int> want(count, 0), got(count, -1);
      for (std::int64_t s = 0; s < count; ++s) {
        const std::int64_t g = group_dim == 0 ? s % 4 : s / 5;
        if (g == 1) {
          want[s] = 3;
        } else if (s % 3 == 0) {
          const std::int64_t row = s % n;
          d[row_of(l, 1, s, row)] = std::numeric_limits<T>::quiet_NaN();
          want[s] = static_cast<int>(row + 1);
        }
      }
      FactoredSolver<T> plan(Backend::cpu, gc.a.data(), gc.b.data(), gc.c.data(), gc.coefficients,
                             gc.layouts, 1, {.checked = true}, algorithm);
      EXPECT_EQ(plan.factor_info(), algorithm == FactoredAlgorithm::cpu_thomas ? 3 : 2);
      plan.solve(d.data(), x.data(), got.data());
      if (algorithm == FactoredAlgorithm::cpu_cr) {
        for (std::int64_t s = 0; s < count; ++s) {
          const std::int64_t g = group_dim == 0 ? s % 4 : s / 5;
          if (g == 1) want[s] = 2;  // the level-1 pivot lives in slot 1 (docs/algorithms.md)
        }
      }
      EXPECT_EQ(got, want);
      for (std::int64_t s = 0; s < count; ++s) {
        const std::int64_t g = group_dim == 0 ? s % 4 : s / 5;
        for (std::int64_t i = 0; i < n; ++i) {
          const T v = x[row_of(gc.layouts.x, 1, s, i)];
          if (g == 1) {
            EXPECT_TRUE(std::isnan(v)) << "system " << s;
          } else if (want[s] == 0) {
            EXPECT_TRUE(std::isfinite(v)) << "system " << s;
          }
        }
      }
    }
  }
}

TYPED_TEST(FactoredGroups, BadCoefficientLayoutsRefused) {
  using T = TypeParam;
  const std::int64_t n = 8;
  const auto l = Layout::packed({n, 4, 3});
  std::vector<T> a(200, T(0.25)), b(200, T(1)), c(200, T(0.25));
  auto make = [&](const Layout& coefficients, const Options& o = {}, Backend be = Backend::cpu) {
    FactoredSolver<T> s(be, a.data(), b.data(), c.data(), coefficients, l, 0, o);
  };
  auto refused = [&](const Layout& coefficients, const std::string& what, const Options& o = {},
                     Backend be = Backend::cpu) {
    try {
      make(coefficients, o, be);
      ADD_FAILURE() << "accepted; expected a message with " << what;
    } catch (const invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  refused(Layout::strided({n, 4}, {1, n}), "coefficients.rank = 2");
  refused(Layout::strided({n, 2, 3}, {1, n, 0}), "coefficients.extent[1] = 2");  // a group dim
  refused(Layout::strided({n, 4, 2}, {1, 0, 0}), "coefficients.extent[2] = 2");
  refused(Layout::strided({n - 1, 4, 3}, {1, n, 0}), "coefficients.extent[0] = 7");  // the axis
  refused(Layout::strided({1, 4, 3}, {1, n, 0}), "coefficients.extent[0] = 1");
  EXPECT_THROW(Layout::strided({n, 4, 3}, {1, -n, 0}), invalid_argument);  // negative stride
  // More than 4096 groups.
  const auto big = Layout::packed({n, 100, 50});
  try {
    FactoredSolver<T> s(Backend::cpu, a.data(), b.data(), c.data(),
                        Layout::strided({n, 100, 50}, {1, n, n * 100}), big, 0);
    ADD_FAILURE() << "5000 groups accepted";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("4096"), std::string::npos) << e.what();
  }
  // Null pointers, as the one-matrix constructor.
  try {
    FactoredSolver<T> s(Backend::cpu, a.data(), nullptr, c.data(),
                        Layout::strided({n, 4, 3}, {1, n, 0}), l, 0);
    ADD_FAILURE() << "null b accepted";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("pointer b is null"), std::string::npos) << e.what();
  }
  // cuda + checked: the group dimensions must be the slowest (refused before any device work).
  refused(Layout::strided({n, 4, 3}, {1, n, 0}), "options.checked = true on the cuda backend",
          {.checked = true}, Backend::cuda);
  // Accepted: groups along dimension 1 (4), 2 (3), both (12), none; extent 1 shares.
  for (const auto& ok :
       {Layout::strided({n, 4, 3}, {1, n, 0}), Layout::strided({n, 4, 3}, {1, 0, n}),
        Layout::strided({n, 4, 3}, {1, n, 4 * n}), Layout::strided({n, 1, 1}, {1, 5, 7}),
        Layout::strided({n, 4, 1}, {1, n, 3})}) {
    EXPECT_NO_THROW(make(ok));
  }
}

}  // namespace
}  // namespace triax::test
