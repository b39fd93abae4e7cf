// Checked mode of the CPU cyclic family: a zero pivot at a known row is reported at that row by
// CR, PCR and CR+PCR, and only in its own system; RD's overflow is reported per system, never
// returned as a silent success; healthy systems get 0.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/cyclic_problems.hpp"

namespace triax::test {
namespace {

template <class T>
class CpuCyclicChecked : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CpuCyclicChecked, ValueTypes);

template <class T>
std::vector<int> checked_solve(Algorithm algorithm, const Layout& layout, int axis, Mode mode,
                               Batch<T>& batch) {
  Solver<T> s(Backend::cpu, layout, axis, {.algorithm = algorithm, .checked = true});
  std::vector<int> info(s.system_count(), -1);
  run_mode(s, batch, mode, info.data());
  return info;
}

// b = 0 at an odd row k: the first reduction step of CR (which divides by the odd rows) and of
// PCR (by every row) meets it before anything else, so info is k + 1 exactly.
TYPED_TEST(CpuCyclicChecked, ZeroPivotAtAKnownRow) {
  using T = TypeParam;
  constexpr std::int64_t n = 300, systems = 5;
  int k = 0;
  for (Algorithm alg : {Algorithm::cpu_cr, Algorithm::cpu_pcr, Algorithm::cpu_cr_pcr}) {
    for (std::int64_t row : {1, 77, 255, 299}) {
      for (Mode mode : {Mode::in_place, Mode::separate, Mode::increment}) {
        SCOPED_TRACE(std::string(to_string(alg)) + ", row " + std::to_string(row) + ", " +
                     to_string(mode));
        const int axis = ++k % 2;
        const Layout layout = axis == 0 ? Layout::packed({n, systems}) : Layout::packed({systems, n});
        Batch<T> batch{OperandLayouts(layout)};
        batch.fill_random(test_seed(k));
        batch.fill_x(T(0));
        batch.b[system_row_offset(layout, axis, 3, row)] = 0;
        const std::vector<int> info = checked_solve(alg, layout, axis, mode, batch);
        for (std::int64_t s = 0; s < systems; ++s) {
          EXPECT_EQ(info[s], s == 3 ? row + 1 : 0) << "system " << s;
        }
      }
    }
  }
}

// CR never divides by an even row's own b before eliminating into it: b = 0 at an even row of a
// nonsingular system is no breakdown, and the solution is right.
TYPED_TEST(CpuCyclicChecked, CrSolvesAZeroDiagonalAtAnEvenRow) {
  using T = TypeParam;
  const Layout layout = Layout::packed({64, 2});
  Batch<T> batch{OperandLayouts(layout)};
  batch.fill_random(test_seed());
  // Rows 9..11 of system 1 become (a, b, c) = (0.25, 2, 1), (1, 0, 1), (1, 2, 0.25): row 10
  // has b = 0, CR's first level turns it into b = -1, and the block is far from singular.
  const T rows[3][3] = {{0.25, 2, 1}, {1, 0, 1}, {1, 2, 0.25}};
  WideSystem wide;
  for (std::int64_t i = 0; i < 64; ++i) {
    const std::int64_t o = system_row_offset(layout, 0, 1, i);
    if (i >= 9 && i <= 11) {
      batch.a[o] = rows[i - 9][0];
      batch.b[o] = rows[i - 9][1];
      batch.c[o] = rows[i - 9][2];
    }
    wide.a.push_back(i > 0 ? batch.a[o] : 0);
    wide.b.push_back(batch.b[o]);
    wide.c.push_back(i < 63 ? batch.c[o] : 0);
  }
  Batch<T> want = batch;
  Solver<T>(Backend::reference, layout, 0, {.algorithm = Algorithm::reference_dense_lu})
      .solve(want.a.data(), want.b.data(), want.c.data(), want.d.data(), want.x.data());
  const std::vector<int> info = checked_solve(Algorithm::cpu_cr, layout, 0, Mode::separate, batch);
  EXPECT_EQ(info, (std::vector<int>{0, 0}));
  EXPECT_TRUE(outputs_match(layout, batch.x, want.x,
                            std::max(batch.condition, condition_estimate(wide))));
}

// Systems 1 and 3 are strongly dominant (RD's products overflow), 0 and 2 close-valued (they do
// not): RD and CR+RD report 1 and 3 only, and unchecked their x is not finite, never a finite
// wrong answer.
TYPED_TEST(CpuCyclicChecked, RdOverflowIsReportedPerSystem) {
  using T = TypeParam;
  constexpr std::int64_t n = 300, systems = 4;
  const Layout layout = Layout::packed({n, systems});
  for (Algorithm alg : {Algorithm::cpu_rd, Algorithm::cpu_cr_rd}) {
    SCOPED_TRACE(std::string(to_string(alg)));
    Batch<T> batch{OperandLayouts(layout)};
    fill_close_values(batch, 0, test_seed(1));
    make_rd_overflow(batch, 0, 1, test_seed(2));
    make_rd_overflow(batch, 0, 3, test_seed(3));
    batch.fill_x(T(0));
    Batch<T> unchecked = batch;
    const std::vector<int> info = checked_solve(alg, layout, 0, Mode::separate, batch);
    EXPECT_EQ(info[0], 0);
    EXPECT_EQ(info[2], 0);
    EXPECT_GT(info[1], 0);
    EXPECT_GT(info[3], 0);
    EXPECT_LE(info[1], n);
    Solver<T>(Backend::cpu, layout, 0, {.algorithm = alg})
        .solve(unchecked.a.data(), unchecked.b.data(), unchecked.c.data(), unchecked.d.data(),
               unchecked.x.data());
    for (std::int64_t s : {1, 3}) {
      bool any_non_finite = false;
      for (std::int64_t i = 0; i < n; ++i) {
        any_non_finite |= !std::isfinite(unchecked.x[system_row_offset(layout, 0, s, i)]);
      }
      EXPECT_TRUE(any_non_finite) << "system " << s << " came out finite";
    }
  }
}

// A NaN in d spoils the solution without a zero pivot: the last non-finite row is reported.
TYPED_TEST(CpuCyclicChecked, NonFiniteInputIsReported) {
  using T = TypeParam;
  const Layout layout = Layout::packed({50, 3});
  for (Algorithm alg : {Algorithm::cpu_cr, Algorithm::cpu_pcr, Algorithm::cpu_rd,
                        Algorithm::cpu_cr_pcr, Algorithm::cpu_cr_rd}) {
    Batch<T> batch{OperandLayouts(layout)};
    fill_close_values(batch, 0, test_seed());
    batch.fill_x(T(0));
    batch.d[system_row_offset(layout, 0, 2, 20)] = std::numeric_limits<T>::quiet_NaN();
    const std::vector<int> info = checked_solve(alg, layout, 0, Mode::separate, batch);
    EXPECT_EQ(info[0], 0) << to_string(alg);
    EXPECT_EQ(info[1], 0) << to_string(alg);
    EXPECT_GT(info[2], 0) << to_string(alg);
  }
}

// Healthy batches: info 0 everywhere, the solution as without checked mode.
TYPED_TEST(CpuCyclicChecked, HealthySystemsGetZero) {
  using T = TypeParam;
  for (std::int64_t n : {1, 2, 3, 129, 257, 1000}) {
    const Layout layout = Layout::packed({n, 4});
    for (Algorithm alg : {Algorithm::cpu_cr, Algorithm::cpu_pcr, Algorithm::cpu_rd,
                          Algorithm::cpu_cr_pcr, Algorithm::cpu_cr_rd}) {
      const bool rd = alg == Algorithm::cpu_rd || alg == Algorithm::cpu_cr_rd;
      Batch<T> batch{OperandLayouts(layout)};
      if (rd) {
        fill_close_values(batch, 0, test_seed(n));
      } else {
        batch.fill_random(test_seed(n));
      }
      batch.fill_x(T(0));
      Batch<T> plain = batch;
      const std::vector<int> info = checked_solve(alg, layout, 0, Mode::separate, batch);
      EXPECT_EQ(info, std::vector<int>(4, 0)) << to_string(alg) << ", n " << n;
      Solver<T>(Backend::cpu, layout, 0, {.algorithm = alg})
          .solve(plain.a.data(), plain.b.data(), plain.c.data(), plain.d.data(), plain.x.data());
      EXPECT_TRUE(same_bits(plain.x, batch.x)) << to_string(alg) << ", n " << n;
    }
  }
}

}  // namespace
}  // namespace triax::test
