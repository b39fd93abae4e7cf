// 10^4 solves on one plan (fewer for the other methods and with more ranks) and hundreds of
// plans made and destroyed: every request triax starts completes inside its call, every
// communicator a plan makes is freed with it, and the answer stays right. The counts come from
// MPI's profiling interface: this executable defines the MPI calls triax makes communicators
// and requests with, counts them, and forwards to PMPI.
#include <gtest/gtest.h>

#include <atomic>

#include "dist_problems.hpp"

namespace {
std::atomic<long> communicators_made{0}, communicators_freed{0};
std::atomic<long> requests_started{0}, requests_completed{0};
}  // namespace

extern "C" {
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* copy) {
  ++communicators_made;
  return PMPI_Comm_dup(comm, copy);
}
int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* sub) {
  ++communicators_made;
  return PMPI_Cart_sub(comm, remain_dims, sub);
}
int MPI_Comm_free(MPI_Comm* comm) {
  ++communicators_freed;
  return PMPI_Comm_free(comm);
}
int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
  ++requests_started;
  return PMPI_Isend(buf, count, type, dest, tag, comm, request);
}
int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request* request) {
  ++requests_started;
  return PMPI_Irecv(buf, count, type, source, tag, comm, request);
}
// The overlapped batches' collectives (Options::overlap) start requests too.
int MPI_Iallgather(const void* sent, int sent_count, MPI_Datatype sent_type, void* received,
                   int received_count, MPI_Datatype received_type, MPI_Comm comm,
                   MPI_Request* request) {
  ++requests_started;
  return PMPI_Iallgather(sent, sent_count, sent_type, received, received_count, received_type, comm,
                         request);
}
int MPI_Ialltoallv(const void* sent, const int sent_counts[], const int sent_offsets[],
                   MPI_Datatype sent_type, void* received, const int received_counts[],
                   const int received_offsets[], MPI_Datatype received_type, MPI_Comm comm,
                   MPI_Request* request) {
  ++requests_started;
  return PMPI_Ialltoallv(sent, sent_counts, sent_offsets, sent_type, received, received_counts,
                         received_offsets, received_type, comm, request);
}
int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  const int code = PMPI_Waitall(count, requests, statuses);
  if (code == MPI_SUCCESS) requests_completed += count;
  return code;
}
}

