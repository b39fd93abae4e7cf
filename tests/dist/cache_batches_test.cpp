// Options::batches = 0 (automatic) on CPU ranks (issue 28): batches sized from the cores' cache
// (src/dist/cache/cache_batches.hpp). The count follows the cache size, the ranks of a line
// agree on it even where their caches differ, and the results equal one batch's bit for bit,
// for every exact method, the split axis and another, overlap on and off, info included.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "dist/cache/cache_batches.hpp"
#include "grid_solve.hpp"

namespace triax::test::dist {
namespace {

using triax::detail::cache_batch_count;

TEST(CacheBatchCount, FollowsTheCacheSize) {
  // 65535 systems of 64 doubles on 4 threads, 2 MiB a core, overlap: 10 x 64 x 8 = 5120 bytes a
  // system between its passes, 1 MiB / 5120 = 204 systems a thread, 816 a batch: 81 batches.
  EXPECT_EQ(cache_batch_count(65535, 64, 8, 4, true, 2 << 20, 1 << 28), 81);
  // Without overlap only the workspace waits (3 x 64 x 8 = 1536): 682 a thread, 2728 a batch.
  EXPECT_EQ(cache_batch_count(65535, 64, 8, 4, false, 2 << 20, 1 << 28), 25);
  // Twice the cache, half the batches (rounded up); float, half the bytes, half again.
  EXPECT_EQ(cache_batch_count(65535, 64, 8, 4, true, 4 << 20, 1 << 28), 41);
  EXPECT_EQ(cache_batch_count(65535, 64, 4, 4, true, 4 << 20, 1 << 28), 21);
}

TEST(CacheBatchCount, WholeUnitsForEveryThread) {
  // 65536 systems are 256 units of 64 x 4 threads: the divisors of 256 nearest the counts
  // above, 81 -> 64, 25 -> 32, 41 -> 32, 21 -> 16.
  EXPECT_EQ(cache_batch_count(65536, 64, 8, 4, true, 2 << 20, 1 << 28), 64);
  EXPECT_EQ(cache_batch_count(65536, 64, 8, 4, false, 2 << 20, 1 << 28), 32);
  EXPECT_EQ(cache_batch_count(65536, 64, 8, 4, true, 4 << 20, 1 << 28), 32);
  EXPECT_EQ(cache_batch_count(65536, 64, 4, 4, true, 4 << 20, 1 << 28), 16);
  // 4096 systems on 1 thread (64 units), 900 a batch: 5 -> 4 (not 8).
  EXPECT_EQ(cache_batch_count(4096, 8, 8, 1, true, 2 * 900 * 640, 1 << 28), 4);
}

TEST(CacheBatchCount, Limits) {
  // Everything fits: one batch.
  EXPECT_EQ(cache_batch_count(100, 8, 8, 1, true, 32 << 20, 1 << 28), 1);
  // A tiny cache still leaves 64 systems a thread: 1000 / 128 -> 8 batches.
  EXPECT_EQ(cache_batch_count(1000, 64, 8, 2, true, 1024, 1 << 28), 8);
  // The message limit caps a batch.
  EXPECT_EQ(cache_batch_count(1000, 2, 4, 1, false, 1 << 30, 100), 10);
  // Never more batches than systems, never fewer than 1.
  EXPECT_EQ(cache_batch_count(1, 1000, 8, 16, true, 1, 1 << 28), 1);
  EXPECT_EQ(cache_batch_count(0, 10, 8, 1, true, 1, 1 << 28), 1);
}

/// Sets TRIAX_DIST_CACHE_BYTES for the scope (this rank's value), restoring "unset" after.
struct CacheBytes {
  explicit CacheBytes(std::int64_t bytes) {
    setenv("TRIAX_DIST_CACHE_BYTES", std::to_string(bytes).c_str(), 1);
  }
  ~CacheBytes() { unsetenv("TRIAX_DIST_CACHE_BYTES"); }
  CacheBytes(const CacheBytes&) = delete;
  CacheBytes& operator=(const CacheBytes&) = delete;
};

/// The batch count a plan for p on the grid chooses with these options (agreed over its line;
/// lines with other system counts may choose others).
template <class T>
std::int64_t chosen_batches(const GlobalProblem<T>& p, const std::vector<bool>& splittable,
                            const mpi::Options& options) {
  const MPI_Comm cart = make_grid(splittable);
  const Block block = block_of(cart, p.extents);
  LocalBuffers<T> buf(p, block, 0);
  mpi::Solver<T> solver(mpi::Decomposition::cartesian(cart, p.axis), buf.layout, p.axis, options);
  const std::int64_t batches = solver.batch_count();
  MPI_Comm free_me = cart;
  MPI_Comm_free(&free_me);
  return batches;
}

/// Automatic batching (with a cache small enough for several batches) against one batch: the
/// same bits and info on every rank, and within the allowed error.
template <class T>
void expect_automatic_changes_nothing(const GlobalProblem<T>& p,
                                      const std::vector<bool>& splittable, std::int64_t cache) {
  const CacheBytes small(cache);
  for (mpi::Method method :
       {mpi::Method::allgather, mpi::Method::gather_scatter, mpi::Method::pcr}) {
    for (bool overlap : {true, false}) {
      SCOPED_TRACE(std::string(mpi::to_string(method)) + ", axis " + std::to_string(p.axis) +
                   ", overlap " + std::to_string(overlap));
      mpi::Options options;
      options.num_threads = 1;
      options.method = method;
      options.checked = true;
      options.overlap = overlap;
      options.batches = 0;
      const std::int64_t batches = chosen_batches(p, splittable, options);
      EXPECT_GT(batches, 1) << "the test's cache should force several batches";
      const GridSolve<T> automatic = solve_on_grid(p, splittable, Mode::separate, 1, options);
      options.batches = 1;
      const GridSolve<T> one = solve_on_grid(p, splittable, Mode::separate, 1, options);
      const bool same = same_bits(one.values, automatic.values) && one.info == automatic.info;
      EXPECT_EQ(world_max(same ? 0 : 1), 0) << "automatic batches changed the results";
      EXPECT_LE(automatic.error, p.allowed_error()) << "single-rank error " << p.single_rank_error;
      EXPECT_TRUE(automatic.ghosts_clean);
      for (int i : automatic.info) EXPECT_EQ(i, 0);
    }
  }
}

TEST(DistCacheBatches, AutomaticEqualsOneBatchBitForBit) {
  // 700 systems (at least 64 a batch: several batches on every line, the uneven blocks of
  // axis 1 too), the split axis and another (not split: checked mode keeps the distributed path).
  for (int axis : {0, 1}) {
    std::vector<std::int64_t> extents = {700, 700};
    extents[static_cast<std::size_t>(axis)] = 24;
    const GlobalProblem<double> p(extents, axis, 700 + axis);
    expect_automatic_changes_nothing(p, {true, false}, 1024);
  }
}

TEST(DistCacheBatches, AutomaticFloatThreeDimensional) {
  const GlobalProblem<float> p({10, 20, 17}, 2, 710);
  expect_automatic_changes_nothing(p, {false, false, true}, 1024);
}

TEST(DistCacheBatches, RanksWithDifferentCachesAgree) {
  // Rank 0 sees a cache that holds everything (one batch), the others a tiny one (several): the
  // line takes the largest count, every rank runs it, and the results are one batch's.
  if (world_size() == 1) GTEST_SKIP() << "one rank agrees with itself";
  const GlobalProblem<double> p({16, 400}, 0, 720);
  const CacheBytes cache(world_rank() == 0 ? (std::int64_t(1) << 30) : 1024);
  mpi::Options options;
  options.num_threads = 1;
  options.method = mpi::Method::pcr;
  options.checked = true;
  options.batches = 0;  // automatic (opt-in; the default is one batch)
  const std::int64_t batches = chosen_batches(p, {true, false}, options);
  EXPECT_EQ(batches, 7);  // ceil(400 / 64)
  const GridSolve<double> automatic = solve_on_grid(p, {true, false}, Mode::in_place, 0, options);
  options.batches = 1;
  const GridSolve<double> one = solve_on_grid(p, {true, false}, Mode::in_place, 0, options);
  EXPECT_EQ(world_max(same_bits(one.values, automatic.values) ? 0 : 1), 0);
  EXPECT_LE(automatic.error, p.allowed_error());
}

TEST(DistCacheBatches, NegativeBatchesRefused) {
  std::string message;
  mpi::Options options;
  options.batches = -2;
  try {
    mpi::Solver<double>(mpi::Decomposition::line(MPI_COMM_WORLD), Layout::packed({4, 6}), 0,
                        options);
  } catch (const invalid_argument& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("options.batches = -2 must be >= 1, or 0 (automatic)"),
            std::string::npos)
      << message;
}

}  // namespace
}  // namespace triax::test::dist
