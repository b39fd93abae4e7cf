// The cpu backend's register path (block_thomas_regs.hpp: M = 1..8 in the AVX-512 copy and in
// the AVX2 copy for float; the other copies run the same cases on the lane scratch kernel): its
// dense loads transpose 8 systems' contiguous blocks in registers (array of blocks and interleaved,
// d and x with component stride 1) and fall back to element-wise loads for the others (structure of
// arrays), so every storage is run, along both axes of a grid whose system count leaves a partial
// group of lanes (19 = 8 + 8 + 3) and with ghost layers that must stay untouched, in every output
// mode, against the dense long double oracle; and checked mode reports each spoilt system at its
// row for every M of the path. The suite runs once per kernel copy (tests/CMakeLists.txt:
// TRIAX_CPU_ISA=baseline, avx2, and the default pick).
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "support/block_cases.hpp"

namespace triax::test {
namespace {

template <class T>
class BlockRegisterPath : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(BlockRegisterPath, ValueTypes);

TYPED_TEST(BlockRegisterPath, EveryStorageAxisAndModeWithAPartialLaneGroup) {
  using T = TypeParam;
  std::uint64_t k = 100;
  for (int m = 1; m <= 8; ++m) {
    for (Storage s : storages) {
      for (int axis = 0; axis < 2; ++axis) {
        const std::vector<std::int64_t> grid =
            axis == 0 ? std::vector<std::int64_t>{7, 19} : std::vector<std::int64_t>{19, 7};
        for (bool ghost : {false, true}) {
          const BlockGeometry g = geometry(s, m, grid, axis, ghost);
          for (Mode mode : {Mode::in_place, Mode::separate, Mode::increment}) {
            const BlockKind kind = (k % 2) ? BlockKind::factored : BlockKind::dominant;
            SCOPED_TRACE("m " + std::to_string(m) + ", " + to_string(s) + ", axis " +
                         std::to_string(axis) + (ghost ? ", ghost layers" : "") + ", " +
                         to_string(mode) + ", " + to_string(kind));
            BlockCase<T> solve_case(g, kind, mode, test_seed(k++));
            BlockBatch<T> batch = solve_case.before;
            BlockSolver<T> solver(Backend::cpu, m, g.layouts, axis);
            run_block_mode(solver, batch, mode);
            if (!solve_case.check(batch)) return;
          }
        }
      }
    }
  }
}

// The separate output starts as NaN: every component must be written by the solve.
TYPED_TEST(BlockRegisterPath, SeparateOutputPoisonedWithNanIsFullyWritten) {
  using T = TypeParam;
  for (int m : {2, 3, 4, 5, 8}) {
    for (Storage s : storages) {
      SCOPED_TRACE("m " + std::to_string(m) + ", " + to_string(s));
      const BlockGeometry g = geometry(s, m, {9, 13}, 0, true);
      BlockCase<T> solve_case(g, BlockKind::dominant, Mode::separate, test_seed(m));
      BlockBatch<T> batch = solve_case.before;
      for_each_offset(g.layouts.x,
                      [&](std::int64_t o) { batch.x[o] = std::numeric_limits<T>::quiet_NaN(); });
      BlockSolver<T> solver(Backend::cpu, m, g.layouts, 0);
      run_block_mode(solver, batch, Mode::separate);
      if (!solve_case.check(batch)) return;
    }
  }
}

TYPED_TEST(BlockRegisterPath, CheckedModeReportsEachSpoiltSystemAtItsRow) {
  using T = TypeParam;
  for (int m = 1; m <= 8; ++m) {
    for (Storage s : storages) {
      for (int axis = 0; axis < 2; ++axis) {
        const FaultyBlocks<T> faulty(s, m, axis);
        const BlockGeometry& g = faulty.batch.g;
        for (Mode mode : {Mode::in_place, Mode::separate}) {
          SCOPED_TRACE("m " + std::to_string(m) + ", " + to_string(s) + ", axis " +
                       std::to_string(axis) + ", " + to_string(mode));
          BlockBatch<T> batch = faulty.batch;
          BlockSolver<T> solver(Backend::cpu, m, g.layouts, axis, {.checked = true});
          std::vector<int> info(solver.system_count(), -1);
          run_block_mode(solver, batch, mode, info.data());
          faulty.expect_info(info);
          BlockBatch<T> unchecked = faulty.batch;
          BlockSolver<T> plain(Backend::cpu, m, g.layouts, axis);
          run_block_mode(plain, unchecked, mode);
          faulty.expect_breakdowns_visible(unchecked, mode);
        }
      }
    }
  }
}

}  // namespace
}  // namespace triax::test
