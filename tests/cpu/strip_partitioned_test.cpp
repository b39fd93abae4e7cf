// cpu_thomas_partitioned on rows that are not contiguous (src/cpu/scalar/strip_partitioned.hpp:
// lanes are neighbouring systems, a task a group of chunks of a strip): against the reference
// backend for 1, 2, 3, 5, 33 and 40 systems (one strip, a strip and a bit) along axes 1 and 2,
// odd lengths and every chunk count, padded operands with ghost layers, broadcast coefficients,
// every mode; checked mode reporting the faulty row; the automatic pick and its switch.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "cpu/host_solvers.hpp"
#include "support/scoped_env.hpp"

namespace triax::test {
namespace {

template <class T>
class StripPartitioned : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(StripPartitioned, ValueTypes);

/// `systems` systems of n rows along `axis` (1 or 2) of a packed 3-D layout whose other
/// dimensions are e0 (the lanes) and systems / e0.
Layout along(int axis, std::int64_t e0, std::int64_t other, std::int64_t n) {
  return axis == 1 ? Layout::packed({e0, n, other}) : Layout::packed({e0, other, n});
}

TYPED_TEST(StripPartitioned, EveryChunkCountMatchesReference) {
  using T = TypeParam;
  const auto run = host_runner<T>(Backend::cpu, Algorithm::cpu_thomas_partitioned);
  int k = 0;
  for (std::int64_t e0 : {1, 2, 3, 5, 33}) {
    for (std::int64_t n : {2, 3, 7, 64, 255, 1001}) {
      for (std::int64_t chunks : {1, 2, 3, 5, 9, 64}) {
        if (chunks > 1 && chunks > n / 2) continue;  // the plan caps it at n / 2 anyway
        const int axis = 1 + k % 2;
        const std::int64_t other = 1 + k % 3;
        SCOPED_TRACE("e0 " + std::to_string(e0) + ", n " + std::to_string(n) + ", chunks " +
                     std::to_string(chunks) + ", other " + std::to_string(other));
        const ScopedEnv forced("TRIAX_CPU_PARTITION_CHUNKS", std::to_string(chunks));
        ++k;
        expect_matches_reference<T>(OperandLayouts(along(axis, e0, other, n)), axis,
                                    all_modes[k % 3], test_seed(300 + k), run);
      }
    }
  }
  EXPECT_GT(k, 100);
}

TYPED_TEST(StripPartitioned, GhostLayersAndBroadcastCoefficients) {
  using T = TypeParam;
  const auto run = host_runner<T>(Backend::cpu, Algorithm::cpu_thomas_partitioned);
  // Three systems of 301 rows along axis 1, inside ghost layers of different widths per operand.
  const auto pd = Layout::padded({3, 301}, {6, 305}, {1, 2});
  const auto px = Layout::padded({3, 301}, {5, 304}, {2, 1});
  const auto coef = Layout::strided({3, 301}, {0, 1});   // one matrix for every system
  const auto row = Layout::strided({3, 301}, {1, 0});    // one row for every row
  const ScopedEnv forced("TRIAX_CPU_PARTITION_CHUNKS", "7");
  int k = 400;
  for (Mode mode : all_modes) {
    expect_matches_reference<T>(OperandLayouts(pd, pd, pd, pd, px), 1, mode, test_seed(++k), run);
    expect_matches_reference<T>(OperandLayouts(coef, coef, coef, pd, px), 1, mode, test_seed(++k),
                                run);
    expect_matches_reference<T>(OperandLayouts(row, pd, row, pd, px), 1, mode, test_seed(++k), run);
  }
}

TYPED_TEST(StripPartitioned, AutomaticPickForFewSystemsAlongLaterAxes) {
  using T = TypeParam;
  const Options four{.num_threads = 4};
  EXPECT_EQ(Solver<T>(Backend::cpu, Layout::packed({3, 50000}), 1, four).algorithm(),
            Algorithm::cpu_thomas_partitioned);
  EXPECT_EQ(Solver<T>(Backend::cpu, Layout::packed({2, 3, 8192}), 2, four).algorithm(),
            Algorithm::cpu_thomas_partitioned);
  // Enough strips for the threads, systems too short, a single thread, or the switch off.
  EXPECT_NE(Solver<T>(Backend::cpu, Layout::packed({256, 8192}), 1, four).algorithm(),
            Algorithm::cpu_thomas_partitioned);
  EXPECT_NE(Solver<T>(Backend::cpu, Layout::packed({3, 300}), 1, four).algorithm(),
            Algorithm::cpu_thomas_partitioned);
  EXPECT_NE(Solver<T>(Backend::cpu, Layout::packed({3, 50000}), 1, {.num_threads = 1}).algorithm(),
            Algorithm::cpu_thomas_partitioned);
  const ScopedEnv off("TRIAX_CPU_STRIP_PARTITION", "0");
  EXPECT_EQ(Solver<T>(Backend::cpu, Layout::packed({3, 50000}), 1, four).algorithm(),
            Algorithm::cpu_thomas);
}

// A fault in one row of one system; 1000 rows in 5 chunks of 200: rows 199, 399, ... are
// interface rows, 200, 400, ... the first rows of chunks (chunks 0-3 run as one group of lanes).
struct Planted {
  std::int64_t system, row;
  enum Kind { nan_d, inf_d, zero_row, nan_a, nan_c, zero_b } kind;
  int info;
};

TYPED_TEST(StripPartitioned, CheckedModeReportsTheFaultyRow) {
  using T = TypeParam;
  constexpr std::int64_t n = 1000;
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  const Planted faults[] = {
      {0, 599, Planted::zero_row, 600},  // interface row
      {1, 57, Planted::nan_d, 58},
      {3, 800, Planted::inf_d, 801},     // first row of the last chunk
      {4, 0, Planted::zero_b, 1},        // the very first pivot
      {5, 400, Planted::nan_a, 401},     // a of a chunk's first row
      {6, 598, Planted::nan_c, 599},     // c before an interface: the up sweep meets it first
      {7, 999, Planted::zero_row, 1000},
  };
  const ScopedEnv forced("TRIAX_CPU_PARTITION_CHUNKS", "5");
  for (std::int64_t e0 : {1, 2, 3, 9}) {
    for (int axis = 1; axis <= 2; ++axis) {
      const std::int64_t other = axis == 1 ? 1 : 2;
      const Layout layout = along(axis, e0, other, n);
      const std::int64_t systems = e0 * other;
      Batch<T> batch{OperandLayouts(layout)};
      batch.fill_random(test_seed(500 + e0 + axis));
      batch.fill_x(std::numeric_limits<T>::quiet_NaN());
      // The system index of system_row_offset walks the non-axis dimensions, e0 fastest.
      for (const Planted& f : faults) {
        if (f.system >= systems) continue;
        const std::int64_t o = system_row_offset(layout, axis, f.system, f.row);
        switch (f.kind) {
          case Planted::nan_d: batch.d[o] = nan; break;
          case Planted::inf_d: batch.d[o] = inf; break;
          case Planted::zero_row: batch.a[o] = batch.b[o] = batch.c[o] = T(0); break;
          case Planted::nan_a: batch.a[o] = nan; break;
          case Planted::nan_c: batch.c[o] = nan; break;
          case Planted::zero_b: batch.b[o] = T(0); break;
        }
      }
      for (Mode mode : all_modes) {
        SCOPED_TRACE("e0 " + std::to_string(e0) + ", axis " + std::to_string(axis) + ", mode " +
                     to_string(mode));
        Batch<T> work = batch;
        if (mode == Mode::increment) work.fill_x(T(0));
        Solver<T> s(Backend::cpu, layout, axis,
                    {.algorithm = Algorithm::cpu_thomas_partitioned, .checked = true});
        std::vector<int> info(systems, -1);
        run_mode(s, work, mode, info.data());
        const std::vector<T>& x = mode == Mode::in_place ? work.d : work.x;
        for (std::int64_t j = 0; j < systems; ++j) {
          int want = 0;
          for (const Planted& f : faults) want = f.system == j ? f.info : want;
          EXPECT_EQ(info[j], want) << "system " << j;
          bool finite = true;
          for (std::int64_t i = 0; i < n; ++i) {
            finite = finite && std::isfinite(x[system_row_offset(layout, axis, j, i)]);
          }
          EXPECT_EQ(finite, want == 0) << "system " << j << ": x written, a breakdown shown";
        }
      }
    }
  }
}

}  // namespace
}  // namespace triax::test
