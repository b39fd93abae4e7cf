// Steady-state distributed solves allocate nothing in triax: this executable counts every C++
// allocation (triax's buffers and strings are all C++), and a solve after the first must add
// none, for every method, checked mode and batches included. MPI's own C allocations are not
// counted: what MPI does inside a collective is its business.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>

#include "dist_problems.hpp"

namespace {
std::atomic<long> cxx_allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  ++cxx_allocations;
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace triax::test::dist {
namespace {

TEST(DistAllocations, SolvesAllocateNothing) {
  const std::int64_t n = 3 * world_size() + 1, systems = 6;
  const GlobalProblem<double> p({n, systems}, 0, 31);
  const std::int64_t lo = piece_start(n, world_size(), world_rank());
  const std::int64_t hi = piece_start(n, world_size(), world_rank() + 1);
  const Block block{{lo, 0}, {hi - lo, systems}};
  struct Case {
    mpi::Method method;
    mpi::ReducedRows rows;
  };
  for (const Case c : {Case{mpi::Method::allgather, mpi::ReducedRows::two_per_rank},
                       Case{mpi::Method::gather_scatter, mpi::ReducedRows::two_per_rank},
                       Case{mpi::Method::pcr, mpi::ReducedRows::two_per_rank},
                       Case{mpi::Method::jacobi, mpi::ReducedRows::two_per_rank},
                       Case{mpi::Method::pcr, mpi::ReducedRows::one_per_rank},
                       Case{mpi::Method::jacobi, mpi::ReducedRows::one_per_rank}}) {
    SCOPED_TRACE(std::string(mpi::to_string(c.method)) + ", " +
                 std::string(mpi::to_string(c.rows)));
    LocalBuffers<double> buf(p, block, 1);
    mpi::Options options;
    options.method = c.method;
    options.reduced_rows = c.rows;
    options.checked = true;
    options.batches = 2;
    options.num_threads = 1;
    mpi::Solver<double> solver(mpi::Decomposition::line(MPI_COMM_WORLD), buf.layout, 0, options);
    std::vector<int> info(systems);
    solver.solve_increment(buf.a.data(), buf.b.data(), buf.c.data(), buf.d.data(), buf.x.data(),
                           info.data());
    const long before = cxx_allocations;
    for (int i = 0; i < 20; ++i) {
      solver.solve(buf.a.data(), buf.b.data(), buf.c.data(), buf.d.data(), buf.x.data(),
                   info.data());
      solver.solve_in_place(buf.a.data(), buf.b.data(), buf.c.data(), buf.d.data(), info.data());
    }
    EXPECT_EQ(cxx_allocations - before, 0);
    // The counter is live: making a plan allocates.
    const long before_plan = cxx_allocations;
    { mpi::Solver<double> other(mpi::Decomposition::line(MPI_COMM_WORLD), buf.layout, 0, options); }
    EXPECT_GT(cxx_allocations - before_plan, 0);
  }
}

}  // namespace
}  // namespace triax::test::dist
