// cpu_thomas_partitioned: every chunk count against the reference backend (lengths where chunks
// of two rows meet, odd lengths, uneven chunks), the automatic pick for few long systems, and
// checked mode reporting the row where a planted fault is, whether it falls inside a chunk, on
// a chunk's first row or on an interface row.
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
class PartitionedThomas : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(PartitionedThomas, ValueTypes);

TYPED_TEST(PartitionedThomas, EveryChunkCountMatchesReference) {
  using T = TypeParam;
  const auto run = host_runner<T>(Backend::cpu, Algorithm::cpu_thomas_partitioned);
  int k = 0;
  for (std::int64_t n : {1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 33, 100, 257, 1000, 4099}) {
    for (std::int64_t chunks : {1, 2, 3, 4, 7, 64, 1 << 20}) {
      if (chunks > 1 && chunks > n / 2 + 1) continue;  // the plan caps it at n / 2 anyway
      for (int axis = 0; axis < 2; ++axis) {
        SCOPED_TRACE("n " + std::to_string(n) + ", chunks " + std::to_string(chunks));
        const ScopedEnv forced("TRIAX_CPU_PARTITION_CHUNKS", std::to_string(chunks));
        ++k;
        expect_matches_reference<T>(OperandLayouts(systems_along(axis, n, 3)), axis,
                                    all_modes[k % 3], test_seed(k), run);
      }
    }
  }
}

// The chunk-lane variant's middle rows in vector blocks (partitioned_thomas.hpp) and in the
// scalar lane loops, each against the reference: interiors shorter than a block, of whole blocks
// and with a remainder, every mode, both precisions whatever the default.
TYPED_TEST(PartitionedThomas, VectorBlocksAndLaneLoopsMatchReference) {
  using T = TypeParam;
  const auto run = host_runner<T>(Backend::cpu, Algorithm::cpu_thomas_partitioned);
  int k = 200;
  for (const char* vector : {"1", "0"}) {
    const ScopedEnv switched("TRIAX_CPU_PARTITION_VECTOR", vector);
    for (std::int64_t n : {40, 100, 257, 1000, 4099}) {
      for (std::int64_t chunks : {2, 3, 9, 17}) {
        if (chunks > n / 2) continue;
        SCOPED_TRACE(std::string("vector ") + vector + ", n " + std::to_string(n) + ", chunks " +
                     std::to_string(chunks));
        const ScopedEnv forced("TRIAX_CPU_PARTITION_CHUNKS", std::to_string(chunks));
        ++k;
        expect_matches_reference<T>(OperandLayouts(systems_along(0, n, 5)), 0, all_modes[k % 3],
                                    test_seed(k), run);
      }
    }
  }
}

TYPED_TEST(PartitionedThomas, PaddedAndBroadcastOperands) {
  using T = TypeParam;
  const auto run = host_runner<T>(Backend::cpu, Algorithm::cpu_thomas_partitioned);
  const auto pd = Layout::padded({301, 5}, {305, 7}, {2, 1});
  const auto px = Layout::padded({301, 5}, {303, 6}, {1, 0});
  const auto coef = Layout::strided({301, 5}, {1, 0});
  const ScopedEnv forced("TRIAX_CPU_PARTITION_CHUNKS", std::to_string(6));
  int k = 100;
  for (Mode mode : all_modes) {
    expect_matches_reference<T>(OperandLayouts(pd, pd, pd, pd, px), 0, mode, test_seed(++k), run);
    expect_matches_reference<T>(OperandLayouts(coef, coef, coef, pd, px), 0, mode, test_seed(++k),
                                run);
  }
}