namespace triax::test::dist {
namespace {

/// Communicators and requests alive (made and not freed, started and not completed).
struct Alive {
  long communicators, requests;
  static Alive now() {
    return {communicators_made - communicators_freed, requests_started - requests_completed};
  }
};

constexpr mpi::Method methods[] = {mpi::Method::allgather, mpi::Method::gather_scatter,
                                   mpi::Method::pcr, mpi::Method::jacobi};

TEST(DistMany, TenThousandSolvesOnOnePlan) {
  const std::int64_t n = 3 * world_size() + 2;
  const GlobalProblem<double> p({n, 2}, 0, 21);
  const std::int64_t lo = n * world_rank() / world_size(),
                     hi = n * (world_rank() + 1) / world_size();
  const Block block{{lo, 0}, {hi - lo, 2}};
  for (mpi::Method method : methods) {
    SCOPED_TRACE(mpi::to_string(method));
    LocalBuffers<double> buf(p, block, 0);
    mpi::Options options;
    options.method = method;
    options.jacobi_iterations = 200;
    // Two batches of one system: the overlapped path (Options::overlap), whose requests stay
    // in flight across the other batch's local passes, is the one counted.
    options.batches = 2;
    mpi::Solver<double> solver(mpi::Decomposition::line(MPI_COMM_WORLD), buf.layout, 0, options);
    const long started_before = requests_started;
    const Alive before = Alive::now();
    // Each solve waits on 2-4 messages, which on a loaded machine with more ranks than cores
    // take a scheduler slice each: 10^4 PCR solves on up to two ranks, 2500 beyond (a leak of
    // one request or communicator per solve shows in the counts either way).
    const int pcr_solves = world_size() <= 2 ? 10000 : 2500;
    const int solves = method == mpi::Method::pcr ? pcr_solves : 1000;
    for (int i = 0; i < solves; ++i) {
      solver.solve(buf.a.data(), buf.b.data(), buf.c.data(), buf.d.data(), buf.x.data());
    }
    EXPECT_EQ(Alive::now().communicators, before.communicators);
    EXPECT_EQ(Alive::now().requests, before.requests);
    // The counters see triax's calls: every method starts requests (on one rank, the exact
    // methods' plans hand the whole systems to triax::Solver and send nothing).
    if (world_size() > 1 || method == mpi::Method::jacobi) {
      EXPECT_GT(requests_started, started_before);
    }
    double error = 0;
    for_each_element(p.extents, block, buf.layout, [&](std::int64_t o, std::int64_t g) {
      error = std::max(error, std::abs(buf.x[o] - p.reference[g]) / p.scale);
    });
    // Jacobi stops at a change of 4 epsilon, a few times that from the exact solution.
    const double allowed = method == mpi::Method::jacobi ? 1e-13 : p.allowed_error();
    EXPECT_LE(world_max(error), allowed);
    if (method == mpi::Method::jacobi) EXPECT_TRUE(solver.last_jacobi().converged);
  }
}

TEST(DistMany, ManySolvesOneRowPerRank) {
  // One reduced row per rank: one more exchange before and after the reduced solve; none may
  // leave a request or a communicator behind.
  const std::int64_t n = 3 * world_size() + 2;
  const GlobalProblem<double> p({n, 2}, 0, 22);
  const std::int64_t lo = n * world_rank() / world_size(),
                     hi = n * (world_rank() + 1) / world_size();
  const Block block{{lo, 0}, {hi - lo, 2}};
  for (mpi::Method method : {mpi::Method::pcr, mpi::Method::jacobi}) {
    SCOPED_TRACE(mpi::to_string(method));
    LocalBuffers<double> buf(p, block, 0);
    mpi::Options options;
    options.method = method;
    options.jacobi_iterations = 200;
    options.reduced_rows = mpi::ReducedRows::one_per_rank;
    options.batches = 2;  // overlapped, as above
    mpi::Solver<double> solver(mpi::Decomposition::line(MPI_COMM_WORLD), buf.layout, 0, options);
    const long started_before = requests_started;
    const Alive before = Alive::now();
    for (int i = 0; i < 1000; ++i) {
      solver.solve(buf.a.data(), buf.b.data(), buf.c.data(), buf.d.data(), buf.x.data());
    }
    EXPECT_EQ(Alive::now().communicators, before.communicators);
    EXPECT_EQ(Alive::now().requests, before.requests);
    if (world_size() > 1 || method == mpi::Method::jacobi) {
      EXPECT_GT(requests_started, started_before);
    }
    double error = 0;
    for_each_element(p.extents, block, buf.layout, [&](std::int64_t o, std::int64_t g) {
      error = std::max(error, std::abs(buf.x[o] - p.reference[g]) / p.scale);
    });
    const double allowed = method == mpi::Method::jacobi ? 1e-13 : p.allowed_error();
    EXPECT_LE(world_max(error), allowed);
  }
}

TEST(DistMany, PlansMadeAndFreed) {
  const Layout l = Layout::packed({2, 2});
  const long made_before = communicators_made;
  const Alive before = Alive::now();
  for (int i = 0; i < 500; ++i) {
    mpi::Options options;
    options.method = methods[i % 4];
    mpi::Solver<double> solver(mpi::Decomposition::line(MPI_COMM_WORLD), l, 0, options);
    ASSERT_EQ(solver.ranks_along_axis(), world_size());
    // A failed construction (a collective error) frees what it made too.
    options.num_threads = -1;
    EXPECT_THROW(mpi::Solver<double>(mpi::Decomposition::line(MPI_COMM_WORLD), l, 0, options),
                 invalid_argument);
  }
  EXPECT_GE(communicators_made - made_before, 1000);  // the counters see the plans' calls
  EXPECT_EQ(Alive::now().communicators, before.communicators);
  EXPECT_EQ(Alive::now().requests, before.requests);
}

}  // namespace
}  // namespace triax::test::dist
