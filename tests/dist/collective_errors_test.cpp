// A bad or mismatched argument on one rank ends in the same exception with the same message on
// every rank (never a hang: CTest's timeout fails these tests if one appears).
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "dist_problems.hpp"

namespace triax::test::dist {
namespace {

int last_rank() { return world_size() - 1; }

/// Runs `make` on every rank and checks that every rank threw E whose message contains
/// `expected`, and that the messages are identical on every rank.
template <class E>
void expect_same_error_everywhere(const std::function<void()>& make, const std::string& expected) {
  std::string message;
  try {
    make();
  } catch (const E& e) {
    message = e.what();
  } catch (const std::exception& e) {
    message = std::string("wrong exception type: ") + e.what();
  }
  EXPECT_NE(message.find(expected), std::string::npos) << message;
  // The same text on every rank: compare lengths and a hash.
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : message) h = (h ^ ch) * 1099511628211ull;
  std::int64_t mine[2] = {static_cast<std::int64_t>(message.size()),
                          static_cast<std::int64_t>(h >> 1)};
  std::int64_t lows[2], highs[2];
  MPI_Allreduce(mine, lows, 2, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(mine, highs, 2, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_TRUE(lows[0] == highs[0] && lows[1] == highs[1]) << "messages differ across ranks";
}

/// An even split of n rows over the world: this rank's layout of a {n, systems} array.
Layout line_layout(std::int64_t n, std::int64_t systems) {
  const std::int64_t lo = n * world_rank() / world_size();
  const std::int64_t hi = n * (world_rank() + 1) / world_size();
  return Layout::packed({hi - lo, systems});
}

const mpi::Decomposition world_line = mpi::Decomposition::line(MPI_COMM_WORLD);

TEST(DistErrors, AxisDiffersOnOneRank) {
  expect_same_error_everywhere<invalid_argument>(
      [] {
        const int axis = world_rank() == last_rank() && world_size() > 1 ? 1 : 0;
        const Layout l = line_layout(8 * world_size(), 8 * world_size());
        if (world_size() == 1) throw invalid_argument("ranks disagree: axis (one rank)");
        mpi::Solver<double>(world_line, l, axis);
      },
      "ranks disagree: axis");
}

TEST(DistErrors, BadThreadCountOnTheLastRank) {
  expect_same_error_everywhere<invalid_argument>(
      [] {
        mpi::Options options;
        options.num_threads = world_rank() == last_rank() ? -3 : 1;
        mpi::Solver<double>(world_line, line_layout(10, 2), 0, options);
      },
      "rank " + std::to_string(last_rank()) + ": options.num_threads = -3");
}

TEST(DistErrors, RankWithZeroRows) {
  expect_same_error_everywhere<invalid_argument>(
      [] {
        // The last rank's piece is empty: all rows on the others (or none at all on one rank).
        const std::int64_t rows = world_rank() == last_rank() ? 0 : 4;
        mpi::Solver<double>(world_line, Layout::packed({rows, 3}), 0);
      },
      "rank " + std::to_string(last_rank()) + ": this rank owns 0 rows along axis 0");
}

TEST(DistErrors, PieceOfOneRowBesideOthers) {
  if (world_size() == 1) GTEST_SKIP() << "one rank may hold a system of one row";
  expect_same_error_everywhere<invalid_argument>(
      [] {
        const std::int64_t rows = world_rank() == 0 ? 1 : 3;
        mpi::Solver<double>(world_line, Layout::packed({rows, 2}), 0);
      },
      "rank 0: this rank owns 1 row along axis 0");
}

TEST(DistErrors, ValueTypeDiffers) {
  if (world_size() == 1) GTEST_SKIP() << "needs two ranks";
  expect_same_error_everywhere<invalid_argument>(
      [] {
        const Layout l = line_layout(12, 2);
        if (world_rank() == 0)
          mpi::Solver<float>(world_line, l, 0);
        else
          mpi::Solver<double>(world_line, l, 0);
      },
      "the value type's size in bytes: 4 on some ranks, 8 on others");
}

TEST(DistErrors, MethodDiffers) {
  if (world_size() == 1) GTEST_SKIP() << "needs two ranks";
  expect_same_error_everywhere<invalid_argument>(
      [] {
        mpi::Options options;
        options.method = world_rank() == 0 ? mpi::Method::pcr : mpi::Method::allgather;
        mpi::Solver<double>(world_line, line_layout(12, 2), 0, options);
      },
      "options.method");
}

TEST(DistErrors, BatchesDiffer) {
  if (world_size() == 1) GTEST_SKIP() << "needs two ranks";
  expect_same_error_everywhere<invalid_argument>(
      [] {
        mpi::Options options;
        options.batches = world_rank() == last_rank() ? 2 : 1;
        mpi::Solver<double>(world_line, line_layout(12, 4), 0, options);
      },
      "options.batches: 1 on some ranks, 2 on others");
}

TEST(DistErrors, RanksOfALineHoldDifferentSystems) {
  if (world_size() == 1) GTEST_SKIP() << "needs two ranks";
  expect_same_error_everywhere<invalid_argument>(
      [] {
        const std::int64_t systems = world_rank() == last_rank() ? 5 : 4;
        mpi::Solver<double>(world_line, Layout::packed({3, systems}), 0);
      },
      "extent(1): 4 on some ranks, 5 on others");
}

TEST(DistErrors, CartesianDecompositionOfAPlainCommunicator) {
  expect_same_error_everywhere<invalid_argument>(
      [] {
        mpi::Solver<double>(mpi::Decomposition::cartesian(MPI_COMM_WORLD, 0), line_layout(8, 2), 0);
      },
      "needs a communicator with a Cartesian topology");
}

TEST(DistErrors, NullPointerAtSolveOnOneRank) {
  const Layout l = line_layout(6 * world_size(), 3);
  std::vector<double> a(l.size(), 0.1), b(l.size(), 2.0), c(l.size(), 0.1), d(l.size(), 1.0);
  mpi::Solver<double> solver(world_line, l, 0);
  expect_same_error_everywhere<invalid_argument>(
      [&] {
        const double* a_or_null = world_rank() == last_rank() ? nullptr : a.data();
        solver.solve_in_place(a_or_null, b.data(), c.data(), d.data());
      },
      "rank " + std::to_string(last_rank()) + ": ");
  // The plan still works afterwards on every rank.
  solver.solve_in_place(a.data(), b.data(), c.data(), d.data());
  for (double v : d) EXPECT_TRUE(std::isfinite(v));
}

TEST(DistErrors, CheckedModeWithoutInfo) {
  const Layout l = line_layout(4 * world_size(), 2);
  std::vector<double> a(l.size(), 0.1), b(l.size(), 2.0), c(l.size(), 0.1), d(l.size(), 1.0);
  mpi::Options options;
  options.checked = true;
  mpi::Solver<double> solver(world_line, l, 0, options);
  std::vector<int> info(2);
  expect_same_error_everywhere<invalid_argument>(
      [&] {
        int* info_or_null = world_rank() == 0 ? nullptr : info.data();
        solver.solve_in_place(a.data(), b.data(), c.data(), d.data(), info_or_null);
      },
      "rank 0: checked mode needs an info array");
}

// GPU ranks' options (gpudist): what a CPU-only build or a CPU plan refuses, the same on every
// rank.
TEST(DistErrors, TransportOnCpuRanks) {
  mpi::Options options;
  options.transport = mpi::Transport::nccl;
  expect_same_error_everywhere<invalid_argument>(
      [&] { mpi::Solver<double>(world_line, line_layout(8 * world_size(), 3), 0, options); },
      "options.transport = nccl: CPU ranks move host memory through MPI");
}

TEST(DistErrors, ReferenceBackendIsNotDistributed) {
  mpi::Options options;
  options.backend = Backend::reference;
  expect_same_error_everywhere<invalid_argument>(
      [&] { mpi::Solver<double>(world_line, line_layout(8 * world_size(), 3), 0, options); },
      "options.backend = reference: distributed plans run on cpu or cuda ranks");
}

TEST(DistErrors, TransportDiffersOnOneRank) {
  if (world_size() == 1) GTEST_SKIP() << "needs two ranks";
  mpi::Options options;
  options.backend = Backend::cuda;
  options.transport =
      world_rank() == last_rank() ? mpi::Transport::nccl : mpi::Transport::host_staging;
#if defined(TRIAX_HAS_CUDA)
  // Either the ranks' disagreement or, in a build without NCCL, the last rank's own check.
  const std::string expected = "options.transport";
#else
  const std::string expected = "this triax was built without CUDA";
#endif
  expect_same_error_everywhere<invalid_argument>(
      [&] { mpi::Solver<double>(world_line, line_layout(8 * world_size(), 3), 0, options); },
      expected);
}

#if !defined(TRIAX_HAS_CUDA)
TEST(DistErrors, CudaBackendWithoutCuda) {
  mpi::Options options;
  options.backend = Backend::cuda;
  expect_same_error_everywhere<invalid_argument>(
      [&] { mpi::Solver<double>(world_line, line_layout(8 * world_size(), 3), 0, options); },
      "options.backend = cuda: this triax was built without CUDA");
}
#endif

}  // namespace
}  // namespace triax::test::dist