TYPED_TEST(PartitionedThomas, AutomaticPicksItForFewLongSystems) {
  using T = TypeParam;
  const Options four{.num_threads = 4};
  EXPECT_EQ(Solver<T>(Backend::cpu, Layout::packed({100000}), 0, four).algorithm(),
            Algorithm::cpu_thomas_partitioned);
  EXPECT_EQ(Solver<T>(Backend::cpu, Layout::packed({50000, 3}), 0, four).algorithm(),
            Algorithm::cpu_thomas_partitioned);
  // Enough systems for every thread, systems too short to cut, or a single thread (rows not
  // contiguous: strip_partitioned_test.cpp).
  EXPECT_NE(Solver<T>(Backend::cpu, Layout::packed({100000, 256}), 0, four).algorithm(),
            Algorithm::cpu_thomas_partitioned);
  EXPECT_EQ(Solver<T>(Backend::cpu, Layout::packed({4000}), 0, four).algorithm(),
            Algorithm::cpu_thomas_partitioned);
  EXPECT_NE(Solver<T>(Backend::cpu, Layout::packed({2000}), 0, four).algorithm(),
            Algorithm::cpu_thomas_partitioned);
  EXPECT_NE(Solver<T>(Backend::cpu, Layout::packed({100000}), 0, {.num_threads = 1}).algorithm(),
            Algorithm::cpu_thomas_partitioned);
}

// A fault at one row of one system; the chunks of 1000 rows in 5 are 200 rows each: rows 199,
// 399, ... are interface rows, 200, 400, ... the first rows of chunks.
struct Planted {
  std::int64_t system, row;
  enum Kind { nan_d, inf_d, nan_b, zero_row, nan_a, nan_c } kind;
  int info;
};

TYPED_TEST(PartitionedThomas, CheckedModeReportsWhereTheFaultIs) {
  using T = TypeParam;
  constexpr std::int64_t n = 1000, systems = 12;
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  const Planted faults[] = {
      {0, 0, Planted::nan_d, 1},      {1, 57, Planted::nan_d, 58},
      {2, 199, Planted::nan_d, 200},  // interface row
      {3, 200, Planted::inf_d, 201},  // first row of a chunk
      {4, 999, Planted::nan_b, 1000}, {5, 399, Planted::zero_row, 400},
      {6, 650, Planted::zero_row, 651},
      {7, 400, Planted::nan_a, 401},  // a of a chunk's first row: the pivot there is NaN
      {8, 598, Planted::nan_c, 599},  // c of the last row before an interface: the upward sweep
  };
  const ScopedEnv forced("TRIAX_CPU_PARTITION_CHUNKS", std::to_string(5));
  for (int axis = 0; axis < 2; ++axis) {
    const Layout layout = systems_along(axis, n, systems);
    Batch<T> batch{OperandLayouts(layout)};
    batch.fill_random(test_seed(axis + 7));
    batch.fill_x(T(0));
    for (const Planted& f : faults) {
      const std::int64_t o = system_row_offset(layout, axis, f.system, f.row);
      switch (f.kind) {
        case Planted::nan_d: batch.d[o] = nan; break;
        case Planted::inf_d: batch.d[o] = inf; break;
        case Planted::nan_b: batch.b[o] = nan; break;
        case Planted::zero_row: batch.a[o] = batch.b[o] = batch.c[o] = T(0); break;
        case Planted::nan_a: batch.a[o] = nan; break;
        case Planted::nan_c: batch.c[o] = nan; break;
      }
    }
    for (bool checked : {true, false}) {
      for (Mode mode : all_modes) {
        SCOPED_TRACE(std::string("axis ") + std::to_string(axis) + ", mode " + to_string(mode) +
                     (checked ? ", checked" : ""));
        Batch<T> work = batch;
        Solver<T> s(Backend::cpu, layout, axis,
                    {.algorithm = Algorithm::cpu_thomas_partitioned, .checked = checked});
        std::vector<int> info(systems, -1);
        run_mode(s, work, mode, checked ? info.data() : nullptr);
        const std::vector<T>& x = mode == Mode::in_place ? work.d : work.x;
        for (std::int64_t j = 0; j < systems; ++j) {
          int want = 0;
          for (const Planted& f : faults) want = f.system == j ? f.info : want;
          if (checked) EXPECT_EQ(info[j], want) << "system " << j;
          bool finite = true;
          for (std::int64_t i = 0; i < n; ++i) {
            finite = finite && std::isfinite(x[system_row_offset(layout, axis, j, i)]);
          }
          EXPECT_EQ(finite, want == 0) << "system " << j << ": a breakdown must show in x";
        }
      }
    }
  }
}

}  // namespace
}  // namespace triax::test
