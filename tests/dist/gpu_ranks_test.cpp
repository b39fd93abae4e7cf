// GPU ranks (options.backend = cuda): the distributed solve with device operands against the
// reference solve of the same global problem, as exact_methods_test.cpp holds CPU ranks to it:
// host staging (ranks may share one GPU) for every method, NCCL (one GPU per rank, else skipped)
// for the methods it runs; split and unsplit axes, in place, separate and increment, batches,
// checked mode's info in device memory, and the errors only GPU ranks can meet. Every test is
// skipped where the process sees no CUDA device.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include "dist_problems.hpp"
#include "support/quick_mode.hpp"

namespace triax::test::dist {
namespace {

// The ranks of this node, numbered 0.. (as a launcher would pick a GPU per rank).
int node_rank_and_size(int* size) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int r = 0;
  MPI_Comm_rank(node, &r);
  MPI_Comm_size(node, size);
  MPI_Comm_free(&node);
  return r;
}

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) n = 0;
  return n;
}

// Selects device node_rank % count; false (on every rank) where any rank sees no device.
bool select_device() {
  const int n = device_count();
  int node_size = 0;
  const int node_rank = node_rank_and_size(&node_size);
  int lowest = n;
  MPI_Allreduce(MPI_IN_PLACE, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (lowest == 0) return false;
  return cudaSetDevice(node_rank % n) == cudaSuccess;
}

// Whether every rank of the world has a GPU of its own.
bool one_gpu_each() {
  int node_size = 0;
  node_rank_and_size(&node_size);
  int fits = node_size <= device_count() ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &fits, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return fits == 1;
}

#define TRIAX_NEEDS_GPU() \
  if (!select_device()) GTEST_SKIP() << "no CUDA device"
#if defined(TRIAX_TEST_NCCL)
#define TRIAX_NEEDS_GPU_PER_RANK() \
  TRIAX_NEEDS_GPU();               \
  if (!one_gpu_each()) GTEST_SKIP() << "needs one GPU per rank"
#else
#define TRIAX_NEEDS_GPU_PER_RANK() GTEST_SKIP() << "built without NCCL (TRIAX_ENABLE_NCCL=OFF)"
#endif

// A device copy of a host vector, freed with it.
template <class T>
struct DeviceArray {
  T* p = nullptr;
  std::size_t n = 0;
  explicit DeviceArray(const std::vector<T>& host) : n(host.size()) {
    EXPECT_EQ(cudaMalloc(&p, n * sizeof(T)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(p, host.data(), n * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  ~DeviceArray() { cudaFree(p); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  std::vector<T> to_host() const {
    std::vector<T> host(n);
    EXPECT_EQ(cudaMemcpy(host.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    return host;
  }
};

enum class Mode { in_place, separate, increment };

struct Outcome {
  double error;
  bool ghosts_clean;
  mpi::Transport transport;
};

// One distributed solve with device operands on a Cartesian grid of the world's ranks, on a
// stream of its own; *values (where given) gets this rank's output in the block's element order.
template <class T>
Outcome solve_on_gpus(const GlobalProblem<T>& p, const std::vector<bool>& splittable, Mode mode,
                      std::int64_t ghost, mpi::Options options, std::vector<T>* values = nullptr) {
  const MPI_Comm cart = make_grid(splittable);
  const Block block = block_of(cart, p.extents);
  LocalBuffers<T> buf(p, block, ghost);
  cudaStream_t stream = nullptr;
  EXPECT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  options.backend = Backend::cuda;
  options.stream = stream;
  std::vector<T> u0(buf.x.size(), T(0));
  if (mode == Mode::increment) {
    for_each_element(p.extents, block, buf.layout, [&](std::int64_t o, std::int64_t g) {
      u0[o] = static_cast<T>(unit_value(p.seed, 7, g));
      buf.x[o] = u0[o];
    });
  }
  DeviceArray<T> a(buf.a), b(buf.b), c(buf.c), d(buf.d), x(buf.x);
  Outcome outcome{0, true, mpi::Transport::automatic};
  {
    mpi::Solver<T> solver(mpi::Decomposition::cartesian(cart, p.axis), buf.layout, p.axis, options);
    outcome.transport = solver.transport();
    switch (mode) {
      case Mode::in_place:
        solver.solve_in_place(a.p, b.p, c.p, d.p);
        break;
      case Mode::separate:
        solver.solve(a.p, b.p, c.p, d.p, x.p);
        break;
      case Mode::increment:
        solver.solve_increment(a.p, b.p, c.p, d.p, x.p);
        break;
    }
    EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  }
  const std::vector<T> out = mode == Mode::in_place ? d.to_host() : x.to_host();
  for_each_element(p.extents, block, buf.layout, [&](std::int64_t o, std::int64_t g) {
    const double want = double(p.reference[g]) + double(u0[o]);
    const double e = std::abs(double(out[o]) - want) / p.scale;
    outcome.error = std::isnan(e) ? INFINITY : std::max(outcome.error, e);
    if (values) values->push_back(out[o]);
  });
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const bool clean =
      buf.ghosts_hold(out, mode == Mode::in_place ? nan : LocalBuffers<T>::sentinel, p, block);
  cudaStreamDestroy(stream);
  MPI_Comm free_me = cart;
  MPI_Comm_free(&free_me);
  outcome.error = world_max(outcome.error);
  outcome.ghosts_clean = world_max(clean ? 0 : 1) == 0;
  return outcome;
}

std::string label(mpi::Method method, int axis, Mode mode) {
  return std::string(mpi::to_string(method)) + ", axis " + std::to_string(axis) + ", mode " +
         std::to_string(static_cast<int>(mode));
}

template <class T>
void expect_exact_on_gpus(const std::vector<std::int64_t>& global,
                          const std::vector<bool>& splittable, std::int64_t ghost,
                          std::initializer_list<Mode> modes, mpi::Transport transport,
                          std::initializer_list<mpi::Method> methods, int batches = 1,
                          mpi::ReducedRows rows = mpi::ReducedRows::two_per_rank) {
  for (int axis = 0; axis < static_cast<int>(global.size()); ++axis) {
    const GlobalProblem<T> p(global, axis, 4321 + axis);
    for (mpi::Method method : methods) {
      for (Mode mode : modes) {
        SCOPED_TRACE(label(method, axis, mode) + ", transport " +
                     std::string(mpi::to_string(transport)));
        mpi::Options options;
        options.method = method;
        options.transport = transport;
        options.batches = batches;
        options.reduced_rows = rows;
        const Outcome got = solve_on_gpus(p, splittable, mode, ghost, options);
        EXPECT_LE(got.error, p.allowed_error()) << "single-rank error " << p.single_rank_error;
        EXPECT_TRUE(got.ghosts_clean);
        if (transport != mpi::Transport::automatic) EXPECT_EQ(got.transport, transport);
      }
    }
  }
}

constexpr std::initializer_list<mpi::Method> staged_methods = {
    mpi::Method::allgather, mpi::Method::gather_scatter, mpi::Method::pcr, mpi::Method::automatic};
constexpr std::initializer_list<mpi::Method> nccl_methods = {
    mpi::Method::allgather, mpi::Method::gather_scatter, mpi::Method::pcr, mpi::Method::automatic};

TEST(GpuRanksStaging, OneDimensionalEveryMode) {
  TRIAX_NEEDS_GPU();
  expect_exact_on_gpus<double>({41}, {true}, 1, {Mode::in_place, Mode::separate, Mode::increment},
                               mpi::Transport::host_staging, staged_methods);
}

TEST(GpuRanksStaging, ThreeDimensionalEveryAxis) {
  TRIAX_NEEDS_GPU();
  expect_exact_on_gpus<double>({10, 11, 12}, {true, true, true}, 1, {Mode::separate},
                               mpi::Transport::host_staging, staged_methods);
}

TEST(GpuRanksStaging, ThreeDimensionalFloatInPlace) {
  TRIAX_NEEDS_GPU();
  expect_exact_on_gpus<float>({12, 10, 11}, {true, true, true}, 1, {Mode::in_place},
                              mpi::Transport::host_staging, staged_methods);
}

TEST(GpuRanksStaging, SplitAlongOneDimensionOnly) {
  // Axis 1 is not split: its lines have one rank, whose systems go to the single-GPU solver.
  TRIAX_NEEDS_GPU();
  expect_exact_on_gpus<double>({19, 6}, {true, false}, 0, {Mode::in_place, Mode::increment},
                               mpi::Transport::host_staging, staged_methods);
}

TEST(GpuRanksStaging, SystemsInBatches) {
  TRIAX_NEEDS_GPU();
  for (int batches : {3, 1000}) {
    SCOPED_TRACE("batches " + std::to_string(batches));
    expect_exact_on_gpus<double>({13, 17}, {true, true}, 1, {Mode::increment},
                                 mpi::Transport::host_staging, staged_methods, batches);
  }
}

TEST(GpuRanksStaging, OverlapEqualsTheBatchesOneAfterAnother) {
  // Options::overlap on host staging (batch k + 1's kernels and copy queued before batch k's
  // reduced solve on the host): the same bits as the batches one after another, every method in
  // both forms, batch counts that do and do not divide the systems, the split axis and another
  // (on one rank every line hands its systems to triax::Solver: nothing to overlap, still equal).
  // TRIAX_TEST_QUICK=1 (compute-sanitizer) runs 3 batches into a separate x only.
  TRIAX_NEEDS_GPU();
  const bool quick = quick_mode();
  const std::vector<int> batch_counts = quick ? std::vector<int>{3} : std::vector<int>{2, 3, 7};
  const std::vector<Mode> modes =
      quick ? std::vector<Mode>{Mode::separate}
            : std::vector<Mode>{Mode::in_place, Mode::separate, Mode::increment};
  struct Form {
    mpi::Method method;
    mpi::ReducedRows rows;
  };
  const Form forms[] = {{mpi::Method::allgather, mpi::ReducedRows::two_per_rank},
                        {mpi::Method::gather_scatter, mpi::ReducedRows::two_per_rank},
                        {mpi::Method::pcr, mpi::ReducedRows::two_per_rank},
                        {mpi::Method::jacobi, mpi::ReducedRows::two_per_rank},
                        {mpi::Method::pcr, mpi::ReducedRows::one_per_rank},
                        {mpi::Method::jacobi, mpi::ReducedRows::one_per_rank}};
  for (int axis : {0, 1}) {
    const GlobalProblem<double> p({13, 17}, axis, 700 + axis);
    for (const Form form : forms) {
      for (int batches : batch_counts) {
        for (Mode mode : modes) {
          SCOPED_TRACE(label(form.method, axis, mode) + ", " +
                       std::string(mpi::to_string(form.rows)) + ", batches " +
                       std::to_string(batches));
          mpi::Options options;
          options.method = form.method;
          options.reduced_rows = form.rows;
          options.transport = mpi::Transport::host_staging;
          options.batches = batches;
          std::vector<double> plain, overlapped;
          options.overlap = false;
          const Outcome off = solve_on_gpus(p, {true, true}, mode, 1, options, &plain);
          options.overlap = true;
          const Outcome on = solve_on_gpus(p, {true, true}, mode, 1, options, &overlapped);
          const bool same =
              plain.size() == overlapped.size() &&
              std::memcmp(plain.data(), overlapped.data(), plain.size() * sizeof(double)) == 0;
          EXPECT_EQ(world_max(same ? 0 : 1), 0) << "overlap changed the results on some rank";
          const double allowed = form.method == mpi::Method::jacobi
                                     ? std::max(p.allowed_error(), 1e-13)
                                     : p.allowed_error();
          EXPECT_LE(on.error, allowed);
          EXPECT_LE(off.error, allowed);
          EXPECT_TRUE(on.ghosts_clean);
        }
      }
    }
  }
}

TEST(GpuRanksStaging, AutomaticTransportSolves) {
  // automatic: NCCL where each rank has its own GPU and NCCL is built, else staging.
  TRIAX_NEEDS_GPU();
  expect_exact_on_gpus<double>({9, 14}, {true, true}, 1, {Mode::separate},
                               mpi::Transport::automatic, staged_methods);
}

TEST(GpuRanksStaging, JacobiWithinItsTolerance) {
  TRIAX_NEEDS_GPU();
  const GlobalProblem<double> p({24, 7}, 0, 11);
  mpi::Options options;
  options.method = mpi::Method::jacobi;
  options.transport = mpi::Transport::host_staging;
  options.jacobi_tolerance = 1e-12;
  options.jacobi_iterations = 200;
  const Outcome got = solve_on_gpus(p, {true, true}, Mode::separate, 1, options);
  EXPECT_LE(got.error, 1e-10);
  EXPECT_TRUE(got.ghosts_clean);
}

// Checked mode: a NaN in d at one global row of one system; info (device memory) names that
// system's first row on every rank, 0 elsewhere.
void expect_checked_info(mpi::Transport transport, std::initializer_list<mpi::Method> methods,
                         int batches = 1) {
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
  DeviceArray<double> a(buf.a), b(buf.b), c(buf.c), d(buf.d), x(buf.x);
  for (mpi::Method method : methods) {
    SCOPED_TRACE(mpi::to_string(method));
    mpi::Options options;
    options.backend = Backend::cuda;
    options.transport = transport;
    options.method = method;
    options.checked = true;
    options.batches = batches;
    mpi::Solver<double> solver(mpi::Decomposition::line(MPI_COMM_WORLD), buf.layout, 0, options);
    DeviceArray<int> info(std::vector<int>(systems, -7));
    solver.solve(a.p, b.p, c.p, d.p, x.p, info.p);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const std::vector<int> got = info.to_host();
    for (std::int64_t s = 0; s < systems; ++s)
      EXPECT_EQ(got[s], s == spoiled_system ? 1 : 0) << "system " << s;
  }
}

TEST(GpuRanksStaging, CheckedModeReportsTheSameInfoOnEveryRank) {
  TRIAX_NEEDS_GPU();
  expect_checked_info(mpi::Transport::host_staging,
                      {mpi::Method::allgather, mpi::Method::pcr, mpi::Method::gather_scatter});
}

TEST(GpuRanksStaging, JacobiThatDoesNotConvergeReportsIt) {
  TRIAX_NEEDS_GPU();
  const GlobalProblem<double> p({8 * world_size(), 3}, 0, 17, Systems::not_dominant);
  const std::int64_t n = p.extents[0];
  const std::int64_t lo = n * world_rank() / world_size(),
                     hi = n * (world_rank() + 1) / world_size();
  const Block block{{lo, 0}, {hi - lo, 3}};
  LocalBuffers<double> buf(p, block, 0);
  DeviceArray<double> a(buf.a), b(buf.b), c(buf.c), d(buf.d), x(buf.x);
  DeviceArray<int> info(std::vector<int>(3, 99));
  mpi::Options options;
  options.backend = Backend::cuda;
  options.transport = mpi::Transport::host_staging;
  options.method = mpi::Method::jacobi;
  options.jacobi_iterations = 3;
  options.jacobi_tolerance = 1e-14;
  options.checked = true;
  mpi::Solver<double> solver(mpi::Decomposition::line(MPI_COMM_WORLD), buf.layout, 0, options);
  solver.solve(a.p, b.p, c.p, d.p, x.p, info.p);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  if (world_size() == 1) {
    // One piece: the reduced system is one 2 x 2 block, exact after the first iteration.
    EXPECT_TRUE(solver.last_jacobi().converged);
  } else {
    EXPECT_FALSE(solver.last_jacobi().converged);
    for (int v : info.to_host()) EXPECT_EQ(v, mpi::info_not_converged);
  }
}

TEST(GpuRanksStaging, ManySolvesOnOnePlan) {
  // The plan's buffers serve every solve: 200 solves, the last one still right.
  TRIAX_NEEDS_GPU();
  const GlobalProblem<double> p({32, 9}, 0, 3);
  const MPI_Comm cart = make_grid({true, false});
  const Block block = block_of(cart, p.extents);
  LocalBuffers<double> buf(p, block, 0);
  DeviceArray<double> a(buf.a), b(buf.b), c(buf.c), d(buf.d), x(buf.x);
  mpi::Options options;
  options.backend = Backend::cuda;
  options.transport = mpi::Transport::host_staging;
  mpi::Solver<double> solver(mpi::Decomposition::cartesian(cart, 0), buf.layout, 0, options);
  for (int i = 0; i < 200; ++i) solver.solve(a.p, b.p, c.p, d.p, x.p);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<double> out = x.to_host();
  double error = 0;
  for_each_element(p.extents, block, buf.layout, [&](std::int64_t o, std::int64_t g) {
    const double e = std::abs(out[o] - p.reference[g]) / p.scale;
    error = std::isnan(e) ? INFINITY : std::max(error, e);
  });
  EXPECT_LE(world_max(error), p.allowed_error());
  MPI_Comm free_me = cart;
  MPI_Comm_free(&free_me);
}

// Runs make() on every rank; every rank must throw invalid_argument containing `expected`.
template <class F>
void expect_invalid_everywhere(F&& make, const std::string& expected) {
  std::string message;
  try {
    make();
  } catch (const invalid_argument& e) {
    message = e.what();
  } catch (const std::exception& e) {
    message = std::string("wrong exception type: ") + e.what();
  }
  EXPECT_NE(message.find(expected), std::string::npos) << message;
  const double missing = message.find(expected) == std::string::npos ? 1 : 0;
  EXPECT_EQ(world_max(missing), 0) << "another rank did not throw it";
}

Layout line_layout(std::int64_t n, std::int64_t systems) {
  const std::int64_t lo = n * world_rank() / world_size();
  const std::int64_t hi = n * (world_rank() + 1) / world_size();
  return Layout::packed({hi - lo, systems});
}

TEST(GpuRanksErrors, HostPointersOnGpuRanks) {
  TRIAX_NEEDS_GPU();
  const Layout layout = line_layout(8 * world_size(), 3);
  // Four distinct host arrays: one array passed as both a and d would be refused first as an
  // overlap of the output with an input.
  const auto size = static_cast<std::size_t>(layout.size());
  std::vector<double> a(size, 1.0), b(size, 4.0), c(size, 1.0), d(size, 1.0);
  mpi::Options options;
  options.backend = Backend::cuda;
  options.transport = mpi::Transport::host_staging;
  options.checked = false;
  mpi::Solver<double> solver(mpi::Decomposition::line(MPI_COMM_WORLD), layout, 0, options);
  if (world_size() == 1) GTEST_SKIP() << "one rank hands its systems to triax::Solver";
  expect_invalid_everywhere([&] { solver.solve_in_place(a.data(), b.data(), c.data(), d.data()); },
                            "the cuda backend needs device memory, but a is a host pointer");
}

TEST(GpuRanksErrors, CudaAwareMpiIsRefused) {
  TRIAX_NEEDS_GPU();
  mpi::Options options;
  options.backend = Backend::cuda;
  options.transport = mpi::Transport::cuda_aware_mpi;
  expect_invalid_everywhere(
      [&] {
        mpi::Solver<double>(mpi::Decomposition::line(MPI_COMM_WORLD),
                            line_layout(8 * world_size(), 3), 0, options);
      },
      "options.transport = cuda_aware_mpi");
}

TEST(GpuRanksErrors, MethodsNcclDoesNotRun) {
  TRIAX_NEEDS_GPU();
  for (mpi::Method method : {mpi::Method::jacobi}) {
    mpi::Options options;
    options.backend = Backend::cuda;
    options.transport = mpi::Transport::nccl;
    options.method = method;
    // Built without NCCL the missing library is named instead.
    expect_invalid_everywhere(
        [&] {
          mpi::Solver<double>(mpi::Decomposition::line(MPI_COMM_WORLD),
                              line_layout(8 * world_size(), 3), 0, options);
        },
        "options.");
  }
}

TEST(GpuRanksErrors, NcclOnASharedGpu) {
  TRIAX_NEEDS_GPU();
  if (world_size() == 1 || one_gpu_each()) GTEST_SKIP() << "needs ranks sharing a GPU";
  mpi::Options options;
  options.backend = Backend::cuda;
  options.transport = mpi::Transport::nccl;
  expect_invalid_everywhere(
      [&] {
        mpi::Solver<double>(mpi::Decomposition::line(MPI_COMM_WORLD),
                            line_layout(8 * world_size(), 3), 0, options);
      },
      "options.transport = nccl");
}

TEST(GpuRanksNccl, EveryModeOneDimensional) {
  TRIAX_NEEDS_GPU_PER_RANK();
  expect_exact_on_gpus<double>({41}, {true}, 1, {Mode::in_place, Mode::separate, Mode::increment},
                               mpi::Transport::nccl, nccl_methods);
}

TEST(GpuRanksNccl, ThreeDimensionalEveryAxis) {
  TRIAX_NEEDS_GPU_PER_RANK();
  expect_exact_on_gpus<double>({10, 11, 12}, {true, true, true}, 1, {Mode::separate},
                               mpi::Transport::nccl, nccl_methods);
  expect_exact_on_gpus<float>({12, 10, 11}, {true, true, true}, 1, {Mode::in_place},
                              mpi::Transport::nccl, nccl_methods);
}

TEST(GpuRanksNccl, SystemsInBatches) {
  TRIAX_NEEDS_GPU_PER_RANK();
  expect_exact_on_gpus<double>({13, 17}, {true, true}, 1, {Mode::increment}, mpi::Transport::nccl,
                               nccl_methods, 3);
}

TEST(GpuRanksNccl, CheckedModeReportsTheSameInfoOnEveryRank) {
  TRIAX_NEEDS_GPU_PER_RANK();
  expect_checked_info(mpi::Transport::nccl,
                      {mpi::Method::allgather, mpi::Method::pcr, mpi::Method::gather_scatter});
}

TEST(GpuRanksNccl, CheckedModeInOverlappedBatches) {
  // Batches of 2 and 2 and 1 systems, overlap on (the default): the bad rows of every batch,
  // written by back substitutions that waited on the second stream, reach the info all-reduce.
  TRIAX_NEEDS_GPU_PER_RANK();
  expect_checked_info(mpi::Transport::nccl,
                      {mpi::Method::allgather, mpi::Method::pcr, mpi::Method::gather_scatter}, 3);
}

// The NCCL methods in both reduced-row forms (one_per_rank runs pcr's one-row device path).
struct NcclForm {
  mpi::Method method;
  mpi::ReducedRows rows;
};
constexpr NcclForm nccl_forms[] = {{mpi::Method::allgather, mpi::ReducedRows::two_per_rank},
                                   {mpi::Method::gather_scatter, mpi::ReducedRows::two_per_rank},
                                   {mpi::Method::pcr, mpi::ReducedRows::two_per_rank},
                                   {mpi::Method::automatic, mpi::ReducedRows::two_per_rank},
                                   {mpi::Method::pcr, mpi::ReducedRows::one_per_rank}};

template <class T>
bool same_bits(const std::vector<T>& x, const std::vector<T>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(T)) == 0;
}

TEST(GpuRanksNccl, OverlapEqualsTheBatchesOneAfterAnother) {
  // Options::overlap with NCCL (each batch's collectives on the plan's second stream while the
  // next batch's reduction runs on the caller's): the same bits as overlap off, every method in
  // both forms, batch counts 1 (no second stream), 2, 3, 7 (dividing the systems and not),
  // double and float; 3 batches in every mode along axis 0, the other counts into a separate x
  // along axis 1. TRIAX_TEST_QUICK=1 (compute-sanitizer) runs 3 batches along axis 0 only.
  TRIAX_NEEDS_GPU_PER_RANK();
  const bool quick = quick_mode();
  const std::vector<int> batch_counts = quick ? std::vector<int>{3} : std::vector<int>{1, 2, 3, 7};
  const std::vector<int> axes = quick ? std::vector<int>{0} : std::vector<int>{0, 1};
  const auto modes_for = [&](int batches) {
    return quick || batches != 3
               ? std::vector<Mode>{Mode::separate}
               : std::vector<Mode>{Mode::in_place, Mode::separate, Mode::increment};
  };
  const auto expect_same = [&](const auto& p, int batches, Mode mode, const NcclForm form) {
    SCOPED_TRACE(label(form.method, p.axis, mode) + ", " + std::string(mpi::to_string(form.rows)) +
                 ", batches " + std::to_string(batches));
    mpi::Options options;
    options.method = form.method;
    options.reduced_rows = form.rows;
    options.transport = mpi::Transport::nccl;
    options.batches = batches;
    using T = typename std::decay_t<decltype(p.reference)>::value_type;
    std::vector<T> plain, overlapped;
    options.overlap = false;
    const Outcome off = solve_on_gpus(p, {true, true}, mode, 1, options, &plain);
    options.overlap = true;
    const Outcome on = solve_on_gpus(p, {true, true}, mode, 1, options, &overlapped);
    EXPECT_EQ(world_max(same_bits(plain, overlapped) ? 0 : 1), 0)
        << "overlap changed the results on some rank";
    EXPECT_LE(on.error, p.allowed_error());
    EXPECT_LE(off.error, p.allowed_error());
    EXPECT_TRUE(on.ghosts_clean);
    EXPECT_TRUE(off.ghosts_clean);
  };
  // Each plan makes an NCCL communicator (about a second at 4 ranks): every mode along axis 0,
  // the other batch counts along the last axis only.
  for (int axis : axes) {
    const GlobalProblem<double> p({13, 17}, axis, 900 + axis);
    for (const NcclForm form : nccl_forms) {
      for (int batches : batch_counts) {
        if ((batches == 3) != (axis == 0)) continue;
        for (Mode mode : modes_for(batches)) expect_same(p, batches, mode, form);
      }
    }
  }
  if (quick) return;
  const GlobalProblem<float> pf({29, 11}, 0, 950);
  for (const NcclForm form : nccl_forms) expect_same(pf, 3, Mode::separate, form);
}

// Two increments on one plan (u = u0 + 2 x) on `stream` (nullptr: the legacy default stream),
// read back on that stream before the plan goes: the caller's stream alone must see each solve
// done, and the second solve's batches must not overtake the first's. This rank's u.
std::vector<double> two_increments(const GlobalProblem<double>& p, mpi::Options options,
                                   cudaStream_t stream, double* error) {
  const MPI_Comm cart = make_grid({true, true});
  const Block block = block_of(cart, p.extents);
  LocalBuffers<double> buf(p, block, 0);
  std::vector<double> u0(buf.x.size(), 0.0);
  for_each_element(p.extents, block, buf.layout, [&](std::int64_t o, std::int64_t g) {
    u0[o] = unit_value(p.seed, 7, g);
    buf.x[o] = u0[o];
  });
  DeviceArray<double> a(buf.a), b(buf.b), c(buf.c), d(buf.d), u(buf.x);
  std::vector<double> out(buf.x.size(), std::numeric_limits<double>::quiet_NaN());
  options.backend = Backend::cuda;
  options.transport = mpi::Transport::nccl;
  options.stream = stream;
  {
    mpi::Solver<double> solver(mpi::Decomposition::cartesian(cart, p.axis), buf.layout, p.axis,
                               options);
    solver.solve_increment(a.p, b.p, c.p, d.p, u.p);
    solver.solve_increment(a.p, b.p, c.p, d.p, u.p);
    // Ordered after the solves on `stream` only: no device-wide synchronisation that would
    // also wait for the plan's second stream.
    EXPECT_EQ(cudaMemcpyAsync(out.data(), u.p, out.size() * sizeof(double), cudaMemcpyDeviceToHost,
                              stream),
              cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  }
  double e = 0;
  std::vector<double> mine;
  for_each_element(p.extents, block, buf.layout, [&](std::int64_t o, std::int64_t g) {
    const double want = 2 * double(p.reference[g]) + u0[o];
    const double r = std::abs(out[o] - want) / p.scale;
    e = std::isnan(r) ? INFINITY : std::max(e, r);
    mine.push_back(out[o]);
  });
  *error = world_max(e);
  MPI_Comm free_me = cart;
  MPI_Comm_free(&free_me);
  return mine;
}

TEST(GpuRanksNccl, OverlapJoinsTheCallersStream) {
  TRIAX_NEEDS_GPU_PER_RANK();
  cudaStream_t own = nullptr;
  ASSERT_EQ(cudaStreamCreate(&own), cudaSuccess);
  for (cudaStream_t stream : {cudaStream_t{nullptr}, own}) {
    for (const NcclForm form : nccl_forms) {
      SCOPED_TRACE(std::string(mpi::to_string(form.method)) + ", " +
                   std::string(mpi::to_string(form.rows)) +
                   (stream ? ", own stream" : ", legacy default stream"));
      const GlobalProblem<double> p({40, 23}, 0, 77);
      mpi::Options options;
      options.method = form.method;
      options.reduced_rows = form.rows;
      options.batches = 4;
      options.overlap = false;
      double error_off = 0, error_on = 0;
      const std::vector<double> off = two_increments(p, options, stream, &error_off);
      options.overlap = true;
      const std::vector<double> on = two_increments(p, options, stream, &error_on);
      EXPECT_EQ(world_max(same_bits(off, on) ? 0 : 1), 0) << "overlap changed the results";
      // Two increments: twice the one solve's error, and the additions' rounding of u (|u0| <=
      // 1 plus twice the solution).
      const double eps = std::numeric_limits<double>::epsilon();
      const double allowed = 2 * p.allowed_error() + 4 * eps * (1 + 2 * p.scale) / p.scale;
      EXPECT_LE(error_on, allowed);
      EXPECT_LE(error_off, allowed);
    }
  }
  cudaStreamDestroy(own);
}

// One reduced row per rank (paper 003's Algorithm 6 form) on host staging: the same kernels, the
// one-row PCR and Jacobi on the staged rows.
constexpr std::initializer_list<mpi::Method> one_row_methods = {mpi::Method::pcr,
                                                                mpi::Method::automatic};
constexpr mpi::ReducedRows one_row = mpi::ReducedRows::one_per_rank;

TEST(GpuRanksOneRow, OneDimensionalEveryMode) {
  TRIAX_NEEDS_GPU();
  expect_exact_on_gpus<double>({43}, {true}, 1, {Mode::in_place, Mode::separate, Mode::increment},
                               mpi::Transport::host_staging, one_row_methods, 1, one_row);
}

TEST(GpuRanksOneRow, ThreeDimensionalEveryAxis) {
  TRIAX_NEEDS_GPU();
  expect_exact_on_gpus<double>({10, 11, 12}, {true, true, true}, 1, {Mode::separate},
                               mpi::Transport::host_staging, one_row_methods, 1, one_row);
  expect_exact_on_gpus<float>({12, 10, 11}, {true, true, true}, 1, {Mode::in_place},
                              mpi::Transport::host_staging, one_row_methods, 1, one_row);
}

TEST(GpuRanksOneRow, SplitAlongOneDimensionOnlyAndBatches) {
  TRIAX_NEEDS_GPU();
  expect_exact_on_gpus<double>({19, 6}, {true, false}, 0, {Mode::increment},
                               mpi::Transport::host_staging, one_row_methods, 1, one_row);
  expect_exact_on_gpus<double>({13, 17}, {true, true}, 1, {Mode::separate},
                               mpi::Transport::host_staging, one_row_methods, 3, one_row);
}

TEST(GpuRanksOneRow, AutomaticTransportSolves) {
  // automatic: NCCL (pcr's device path) where each rank has its own GPU and NCCL is built, else
  // staging.
  TRIAX_NEEDS_GPU();
  expect_exact_on_gpus<double>({9, 14}, {true, true}, 1, {Mode::separate},
                               mpi::Transport::automatic, one_row_methods, 1, one_row);
}

TEST(GpuRanksOneRow, JacobiWithinItsTolerance) {
  TRIAX_NEEDS_GPU();
  const GlobalProblem<double> p({24, 7}, 0, 11);
  mpi::Options options;
  options.method = mpi::Method::jacobi;
  options.reduced_rows = one_row;
  options.transport = mpi::Transport::host_staging;
  options.jacobi_tolerance = 1e-12;
  options.jacobi_iterations = 200;
  const Outcome got = solve_on_gpus(p, {true, true}, Mode::separate, 1, options);
  EXPECT_LE(got.error, 1e-10);
  EXPECT_TRUE(got.ghosts_clean);
}

TEST(GpuRanksOneRow, NcclEveryModeAndBatches) {
  TRIAX_NEEDS_GPU_PER_RANK();
  expect_exact_on_gpus<double>({43}, {true}, 1, {Mode::in_place, Mode::separate, Mode::increment},
                               mpi::Transport::nccl, one_row_methods, 1, one_row);
  expect_exact_on_gpus<float>({12, 10, 11}, {true, true, true}, 1, {Mode::separate},
                              mpi::Transport::nccl, one_row_methods, 1, one_row);
  expect_exact_on_gpus<double>({13, 17}, {true, true}, 1, {Mode::increment}, mpi::Transport::nccl,
                               one_row_methods, 3, one_row);
}

TEST(GpuRanksOneRow, NcclCheckedModeRunsTheDevicePath) {
  // Checked mode keeps even a line of one rank on the distributed path: with one GPU the NCCL
  // one-row solve runs there with no neighbours.
  TRIAX_NEEDS_GPU_PER_RANK();
  const GlobalProblem<double> p({21, 6}, 0, 31);
  const int ranks = world_size();
  const std::int64_t lo = piece_start(21, ranks, world_rank()),
                     hi = piece_start(21, ranks, world_rank() + 1);
  const Block block{{lo, 0}, {hi - lo, 6}};
  LocalBuffers<double> buf(p, block, 0);
  DeviceArray<double> a(buf.a), b(buf.b), c(buf.c), d(buf.d), x(buf.x);
  DeviceArray<int> info(std::vector<int>(6, 99));
  mpi::Options options;
  options.backend = Backend::cuda;
  options.transport = mpi::Transport::nccl;
  options.reduced_rows = one_row;
  options.checked = true;
  {
    mpi::Solver<double> solver(mpi::Decomposition::line(MPI_COMM_WORLD), buf.layout, 0, options);
    EXPECT_EQ(solver.transport(), mpi::Transport::nccl);
    solver.solve(a.p, b.p, c.p, d.p, x.p, info.p);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  const std::vector<double> out = x.to_host();
  double error = 0;
  for_each_element(p.extents, block, buf.layout, [&](std::int64_t o, std::int64_t g) {
    const double e = std::abs(out[o] - p.reference[g]) / p.scale;
    error = std::isnan(e) ? INFINITY : std::max(error, e);
  });
  EXPECT_LE(world_max(error), p.allowed_error());
  for (int i : info.to_host()) EXPECT_EQ(i, 0);
}

TEST(GpuRanksOneRow, JacobiOnNcclRefused) {
  TRIAX_NEEDS_GPU();
  mpi::Options options;
  options.backend = Backend::cuda;
  options.transport = mpi::Transport::nccl;
  options.method = mpi::Method::jacobi;
  options.reduced_rows = one_row;
#if defined(TRIAX_TEST_NCCL)
  const char* expected = "options.method = jacobi does not run on the nccl transport";
#else
  const char* expected = "options.transport = nccl";  // the missing library is named
#endif
  expect_invalid_everywhere(
      [&] {
        mpi::Solver<double>(mpi::Decomposition::line(MPI_COMM_WORLD),
                            line_layout(8 * world_size(), 3), 0, options);
      },
      expected);
}

}  // namespace
}  // namespace triax::test::dist
