// One reduced row per rank (Options::reduced_rows = one_per_rank, paper 003's Algorithm 6 form)
// against the single-rank solve of the same global problem: PCR equal to it to rounding on 1-D to
// 3-D grids of the world's ranks, every axis (split or not), uneven blocks with ghost layers, in
// place, into x and increment, batches, the shortest pieces, checked mode; Jacobi within its
// tolerance and reporting non-convergence; the combinations it refuses.
#include <gtest/gtest.h>

#include <string>

#include "grid_solve.hpp"

namespace triax::test::dist {
namespace {

mpi::Options one_row(mpi::Method method = mpi::Method::pcr) {
  mpi::Options options;
  options.num_threads = 1;
  options.method = method;
  options.reduced_rows = mpi::ReducedRows::one_per_rank;
  return options;
}

/// solve_on_grid, checked to have run the one-row form; infinite where a ghost was written.
template <class T>
double solve_on_grid_one_row(const GlobalProblem<T>& p, const std::vector<bool>& splittable,
                             Mode mode, std::int64_t ghost, const mpi::Options& options) {
  const GridSolve<T> got = solve_on_grid(p, splittable, mode, ghost, options);
  EXPECT_EQ(got.reduced_rows, mpi::ReducedRows::one_per_rank);
  EXPECT_EQ(got.method,
            options.method == mpi::Method::jacobi ? mpi::Method::jacobi : mpi::Method::pcr);
  return got.ghosts_clean ? got.error : INFINITY;
}

template <class T>
void expect_exact(const std::vector<std::int64_t>& global, const std::vector<bool>& splittable,
                  std::int64_t ghost, std::initializer_list<Mode> modes,
                  mpi::Options options = one_row()) {
  for (int axis = 0; axis < static_cast<int>(global.size()); ++axis) {
    const GlobalProblem<T> p(global, axis, 4321 + axis);
    for (mpi::Method method : {mpi::Method::pcr, mpi::Method::automatic}) {
      for (Mode mode : modes) {
        SCOPED_TRACE(std::string(mpi::to_string(method)) + ", axis " + std::to_string(axis) +
                     ", mode " + std::to_string(static_cast<int>(mode)));
        options.method = method;
        EXPECT_LE(solve_on_grid_one_row(p, splittable, mode, ghost, options), p.allowed_error())
            << "single-rank error " << p.single_rank_error;
      }
    }
  }
}

TEST(DistOneRow, OneDimensionalEveryMode) {
  expect_exact<double>({43}, {true}, 1, {Mode::in_place, Mode::separate, Mode::increment});
}

TEST(DistOneRow, OneDimensionalFloat) { expect_exact<float>({31}, {true}, 2, {Mode::separate}); }

TEST(DistOneRow, TwoDimensionalSplitBothWays) {
  expect_exact<double>({13, 17}, {true, true}, 1, {Mode::separate, Mode::increment});
}

TEST(DistOneRow, TwoDimensionalSplitAlongOneDimensionOnly) {
  // Axis 0 is split; along axis 1 each system lies on one rank (P = 1 along it).
  expect_exact<double>({19, 6}, {true, false}, 0, {Mode::in_place});
}

TEST(DistOneRow, ThreeDimensionalTwoThreadsPerRank) {
  mpi::Options options = one_row();
  options.num_threads = 2;
  expect_exact<double>({10, 11, 12}, {true, true, true}, 1, {Mode::separate}, options);
}

TEST(DistOneRow, ThreeDimensionalFloatInPlace) {
  expect_exact<float>({12, 10, 11}, {true, true, true}, 1, {Mode::in_place});
}

TEST(DistOneRow, SystemsInBatches) {
  for (int batches : {3, 1000}) {
    SCOPED_TRACE("batches " + std::to_string(batches));
    mpi::Options options = one_row();
    options.batches = batches;
    expect_exact<double>({13, 17}, {true, true}, 1, {Mode::increment}, options);
  }
}

TEST(DistOneRow, CheckedModeKeepsTheLocalPassesOnOneRank) {
  // Checked mode keeps a line of one rank on the distributed path, so the one-row system runs
  // even there (P = 1: no neighbours).
  mpi::Options options = one_row();
  options.checked = true;
  const GlobalProblem<double> p({23, 5}, 0, 77);
  const MPI_Comm cart = make_grid({true, true});
  const Block block = block_of(cart, p.extents);
  LocalBuffers<double> buf(p, block, 1);
  mpi::Solver<double> solver(mpi::Decomposition::cartesian(cart, 0), buf.layout, 0, options);
  std::vector<int> info(solver.system_count(), 99);
  solver.solve(buf.a.data(), buf.b.data(), buf.c.data(), buf.d.data(), buf.x.data(), info.data());
  double error = 0;
  for_each_element(p.extents, block, buf.layout, [&](std::int64_t o, std::int64_t g) {
    const double e = std::abs(buf.x[o] - p.reference[g]) / p.scale;
    error = std::isnan(e) ? INFINITY : std::max(error, e);
  });
  EXPECT_LE(world_max(error), p.allowed_error());
  for (int i : info) EXPECT_EQ(i, 0);
  MPI_Comm free_me = cart;
  MPI_Comm_free(&free_me);
}

TEST(DistOneRow, ShortestPieces) {
  // Pieces of two and three rows over a line of the world; on one rank also a system of one row.
  const int ranks = world_size();
  std::vector<std::int64_t> lengths = {2 * ranks, 2 * ranks + 1, 3 * ranks};
  if (ranks == 1) lengths.push_back(1);
  for (std::int64_t n : lengths) {
    for (bool checked : {false, true}) {
      SCOPED_TRACE("n " + std::to_string(n) + (checked ? ", checked" : ""));
      const GlobalProblem<double> p({n, 3}, 0, 99 + n);
      const std::int64_t lo = n * world_rank() / ranks, hi = n * (world_rank() + 1) / ranks;
      const Block block{{lo, 0}, {hi - lo, 3}};
      LocalBuffers<double> buf(p, block, 1);
      mpi::Options options = one_row();
      options.checked = checked;
      mpi::Solver<double> solver(mpi::Decomposition::line(MPI_COMM_WORLD), buf.layout, 0, options);
      std::vector<int> info(3, 99);
      solver.solve(buf.a.data(), buf.b.data(), buf.c.data(), buf.d.data(), buf.x.data(),
                   checked ? info.data() : nullptr);
      double error = 0;
      for_each_element(p.extents, block, buf.layout, [&](std::int64_t o, std::int64_t g) {
        const double e = std::abs(buf.x[o] - p.reference[g]) / p.scale;
        error = std::isnan(e) ? INFINITY : std::max(error, e);
      });
      EXPECT_LE(world_max(error), p.allowed_error());
      if (checked) {
        for (int i : info) EXPECT_EQ(i, 0);
      }
    }
  }
}

TEST(DistOneRow, CheckedModeReportsTheSameInfoOnEveryRank) {
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
  mpi::Options options = one_row();
  options.checked = true;
  mpi::Solver<double> solver(mpi::Decomposition::line(MPI_COMM_WORLD), buf.layout, 0, options);
  std::vector<int> info(systems, -7);
  solver.solve(buf.a.data(), buf.b.data(), buf.c.data(), buf.d.data(), buf.x.data(), info.data());
  for (std::int64_t s = 0; s < systems; ++s) {
    EXPECT_EQ(info[s], s == spoiled_system ? 1 : 0) << "system " << s;
  }
}

mpi::Options one_row_jacobi(double tolerance, int iterations, bool check) {
  mpi::Options options = one_row(mpi::Method::jacobi);
  options.jacobi_tolerance = tolerance;
  options.jacobi_iterations = iterations;
  options.jacobi_check_convergence = check;
  options.checked = true;
  return options;
}

TEST(DistOneRowJacobi, ReachesItsToleranceOnDominantSystems) {
  for (double tolerance : {1e-6, 1e-10, 0.0}) {
    SCOPED_TRACE(tolerance);
    for (int axis : {0, 1}) {
      const GlobalProblem<double> p({24, 7}, axis, 11);
      const GridSolve<double> run = solve_separate(p, one_row_jacobi(tolerance, 200, true));
      EXPECT_TRUE(run.report.converged);
      EXPECT_LT(run.report.iterations, 200);
      const double reached = tolerance > 0 ? tolerance : 4 * std::numeric_limits<double>::epsilon();
      EXPECT_LE(run.error, std::max(reached, p.allowed_error()));
      for (int i : run.info) EXPECT_EQ(i, 0);
    }
  }
}

TEST(DistOneRowJacobi, FixedIterationCountInBatches) {
  const GlobalProblem<double> p({30, 5}, 0, 12);
  mpi::Options options = one_row_jacobi(0, 40, false);
  options.batches = 2;
  const GridSolve<double> run = solve_separate(p, options);
  EXPECT_EQ(run.report.iterations, 40);
  EXPECT_TRUE(run.report.converged);
  EXPECT_LE(run.error, p.allowed_error());
}

TEST(DistOneRowJacobi, ReportsNonConvergence) {
  if (world_size() == 1) {
    GTEST_SKIP() << "one rank: the reduced system has no neighbours and is solved exactly";
  }
  // One iteration from zero cannot meet a tolerance of 1e-14 where neighbours couple: the
  // change of that iteration is the whole value.
  const GlobalProblem<double> p({6 * world_size(), 3}, 0, 13);
  const GridSolve<double> run = solve_separate(p, one_row_jacobi(1e-14, 1, true));
  EXPECT_FALSE(run.report.converged);
  EXPECT_EQ(run.report.iterations, 1);
  for (int i : run.info) EXPECT_EQ(i, mpi::info_not_converged);
}

/// The plan throws invalid_argument containing `expected` on every rank.
void expect_refused(const mpi::Options& options, const std::string& expected) {
  std::string message;
  try {
    const std::int64_t n = 4 * world_size();
    const std::int64_t lo = n * world_rank() / world_size();
    const std::int64_t hi = n * (world_rank() + 1) / world_size();
    mpi::Solver<double>(mpi::Decomposition::line(MPI_COMM_WORLD), Layout::packed({hi - lo, 3}), 0,
                        options);
  } catch (const invalid_argument& e) {
    message = e.what();
  }
  EXPECT_NE(message.find(expected), std::string::npos) << message;
  EXPECT_EQ(world_max(message.find(expected) == std::string::npos ? 1 : 0), 0);
}

TEST(DistOneRowErrors, CollectiveMethodsAreRefused) {
  for (mpi::Method method : {mpi::Method::allgather, mpi::Method::gather_scatter}) {
    SCOPED_TRACE(mpi::to_string(method));
    expect_refused(one_row(method),
                   "options.reduced_rows = one_per_rank runs with method pcr or "
                   "jacobi (or automatic, which picks pcr), not " +
                       std::string(mpi::to_string(method)));
  }
}

TEST(DistOneRowErrors, NotAForm) {
  mpi::Options options = one_row();
  options.reduced_rows = static_cast<mpi::ReducedRows>(7);
  expect_refused(options, "options.reduced_rows = 7 is not a triax::mpi::ReducedRows");
}

TEST(DistOneRowErrors, RanksDisagree) {
  if (world_size() == 1) GTEST_SKIP() << "one rank agrees with itself";
  mpi::Options options = one_row();
  if (world_rank() == world_size() - 1) options.reduced_rows = mpi::ReducedRows::two_per_rank;
  expect_refused(options, "ranks disagree: options.reduced_rows");
}

TEST(DistOneRow, NamesOfTheForms) {
  EXPECT_EQ(mpi::to_string(mpi::ReducedRows::two_per_rank), "two_per_rank");
  EXPECT_EQ(mpi::to_string(mpi::ReducedRows::one_per_rank), "one_per_rank");
}

}  // namespace
}  // namespace triax::test::dist
