// Jacobi on the reduced system: within its tolerance on diagonally dominant systems, with and
// without the per-iteration convergence check, and reporting that it did not converge on
// systems far from dominance (checked mode's info and last_jacobi()).
#include <gtest/gtest.h>

#include "grid_solve.hpp"

namespace triax::test::dist {
namespace {

mpi::Options jacobi_options(double tolerance, int iterations, bool check) {
  mpi::Options options;
  options.method = mpi::Method::jacobi;
  options.jacobi_tolerance = tolerance;
  options.jacobi_iterations = iterations;
  options.jacobi_check_convergence = check;
  options.checked = true;
  return options;
}

TEST(DistJacobi, ReachesItsToleranceOnDominantSystems) {
  for (double tolerance : {1e-6, 1e-10, 0.0}) {
    SCOPED_TRACE(tolerance);
    const GlobalProblem<double> p({24, 7}, 0, 11);
    const GridSolve<double> run = solve_separate(p, jacobi_options(tolerance, 200, true));
    EXPECT_TRUE(run.report.converged);
    EXPECT_LT(run.report.iterations, 200);
    // The reduced system of dominant systems contracts at least 2x per iteration here, so the
    // error stays within the last change (tolerance 0 stands for 4 epsilon).
    const double reached = tolerance > 0 ? tolerance : 4 * std::numeric_limits<double>::epsilon();
    EXPECT_LE(run.error, std::max(reached, p.allowed_error()));
    for (int i : run.info) EXPECT_EQ(i, 0);
  }
}

TEST(DistJacobi, InBatches) {
  const GlobalProblem<double> p({24, 7}, 0, 14);
  mpi::Options options = jacobi_options(1e-10, 200, true);
  options.batches = 3;
  const GridSolve<double> run = solve_separate(p, options);
  EXPECT_TRUE(run.report.converged);
  EXPECT_LE(run.error, std::max(1e-10, p.allowed_error()));
  for (int i : run.info) EXPECT_EQ(i, 0);
}

TEST(DistJacobi, FixedIterationCountRunsThemAll) {
  const GlobalProblem<double> p({30, 5}, 0, 12);
  const GridSolve<double> run = solve_separate(p, jacobi_options(0, 40, false));
  EXPECT_EQ(run.report.iterations, 40);
  EXPECT_TRUE(run.report.converged);
  EXPECT_LE(run.error, p.allowed_error());
}

TEST(DistJacobi, ReportsNonConvergence) {
  if (world_size() == 1) {
    GTEST_SKIP() << "one rank: the reduced system has no neighbours and is solved exactly";
  }
  // Pieces of two rows of tridiag(1, 1.2, 1): the reduced system's neighbouring blocks couple
  // more strongly than each block holds itself, so block Jacobi grows the error every sweep.
  const GlobalProblem<double> p({2 * world_size(), 3}, 0, 13, Systems::not_dominant);
  const GridSolve<double> run = solve_separate(p, jacobi_options(1e-12, 30, true), true);
  EXPECT_FALSE(run.report.converged);
  EXPECT_EQ(run.report.iterations, 30);
  EXPECT_GT(run.report.relative_change, 1e-12);
  for (int i : run.info) EXPECT_NE(i, 0);
}

}  // namespace
}  // namespace triax::test::dist
