// The exact methods (allgather, gather-scatter, PCR, and automatic) against the single-rank
// solve of the same global problem: 1-D to 3-D arrays on Cartesian grids of the world's ranks,
// every axis (split or not), uneven blocks with ghost layers, in place, into x and increment.
#include <gtest/gtest.h>

#include <string>

#include "grid_solve.hpp"

namespace triax::test::dist {
namespace {

constexpr mpi::Method exact_methods[] = {mpi::Method::allgather, mpi::Method::gather_scatter,
                                         mpi::Method::pcr, mpi::Method::automatic};

mpi::Options one_thread() {
  mpi::Options options;
  options.num_threads = 1;
  return options;
}

std::string label(mpi::Method method, int axis, Mode mode) {
  return std::string(mpi::to_string(method)) + ", axis " + std::to_string(axis) + ", mode " +
         std::to_string(static_cast<int>(mode));
}

template <class T>
void expect_exact(const std::vector<std::int64_t>& global, const std::vector<bool>& splittable,
                  std::int64_t ghost, std::initializer_list<Mode> modes,
                  const mpi::Options& options = one_thread()) {
  for (int axis = 0; axis < static_cast<int>(global.size()); ++axis) {
    const GlobalProblem<T> p(global, axis, 1234 + axis);
    for (mpi::Method method : exact_methods) {
      for (Mode mode : modes) {
        SCOPED_TRACE(label(method, axis, mode));
        mpi::Options with_method = options;
        with_method.method = method;
        const GridSolve<T> got = solve_on_grid(p, splittable, mode, ghost, with_method);
        EXPECT_LE(got.error, p.allowed_error()) << "single-rank error " << p.single_rank_error;
        EXPECT_TRUE(got.ghosts_clean);
      }
    }
  }
}

TEST(DistExact, OneDimensionalEveryMode) {
  expect_exact<double>({41}, {true}, 1, {Mode::in_place, Mode::separate, Mode::increment});
}

TEST(DistExact, OneDimensionalFloat) { expect_exact<float>({29}, {true}, 2, {Mode::separate}); }

TEST(DistExact, TwoDimensionalSplitBothWays) {
  expect_exact<double>({13, 17}, {true, true}, 1, {Mode::separate, Mode::increment});
}

TEST(DistExact, TwoDimensionalSplitAlongOneDimensionOnly) {
  // Axis 0 is split; along axis 1 each system lies on one rank (P = 1 along it).
  expect_exact<double>({19, 6}, {true, false}, 0, {Mode::in_place});
}

TEST(DistExact, ThreeDimensionalTwoThreadsPerRank) {
  mpi::Options options;
  options.num_threads = 2;
  expect_exact<double>({10, 11, 12}, {true, true, true}, 1, {Mode::separate}, options);
}

TEST(DistExact, ThreeDimensionalFloatInPlace) {
  expect_exact<float>({12, 10, 11}, {true, true, true}, 1, {Mode::in_place});
}

TEST(DistExact, SystemsInBatches) {
  // 3 batches of 13 or 17 systems (uneven), and more batches than systems (one system each).
  for (int batches : {3, 1000}) {
    SCOPED_TRACE("batches " + std::to_string(batches));
    mpi::Options options = one_thread();
    options.batches = batches;
    expect_exact<double>({13, 17}, {true, true}, 1, {Mode::increment}, options);
  }
}

TEST(DistExact, ShortestPieces) {
  // Pieces of two and three rows, split evenly over a line of the world; on one rank also a
  // system of one row.
  const int ranks = world_size();
  std::vector<std::int64_t> lengths = {2 * ranks, 2 * ranks + 1, 3 * ranks};
  if (ranks == 1) lengths.push_back(1);
  for (std::int64_t n : lengths) {
    const GlobalProblem<double> p({n, 3}, 0, 99 + n);
    const std::int64_t lo = n * world_rank() / ranks, hi = n * (world_rank() + 1) / ranks;
    const Block block{{lo, 0}, {hi - lo, 3}};
    for (mpi::Method method : exact_methods) {
      SCOPED_TRACE(label(method, 0, Mode::separate) + ", n " + std::to_string(n));
      LocalBuffers<double> buf(p, block, 1);
      mpi::Options options;
      options.method = method;
      mpi::Solver<double> solver(mpi::Decomposition::line(MPI_COMM_WORLD), buf.layout, 0, options);
      solver.solve(buf.a.data(), buf.b.data(), buf.c.data(), buf.d.data(), buf.x.data());
      double error = 0;
      for_each_element(p.extents, block, buf.layout, [&](std::int64_t o, std::int64_t g) {
        const double e = std::abs(buf.x[o] - p.reference[g]) / p.scale;
        error = std::isnan(e) ? INFINITY : std::max(error, e);
      });
      EXPECT_LE(world_max(error), p.allowed_error());
    }
  }
}

TEST(DistExact, CheckedModeReportsTheSameInfoOnEveryRank) {
  // A NaN in d at one global row of one system spoils that system only: info names its first
  // row (every row of it comes out NaN) on every rank; the other systems get 0.
  const int ranks = world_size();
  const std::int64_t n = 4 * ranks + 1, systems = 5;
  const GlobalProblem<double> p({n, systems}, 0, 5);
  const std::int64_t lo = piece_start(n, ranks, world_rank()),
                     hi = piece_start(n, ranks, world_rank() + 1);
  const Block block{{lo, 0}, {hi - lo, systems}};
  LocalBuffers<double> buf(p, block, 0);
  constexpr std::int64_t spoiled_system = 3, spoiled_row = 2;
  if (spoiled_row >= lo && spoiled_row < hi) {
    buf.d[buf.layout.offset_of(std::vector<std::int64_t>{spoiled_row - lo, spoiled_system})] =
        std::numeric_limits<double>::quiet_NaN();
  }
  for (mpi::Method method :
       {mpi::Method::allgather, mpi::Method::pcr, mpi::Method::gather_scatter}) {
    SCOPED_TRACE(mpi::to_string(method));
    mpi::Options options;
    options.method = method;
    options.checked = true;
    mpi::Solver<double> solver(mpi::Decomposition::line(MPI_COMM_WORLD), buf.layout, 0, options);
    std::vector<int> info(systems, -7);
    solver.solve(buf.a.data(), buf.b.data(), buf.c.data(), buf.d.data(), buf.x.data(), info.data());
    for (std::int64_t s = 0; s < systems; ++s)
      EXPECT_EQ(info[s], s == spoiled_system ? 1 : 0) << "system " << s;
  }
}

}  // namespace
}  // namespace triax::test::dist
