// Options::overlap: batches whose messages overlap other batches' local passes give the same
// results, bit for bit, as the same batches one after another, for every method in both
// reduced-row forms, batch counts that do and do not divide the systems, the split axis and
// another, in place, into x and increment; and the results are right (against the reference
// backend). Ranks that disagree on overlap or batches get the same error.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "grid_solve.hpp"

namespace triax::test::dist {
namespace {

struct Form {
  mpi::Method method;
  mpi::ReducedRows rows;
};

constexpr Form forms[] = {
    {mpi::Method::allgather, mpi::ReducedRows::two_per_rank},
    {mpi::Method::gather_scatter, mpi::ReducedRows::two_per_rank},
    {mpi::Method::pcr, mpi::ReducedRows::two_per_rank},
    {mpi::Method::jacobi, mpi::ReducedRows::two_per_rank},
    {mpi::Method::pcr, mpi::ReducedRows::one_per_rank},
    {mpi::Method::jacobi, mpi::ReducedRows::one_per_rank},
};

/// Every form, batch count and mode on p, one thread per rank (CI runs up to 4 ranks on 2
/// cores, where OpenMP's barriers between the many small loops would spin for seconds each) (split
/// over the splittable dimensions): overlap on equals overlap off bit for bit on every rank, info
/// and the Jacobi report included, and both are within the allowed error.
template <class T>
void expect_overlap_changes_nothing(const GlobalProblem<T>& p, const std::vector<bool>& splittable,
                                    std::initializer_list<Mode> modes) {
  for (const Form form : forms) {
    for (int batches : {1, 2, 3, 7}) {
      for (Mode mode : modes) {
        SCOPED_TRACE(std::string(mpi::to_string(form.method)) + ", " +
                     std::string(mpi::to_string(form.rows)) + ", axis " + std::to_string(p.axis) +
                     ", batches " + std::to_string(batches) + ", mode " +
                     std::to_string(static_cast<int>(mode)));
        mpi::Options options;
        options.num_threads = 1;
        options.method = form.method;
        options.reduced_rows = form.rows;
        options.batches = batches;
        options.checked = true;
        options.jacobi_iterations = 300;
        options.overlap = false;
        const GridSolve<T> plain = solve_on_grid(p, splittable, mode, 1, options);
        options.overlap = true;
        const GridSolve<T> overlapped = solve_on_grid(p, splittable, mode, 1, options);
        const bool same = same_bits(plain.values, overlapped.values) &&
                          plain.info == overlapped.info &&
                          plain.report.iterations == overlapped.report.iterations &&
                          plain.report.converged == overlapped.report.converged;
        EXPECT_EQ(world_max(same ? 0 : 1), 0) << "overlap changed the results on some rank";
        // Jacobi stops at a change of 4 epsilon: a few times that from the exact solution.
        const double allowed =
            form.method == mpi::Method::jacobi
                ? std::max(p.allowed_error(), 100 * double(std::numeric_limits<T>::epsilon()))
                : p.allowed_error();
        EXPECT_LE(overlapped.error, allowed) << "single-rank error " << p.single_rank_error;
        EXPECT_TRUE(overlapped.ghosts_clean);
        for (int i : overlapped.info) EXPECT_EQ(i, 0);
      }
    }
  }
}

TEST(DistOverlap, SplitAxisAndAnotherEqualTheBatchesOneAfterAnother) {
  // 13 x 17 split both ways: along each axis the other's 13 or 17 systems (a few per rank)
  // fall into batches of unequal sizes.
  for (int axis : {0, 1}) {
    const GlobalProblem<double> p({13, 17}, axis, 600 + axis);
    expect_overlap_changes_nothing(p, {true, true},
                                   {Mode::in_place, Mode::separate, Mode::increment});
  }
}

TEST(DistOverlap, UnsplitAxisFloat) {
  // Axis 1 is not split (P = 1 along it; checked mode keeps the distributed path), axis 0 is.
  // Into x only (the modes ran above): CI runs up to 4 ranks on 2 cores.
  for (int axis : {0, 1}) {
    const GlobalProblem<float> p({16, 9, 5}, axis, 610 + axis);
    expect_overlap_changes_nothing(p, {true, false, true}, {Mode::separate});
  }
}

TEST(DistOverlap, PhaseTimesWithOverlap) {
  // The clocks split the overlapped phases too: every phase counted, none negative.
  const GlobalProblem<double> p({40, 12}, 0, 620);
  const MPI_Comm cart = make_grid({true, true});
  const Block block = block_of(cart, p.extents);
  LocalBuffers<double> buf(p, block, 0);
  mpi::Options options;
  options.method = mpi::Method::pcr;
  options.batches = 3;
  mpi::Solver<double> solver(mpi::Decomposition::cartesian(cart, 0), buf.layout, 0, options);
  mpi::PhaseTimes times;
  solver.set_phase_times(&times);
  for (int i = 0; i < 3; ++i) {
    solver.solve(buf.a.data(), buf.b.data(), buf.c.data(), buf.d.data(), buf.x.data());
  }
  EXPECT_EQ(times.solves, 3);
  EXPECT_GT(times.local_passes, 0);
  EXPECT_GE(times.reduced_solve, 0);
  EXPECT_GE(times.communication, 0);
  MPI_Comm free_me = cart;
  MPI_Comm_free(&free_me);
}

/// Making a plan with these options throws invalid_argument containing `expected` on every
/// rank.
void expect_refused_everywhere(const mpi::Options& options, const std::string& expected) {
  std::string message;
  try {
    const std::int64_t n = 4 * world_size();
    const std::int64_t lo = n * world_rank() / world_size();
    const std::int64_t hi = n * (world_rank() + 1) / world_size();
    mpi::Solver<double>(mpi::Decomposition::line(MPI_COMM_WORLD), Layout::packed({hi - lo, 6}), 0,
                        options);
  } catch (const invalid_argument& e) {
    message = e.what();
  }
  EXPECT_NE(message.find(expected), std::string::npos) << message;
  EXPECT_EQ(world_max(message.find(expected) == std::string::npos ? 1 : 0), 0);
}

TEST(DistOverlapErrors, RanksDisagreeOnOverlap) {
  if (world_size() == 1) GTEST_SKIP() << "one rank agrees with itself";
  mpi::Options options;
  options.batches = 3;
  options.overlap = world_rank() != world_size() - 1;
  expect_refused_everywhere(options,
                            "ranks disagree: options.overlap: 0 on some ranks, 1 on others");
}

TEST(DistOverlapErrors, RanksDisagreeOnBatchesWithOverlap) {
  if (world_size() == 1) GTEST_SKIP() << "one rank agrees with itself";
  mpi::Options options;
  options.batches = world_rank() == 0 ? 7 : 3;
  expect_refused_everywhere(options, "options.batches: 3 on some ranks, 7 on others");
}

}  // namespace
}  // namespace triax::test::dist
