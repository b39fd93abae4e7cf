// The optional phase clock of a plan (set_phase_times): off by default, counting every solve
// while set, and off again after nullptr; the solution is the same either way.
#include <gtest/gtest.h>

#include "dist_problems.hpp"

namespace triax::test::dist {
namespace {

TEST(DistPhaseTimes, CountsSolvesOnlyWhileSet) {
  const std::int64_t n = 4 * world_size();
  const GlobalProblem<double> p({n, 3}, 0, 33);
  const std::int64_t lo = n * world_rank() / world_size(),
                     hi = n * (world_rank() + 1) / world_size();
  const Block block{{lo, 0}, {hi - lo, 3}};
  for (mpi::Method method : {mpi::Method::allgather, mpi::Method::gather_scatter,
                             mpi::Method::pcr, mpi::Method::jacobi}) {
    SCOPED_TRACE(mpi::to_string(method));
    LocalBuffers<double> buf(p, block, 0);
    mpi::Options options;
    options.method = method;
    mpi::Solver<double> solver(mpi::Decomposition::line(MPI_COMM_WORLD), buf.layout, 0, options);
    mpi::PhaseTimes times;
    solver.solve(buf.a.data(), buf.b.data(), buf.c.data(), buf.d.data(), buf.x.data());
    EXPECT_EQ(times.solves, 0);
    solver.set_phase_times(&times);
    for (int i = 0; i < 3; ++i) {
      solver.solve(buf.a.data(), buf.b.data(), buf.c.data(), buf.d.data(), buf.x.data());
    }
    solver.set_phase_times(nullptr);
    solver.solve(buf.a.data(), buf.b.data(), buf.c.data(), buf.d.data(), buf.x.data());
    EXPECT_EQ(times.solves, 3);
    EXPECT_GT(times.local_passes, 0);
    EXPECT_GE(times.reduced_solve, 0);
    EXPECT_GE(times.communication, 0);
    double error = 0;
    for_each_element(p.extents, block, buf.layout, [&](std::int64_t o, std::int64_t g) {
      error = std::max(error, std::abs(buf.x[o] - p.reference[g]) / p.scale);
    });
    EXPECT_LE(world_max(error), method == mpi::Method::jacobi ? 1e-10 : p.allowed_error());
  }
}

}  // namespace
}  // namespace triax::test::dist
