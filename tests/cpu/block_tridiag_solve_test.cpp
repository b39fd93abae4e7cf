// Block tridiagonal solves on the host backends against the dense long double oracle (the whole
// nM x nM system, LU with partial pivoting): every M = 1..8 (and the generic path beyond), every
// axis of 1-D to 4-D grids, the three named layouts with and without ghost layers, d and x in
// different layouts, every output mode, float and double, dominant and non-dominant systems;
// checked mode's info for singular pivot blocks and non-finite data.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "support/block_cases.hpp"

namespace triax::test {
namespace {

/// One solve on each host backend against the oracle (computed once for all of them), checked
/// by BlockCase::check. Returns whether some system was not row diagonally dominant.
template <class T>
bool expect_solves(const BlockGeometry& g, BlockKind kind, Mode mode, std::uint64_t seed) {
  SCOPED_TRACE("m " + std::to_string(g.m) + ", grid rank " + std::to_string(g.grid.size()) +
               ", axis " + std::to_string(g.axis) + ", " + to_string(kind) + ", " +
               to_string(mode) + ", seed " + std::to_string(seed));
  BlockCase<T> solve_case(g, kind, mode, seed);
  for (Backend backend : {Backend::reference, Backend::cpu}) {
    SCOPED_TRACE(triax::to_string(backend));
    BlockBatch<T> batch = solve_case.before;
    BlockSolver<T> solver(backend, g.m, g.layouts, g.axis);
    run_block_mode(solver, batch, mode);
    if (!solve_case.check(batch)) break;
  }
  return solve_case.some_not_dominant;
}

template <class T>
class BlockSolve : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(BlockSolve, ValueTypes);

TYPED_TEST(BlockSolve, EveryBlockSizeAxisLayoutAndModeMatchesDenseOracle) {
  using T = TypeParam;
  std::uint64_t k = 0;
  for (int m = 1; m <= 8; ++m) {
    for (const auto& grid : block_test_grids) {
      for (int axis = 0; axis < static_cast<int>(grid.size()); ++axis) {
        for (Storage s : storages) {
          SCOPED_TRACE(to_string(s));
          const bool ghost = (m + axis + static_cast<int>(s)) % 2 == 0;
          const BlockGeometry g = geometry(s, m, grid, axis, ghost);
          for (Mode mode : {Mode::in_place, Mode::separate, Mode::increment}) {
            const BlockKind kind = (k % 2) ? BlockKind::factored : BlockKind::dominant;
            const bool not_dominant = expect_solves<T>(g, kind, mode, test_seed(k));
            // The factored systems must really be outside the dominant class (m > 2: smaller
            // pivot blocks of the construction can come out dominant by chance).
            if (kind == BlockKind::factored && m > 2 && g.n() > 1) {
              EXPECT_TRUE(not_dominant) << "factored systems came out row dominant";
            }
            if (::testing::Test::HasFailure()) return;
            ++k;
          }
        }
      }
    }
  }
}

TYPED_TEST(BlockSolve, LargerBlocksTakeTheGenericPath) {
  using T = TypeParam;
  std::uint64_t k = 0;
  for (int m : {9, 12}) {
    for (Storage s : storages) {
      const BlockGeometry g = geometry(s, m, {3, 4}, 1, true);
      for (BlockKind kind : {BlockKind::dominant, BlockKind::factored}) {
        expect_solves<T>(g, kind, Mode::separate, test_seed(k++));
      }
    }
  }
}

TYPED_TEST(BlockSolve, LongSystemsAndManySystems) {
  using T = TypeParam;
  // 40 block rows (the recurrences run long); 19 systems (two full groups of lanes and a part).
  for (BlockKind kind : {BlockKind::dominant, BlockKind::factored}) {
    expect_solves<T>(geometry(Storage::array_of_blocks, 4, {40, 19}, 0, false), kind,
                     Mode::in_place, test_seed(1));
    expect_solves<T>(geometry(Storage::interleaved, 3, {19, 40}, 1, true), kind, Mode::separate,
                     test_seed(2));
  }
}

TYPED_TEST(BlockSolve, SingleBlockRowIsOneDenseSolve) {
  using T = TypeParam;
  for (int m : {1, 5, 8}) {
    expect_solves<T>(geometry(Storage::structure_of_arrays, m, {1, 7}, 0, true),
                     BlockKind::dominant, Mode::separate, test_seed(m));
  }
}

// One set of blocks for every system (stride 0 across the other grid dimension), each system its
// own right-hand side: the coefficients are read, never written, so broadcasting them is valid.
TYPED_TEST(BlockSolve, BroadcastBlocksForManyRightHandSides) {
  using T = TypeParam;
  for (int m : {2, 5}) {
    for (int axis = 0; axis < 2; ++axis) {
      const std::int64_t n = 6, systems = 11;
      const std::vector<std::int64_t> grid =
          axis == 0 ? std::vector<std::int64_t>{n, systems} : std::vector<std::int64_t>{systems, n};
      const std::int64_t mm = std::int64_t(m) * m;
      const Layout blocks = axis == 0 ? Layout::strided({m, m, n, systems}, {m, 1, mm, 0})
                                      : Layout::strided({m, m, systems, n}, {m, 1, 0, mm});
      BlockLayouts l = BlockLayouts::array_of_blocks(m, grid);
      l.a = l.b = l.c = blocks;
      for (BlockKind kind : {BlockKind::dominant, BlockKind::factored}) {
        expect_solves<T>({m, grid, axis, l}, kind, Mode::separate, test_seed(m + axis));
      }
    }
  }
}

TYPED_TEST(BlockSolve, EmptyBatchesWriteNothing) {
  using T = TypeParam;
  for (const std::vector<std::int64_t>& grid :
       {std::vector<std::int64_t>{0, 3}, std::vector<std::int64_t>{4, 0}}) {
    const BlockLayouts l = BlockLayouts::array_of_blocks(3, grid);
    BlockSolver<T> solver(Backend::cpu, 3, l, 0, {.checked = true});
    std::vector<int> info(std::max<std::int64_t>(solver.system_count(), 1), -1);
    // Null pointers are fine when there is nothing to solve.
    solver.solve(nullptr, nullptr, nullptr, nullptr, nullptr, info.data());
    if (solver.system_count() > 0) {
      EXPECT_EQ(info[0], 0) << "a system of no rows is solved";
    } else {
      EXPECT_EQ(info[0], -1);
    }
  }
}

// ---- checked mode ----

template <class T>
class BlockChecked : public ::testing::Test {};
TYPED_TEST_SUITE(BlockChecked, ValueTypes);

TYPED_TEST(BlockChecked, SingularPivotBlocksAndNonFiniteDataAreReportedAtTheirRow) {
  using T = TypeParam;
  constexpr int m = 3;
  for (Storage s : storages) {
    for (int axis = 0; axis < 2; ++axis) {
      const FaultyBlocks<T> faulty(s, m, axis);
      const BlockGeometry& g = faulty.batch.g;
      for (Backend backend : {Backend::reference, Backend::cpu}) {
        for (Mode mode : {Mode::in_place, Mode::separate, Mode::increment}) {
          SCOPED_TRACE(std::string(triax::to_string(backend)) + ", " + to_string(s) + ", axis " +
                       std::to_string(axis) + ", " + to_string(mode));
          BlockBatch<T> batch = faulty.batch;
          BlockSolver<T> solver(backend, m, g.layouts, axis, {.checked = true});
          std::vector<int> info(solver.system_count(), -1);
          run_block_mode(solver, batch, mode, info.data());
          faulty.expect_info(info);
          BlockBatch<T> unchecked = faulty.batch;
          BlockSolver<T> plain(backend, m, g.layouts, axis);
          run_block_mode(plain, unchecked, mode);
          faulty.expect_breakdowns_visible(unchecked, mode);
        }
      }
    }
  }
}

// The cpu backend does not pivot inside a pivot block: a zero leading entry of a non-singular
// block is a breakdown there (reported), while the reference backend pivots past it.
TYPED_TEST(BlockChecked, CpuReportsAZeroLeadingPivotThatTheReferencePivotsPast) {
  using T = TypeParam;
  constexpr int m = 4;
  const BlockGeometry g = geometry(Storage::array_of_blocks, m, {6, 5}, 0, false);
  BlockBatch<T> batch(g);
  batch.fill(BlockKind::dominant, test_seed());
  // System 2, block row 0: equations 0 and 1 exchanged (rows of B[0] and C[0], components of
  // d[0]), then the new B[0](0, 0), an off-diagonal entry of the dominant block before the
  // exchange, set to 0: the block stays non-singular but its LU needs a row exchange.
  for (int c = 0; c < m; ++c) {
    std::swap(batch.B(2, 0, 0, c), batch.B(2, 0, 1, c));
    std::swap(batch.C(2, 0, 0, c), batch.C(2, 0, 1, c));
  }
  std::swap(batch.D(2, 0, 0), batch.D(2, 0, 1));
  batch.B(2, 0, 0, 0) = 0;
  const DenseAnswer want = dense_answer(batch, 2);
  for (Backend backend : {Backend::reference, Backend::cpu}) {
    BlockBatch<T> b = batch;
    BlockSolver<T> solver(backend, m, g.layouts, 0, {.checked = true});
    std::vector<int> info(solver.system_count(), -1);
    solver.solve(b.a.data(), b.b.data(), b.c.data(), b.d.data(), b.x.data(), info.data());
    if (backend == Backend::reference) {
      EXPECT_EQ(info[2], 0);
      double scale = 0;
      for (Wide v : want.x) scale = std::max(scale, std::abs(double(v)));
      for (int r = 0; r < m; ++r) {
        EXPECT_NEAR(double(b.X(2, 0, r)), double(want.x[r]),
                    block_tolerance<T>(want.condition, scale, m));
      }
    } else {
      EXPECT_EQ(info[2], 1) << "cpu_block_thomas does not pivot: B[0](0, 0) = 0 breaks down";
    }
    for (std::int64_t s = 0; s < solver.system_count(); ++s) {
      if (s != 2) EXPECT_EQ(info[s], 0) << "system " << s;
    }
  }
}

}  // namespace
}  // namespace triax::test
