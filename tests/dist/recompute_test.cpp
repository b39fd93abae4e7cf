// The CPU ranks' local passes without a workspace per system (TRIAX_DIST_RECOMPUTE=1, issue 28:
// each group or strip writes its workspace into its thread's slice, and the back substitution
// reduces it again there): whole solves against the workspace path, bit for bit (the same
// arithmetic on every system) with the same checked-mode info, and against the reference,
// for every method, along x, y and z, odd sizes, ghost layers, several threads and batches.
// The whole suite also runs with the variable set (tests/dist/CMakeLists.txt).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "grid_solve.hpp"

namespace triax::test::dist {
namespace {

/// Sets TRIAX_DIST_RECOMPUTE=1 for the scope (plans made in it recompute), "unset" after.
struct RecomputeVariable {
  RecomputeVariable() { setenv("TRIAX_DIST_RECOMPUTE", "1", 1); }
  ~RecomputeVariable() { unsetenv("TRIAX_DIST_RECOMPUTE"); }
  RecomputeVariable(const RecomputeVariable&) = delete;
  RecomputeVariable& operator=(const RecomputeVariable&) = delete;
};

template <class T>
void expect_recompute_changes_nothing(const GlobalProblem<T>& p,
                                      const std::vector<bool>& splittable, Mode mode,
                                      int threads, std::int64_t batches) {
  for (mpi::Method method : {mpi::Method::allgather, mpi::Method::gather_scatter,
                             mpi::Method::pcr, mpi::Method::jacobi}) {
    for (bool checked : {false, true}) {
      SCOPED_TRACE(std::string(mpi::to_string(method)) + ", axis " + std::to_string(p.axis) +
                   ", threads " + std::to_string(threads) + ", batches " +
                   std::to_string(batches) + (checked ? ", checked" : ""));
      mpi::Options options;
      options.num_threads = threads;
      options.method = method;
      options.checked = checked;
      options.batches = batches;
      const GridSolve<T> workspace = solve_on_grid(p, splittable, mode, 2, options);
      GridSolve<T> recomputed;
      {
        const RecomputeVariable on;
        recomputed = solve_on_grid(p, splittable, mode, 2, options);
      }
      const bool same =
          same_bits(workspace.values, recomputed.values) && workspace.info == recomputed.info;
      EXPECT_EQ(world_max(same ? 0 : 1), 0) << "recomputing changed the results";
      if (method != mpi::Method::jacobi) {
        EXPECT_LE(recomputed.error, p.allowed_error()) << "single-rank " << p.single_rank_error;
      }
      EXPECT_TRUE(recomputed.ghosts_clean);
    }
  }
}

TEST(DistRecompute, SameBitsAlongEveryAxis) {
  // x: rows contiguous (tiles); y and z: systems adjacent (strips where lines are whole
  // vectors, 32, groups and tail systems where not, 13 and 7).
  const GlobalProblem<double> x({37, 5, 3}, 0, 940);
  expect_recompute_changes_nothing(x, {true, false, false}, Mode::separate, 3, 1);
  expect_recompute_changes_nothing(x, {true, true, false}, Mode::in_place, 2, 3);
  const GlobalProblem<float> xf({29, 7, 2}, 0, 941);
  expect_recompute_changes_nothing(xf, {true, false, false}, Mode::increment, 3, 2);
  const GlobalProblem<double> y({32, 23, 5}, 1, 942);
  expect_recompute_changes_nothing(y, {false, true, false}, Mode::separate, 3, 1);
  expect_recompute_changes_nothing(y, {false, false, true}, Mode::in_place, 2, 3);
  const GlobalProblem<float> z({13, 3, 31}, 2, 943);
  expect_recompute_changes_nothing(z, {false, false, true}, Mode::increment, 3, 1);
  const GlobalProblem<float> zs({32, 7, 19}, 2, 944);
  expect_recompute_changes_nothing(zs, {false, false, true}, Mode::separate, 2, 2);
}

}  // namespace
}  // namespace triax::test::dist
