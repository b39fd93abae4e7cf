#include "runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>

#include "../inputs.hpp"
#include "../stats.hpp"
#include "comm_bound.hpp"
#include "cpu_bound.hpp"
#include "triax/mpi.hpp"

#if defined(TRIAX_HAS_CUDA)
#include <cuda_runtime.h>
#endif

namespace triax::bench::mpi {
namespace {

#if defined(TRIAX_HAS_CUDA)
void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
  }
}

/// Device copies of a, b, c, d and x (x zeroed), freed with the object.
template <class T>
struct DeviceArrays {
  T *a = nullptr, *b = nullptr, *c = nullptr, *d = nullptr, *x = nullptr;
  std::size_t n = 0;
  DeviceArrays(const T* ha, const T* hb, const T* hc, const T* hd, std::size_t count) : n(count) {
    T** arrays[] = {&a, &b, &c, &d, &x};
    const T* hosts[] = {ha, hb, hc, hd, nullptr};
    for (int i = 0; i < 5; ++i) {
      cuda_ok(cudaMalloc(arrays[i], n * sizeof(T)), "cudaMalloc");
      if (hosts[i]) {
        cuda_ok(cudaMemcpy(*arrays[i], hosts[i], n * sizeof(T), cudaMemcpyHostToDevice),
                "cudaMemcpy");
      } else {
        cuda_ok(cudaMemset(*arrays[i], 0, n * sizeof(T)), "cudaMemset");
      }
    }
  }
  ~DeviceArrays() {
    for (T* p : {a, b, c, d, x}) cudaFree(p);
  }
  DeviceArrays(const DeviceArrays&) = delete;
  DeviceArrays& operator=(const DeviceArrays&) = delete;
  void x_to(T* host) const {
    cuda_ok(cudaMemcpy(host, x, n * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
  }
};

struct Stream {
  cudaStream_t s = nullptr;
  Stream() { cuda_ok(cudaStreamCreate(&s), "cudaStreamCreate"); }
  ~Stream() { cudaStreamDestroy(s); }
  void sync() const { cuda_ok(cudaStreamSynchronize(s), "cudaStreamSynchronize"); }
};
#endif

constexpr std::uint64_t seed = 2026;
constexpr int root = 0;
constexpr int tag_block = 7;

template <class T>
MPI_Datatype mpi_type() {
  return sizeof(T) == 4 ? MPI_FLOAT : MPI_DOUBLE;
}

/// A packed block of the global array: its values and the global index of each.
template <class T>
struct Block {
  std::vector<std::int64_t> extents;
  std::vector<T> a, b, c, d, x;
};

/// Global linear index of each element of a block (x fastest), in block order.
template <class F>
void for_each_global(const std::vector<std::int64_t>& global,
                     const std::vector<std::int64_t>& begin,
                     const std::vector<std::int64_t>& extents, F&& f) {
  const std::size_t r = global.size();
  std::vector<std::int64_t> local(r, 0);
  for (std::int64_t e : extents) {
    if (e == 0) return;
  }
  for (std::int64_t o = 0;; ++o) {
    std::int64_t g = 0, stride = 1;
    for (std::size_t k = 0; k < r; ++k) {
      g += (begin[k] + local[k]) * stride;
      stride *= global[k];
    }
    f(o, g, local);
    std::size_t k = 0;
    while (k < r && ++local[k] == extents[k]) local[k++] = 0;
    if (k == r) return;
  }
}

/// This rank's block, with the values generate() gives the same elements of the whole array
/// (a zero on the first and c on the last row along every axis, as there).
template <class T>
Block<T> make_block(const ProcessGrid& grid) {
  Block<T> blk;
  blk.extents = grid.extents;
  const std::int64_t total = product(blk.extents);
  const auto n = static_cast<std::size_t>(total);
  for (auto* v : {&blk.a, &blk.b, &blk.c, &blk.d}) v->resize(n);
  blk.x.assign(n, T(0));
  const std::size_t r = grid.global.size();
  // Element by element from its own index (in parallel: GPU ranks hold 10^8 elements).
#pragma omp parallel for schedule(static)
  for (std::int64_t o = 0; o < total; ++o) {
    std::int64_t rest = o, g = 0, stride = 1;
    bool first = false, last = false;
    for (std::size_t k = 0; k < r; ++k) {
      const std::int64_t row = grid.begin[k] + rest % grid.extents[k];
      rest /= grid.extents[k];
      g += row * stride;
      stride *= grid.global[k];
      first = first || row == 0;
      last = last || row == grid.global[k] - 1;
    }
    const Element<T> e = element_at<T>(seed, g);
    blk.a[o] = first ? T(0) : e.a;
    blk.b[o] = e.b;
    blk.c[o] = last ? T(0) : e.c;
    blk.d[o] = e.d;
  }
  return blk;
}

/// Times `solve` reps times after two warm-ups, a barrier before each; every rank returns the
/// spread of the slowest rank's times.
template <class Solve>
Spread timed_reps(int reps, Solve&& solve) {
  for (int w = 0; w < 2; ++w) solve();
  std::vector<double> ms(static_cast<std::size_t>(reps));
  for (double& m : ms) {
    MPI_Barrier(MPI_COMM_WORLD);
    m = host_ms(solve);
  }
  MPI_Allreduce(MPI_IN_PLACE, ms.data(), reps, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  const Timing t = summarise(std::move(ms));
  return {t.median_ms, t.min_ms, t.max_ms};
}

/// Rank 0 receives every rank's x block and compares it with the single-rank solution;
/// the result reaches every rank.
template <class T>
double max_difference(const ProcessGrid& grid, const Block<T>& mine, const std::vector<T>& single) {
  int rank = 0, size = 0;
  MPI_Comm_rank(grid.cart, &rank);
  MPI_Comm_size(grid.cart, &size);
  double worst = 0;
  if (rank != root) {
    MPI_Send(mine.x.data(), static_cast<int>(mine.x.size()), mpi_type<T>(), root, tag_block,
             grid.cart);
  } else {
    double scale = 0;
    for (T v : single) scale = std::max(scale, std::abs(double(v)));
    std::vector<T> received;
    std::vector<std::int64_t> begin, extents;
    const int r = static_cast<int>(grid.global.size());
    std::vector<int> coords(r);
    for (int p = 0; p < size; ++p) {
      MPI_Cart_coords(grid.cart, p, r, coords.data());
      grid.block_at(coords, begin, extents);
      const T* x = mine.x.data();
      if (p != root) {
        received.resize(static_cast<std::size_t>(product(extents)));
        MPI_Recv(received.data(), static_cast<int>(received.size()), mpi_type<T>(), p, tag_block,
                 grid.cart, MPI_STATUS_IGNORE);
        x = received.data();
      }
      for_each_global(grid.global, begin, extents,
                      [&](std::int64_t o, std::int64_t g, const std::vector<std::int64_t>&) {
                        const double d = std::abs(double(x[o]) - double(single[g])) / scale;
                        if (!(d <= worst)) worst = std::isfinite(d) ? std::max(worst, d) : HUGE_VAL;
                      });
    }
  }
  MPI_Bcast(&worst, 1, MPI_DOUBLE, root, grid.cart);
  return worst;
}

/// The whole problem solved by triax::Solver on rank 0 alone; the others wait at the barriers.
template <class T>
ReferenceRow single_rank(const MpiConfig& config, int threads, std::vector<T>& x) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  ReferenceRow row;
  row.precision = sizeof(T) == 4 ? "float" : "double";
  row.threads = config.backend == "cuda" ? 1 : threads;
  std::vector<T> a, b, c, d;
  std::unique_ptr<Solver<T>> solver;
#if defined(TRIAX_HAS_CUDA)
  std::unique_ptr<Stream> stream;
  std::unique_ptr<DeviceArrays<T>> device;
#endif
  if (rank == root) {
    const auto n = static_cast<std::size_t>(product(config.extents));
    a.resize(n), b.resize(n), c.resize(n), d.resize(n), x.assign(n, T(0));
    generate<T>(config.extents, a.data(), b.data(), c.data(), d.data(), seed);
    Options options;
    options.num_threads = threads;
#if defined(TRIAX_HAS_CUDA)
    if (config.backend == "cuda") {
      // The same global problem on rank 0's GPU: the single-GPU time scaling is measured from.
      stream = std::make_unique<Stream>();
      device = std::make_unique<DeviceArrays<T>>(a.data(), b.data(), c.data(), d.data(), n);
      options.stream = stream->s;
      solver = std::make_unique<Solver<T>>(Backend::cuda, Layout::packed(config.extents),
                                           config.axis, options);
    }
#endif
    if (!solver) {
      solver = std::make_unique<Solver<T>>(Backend::cpu, Layout::packed(config.extents),
                                           config.axis, options);
    }
  }
  row.time = timed_reps(config.reps, [&] {
#if defined(TRIAX_HAS_CUDA)
    if (device) {
      solver->solve(device->a, device->b, device->c, device->d, device->x);
      stream->sync();
      return;
    }
#endif
    if (solver) solver->solve(a.data(), b.data(), c.data(), d.data(), x.data());
  });
#if defined(TRIAX_HAS_CUDA)
  if (device) device->x_to(x.data());
#endif
  return row;
}

}  // namespace

template <class T>
PrecisionResult run_precision(const MpiConfig& config, const ProcessGrid& grid, int threads,
                              int reference_threads) {
  PrecisionResult result;
  result.precision = sizeof(T) == 4 ? "float" : "double";
  std::vector<T> single;
  if (config.reference) result.reference = single_rank<T>(config, reference_threads, single);
  Block<T> blk = make_block<T>(grid);
  const Layout layout = Layout::packed(blk.extents);
  const bool gpu = config.backend == "cuda";
#if defined(TRIAX_HAS_CUDA)
  std::unique_ptr<Stream> stream;
  std::unique_ptr<DeviceArrays<T>> device;
  if (gpu) {
    stream = std::make_unique<Stream>();
    device = std::make_unique<DeviceArrays<T>>(blk.a.data(), blk.b.data(), blk.c.data(),
                                               blk.d.data(), blk.a.size());
  }
#endif
  std::int64_t plan_batches = 1;  // the same for every method (cache, pieces, threads)
  // --bound: the lines of the messages-only runs, one per transport, made when first needed.
  // The stream outlives them (declared before), as NCCL's queued calls need.
  std::unique_ptr<CommLine> nccl_line, mpi_line;
  for (triax::mpi::Method method : config.methods) {
    triax::mpi::Options options;
    options.num_threads = threads;
    options.method = method;
    options.batches = config.batches;
    options.overlap = config.overlap;
    options.jacobi_iterations = config.jacobi_iterations;
    options.jacobi_check_convergence = false;  // a fixed count: no reduction per iteration
    options.checked = config.checked;
    options.reduced_rows = config.reduced_rows;
    const T *a = blk.a.data(), *b = blk.b.data(), *c = blk.c.data(), *d = blk.d.data();
    T* x = blk.x.data();
    std::function<void()> wait = [] {};
#if defined(TRIAX_HAS_CUDA)
    if (gpu) {
      options.backend = Backend::cuda;
      options.transport = config.transport;
      options.stream = stream->s;
      a = device->a, b = device->b, c = device->c, d = device->d, x = device->x;
      wait = [&] { stream->sync(); };
    }
#endif
    triax::mpi::Solver<T> solver(triax::mpi::Decomposition::cartesian(grid.cart, config.axis),
                                 layout, config.axis, options);
    std::vector<int> info_host(config.checked ? static_cast<std::size_t>(solver.system_count())
                                              : 0);
    int* info = config.checked ? info_host.data() : nullptr;
#if defined(TRIAX_HAS_CUDA)
    int* info_device = nullptr;
    if (gpu && config.checked) {
      cuda_ok(cudaMalloc(&info_device, std::max<std::size_t>(1, info_host.size()) * sizeof(int)),
              "cudaMalloc");
      info = info_device;
    }
#endif
    MethodRow row;
    row.batches = solver.batch_count();
    plan_batches = row.batches;
    row.precision = sizeof(T) == 4 ? "float" : "double";
    row.method = std::string(triax::mpi::to_string(method));
    row.method_run = std::string(triax::mpi::to_string(solver.method()));
    row.transport_run = gpu ? std::string(triax::mpi::to_string(solver.transport())) : "mpi";
    auto solve = [&] {
      solver.solve(a, b, c, d, x, info);
      wait();
    };
    triax::mpi::PhaseTimes phases;
    if (gpu) {
      // GPU ranks: phase times wait for the stream at every phase, so the timed solves run
      // without them and three more solves measure the phases.
      row.time = timed_reps(config.reps, solve);
      solver.set_phase_times(&phases);
      for (int i = 0; i < 3; ++i) solve();
      solver.set_phase_times(nullptr);
    } else {
      // Phase times over the timed solves and their warm-ups alike: per solve, so the count
      // does not matter.
      solver.set_phase_times(&phases);
      row.time = timed_reps(config.reps, solve);
      solver.set_phase_times(nullptr);
    }
#if defined(TRIAX_HAS_CUDA)
    if (gpu && config.reference) device->x_to(blk.x.data());
    if (info_device) cudaFree(info_device);
#endif
    double per_solve[3] = {phases.local_passes, phases.reduced_solve, phases.communication};
    for (double& v : per_solve) v *= 1e3 / std::max(1, phases.solves);
    MPI_Allreduce(MPI_IN_PLACE, per_solve, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    row.local_passes_ms = per_solve[0];
    row.reduced_solve_ms = per_solve[1];
    row.communication_ms = per_solve[2];
    if (config.bound && grid.dims[config.axis] > 1) {
      // The same method's messages alone, through the transport the plan ran, in the same run
      // and timed as the solves are (barrier before each, the slowest rank, the median).
      CommBoundSetup setup;
      setup.method = solver.method();
      setup.gpu = gpu;
      setup.transport = gpu ? solver.transport() : triax::mpi::Transport::automatic;
      setup.one_row = config.reduced_rows == triax::mpi::ReducedRows::one_per_rank;
      setup.jacobi_iterations = config.jacobi_iterations;
      setup.count = solver.system_count();
      setup.batches = solver.batch_count();
#if defined(TRIAX_HAS_CUDA)
      if (gpu) setup.stream = stream->s;
#endif
      const bool nccl = gpu && setup.transport == triax::mpi::Transport::nccl;
      std::unique_ptr<CommLine>& line = nccl ? nccl_line : mpi_line;
      if (!line) line = std::make_unique<CommLine>(grid.cart, config.axis, nccl, setup.stream);
      CommBound<T> messages(*line, setup);
      row.comm_bound_ms = timed_reps(config.reps, [&] { messages.run(); }).median_ms;
    }
    if (config.reference) row.max_difference = max_difference(grid, blk, single);
    result.methods.push_back(row);
  }
  double share = static_cast<double>(blk.a.size()) / static_cast<double>(product(config.extents));
  MPI_Allreduce(MPI_IN_PLACE, &share, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  result.piece_share = share;
  if (!gpu && config.cpu_bound && (grid.dims[config.axis] > 1 || config.checked)) {
    // Each figure the faster of plain and non-temporal stores (the same on every rank: the
    // medians are the slowest rank's).
    CpuBound<T> bound(blk.extents, config.axis, plan_batches, config.overlap, threads, grid.cart);
    using Traffic = typename CpuBound<T>::Traffic;
    const auto floor_ms = [&](Traffic traffic, bool* streamed) {
      double best = 0;
      for (const bool streaming : {false, true}) {
        const double ms = timed_reps(config.reps, [&] {
                            bound.run(traffic, streaming, blk.a.data(), blk.b.data(),
                                      blk.c.data(), blk.d.data(), blk.x.data());
                          }).median_ms;
        if (best == 0 || ms < best) best = ms, *streamed = streaming;
      }
      return best;
    };
    result.cpu_bound_ms = floor_ms(Traffic::plan, &result.cpu_bound_streaming);
    result.cpu_min_ms = floor_ms(Traffic::min, &result.cpu_min_streaming);
    result.cpu_bound_batches = plan_batches;
  }
#if defined(TRIAX_HAS_CUDA)
  if (gpu && config.bound) {
    // Every rank times its own block; ranks that share a GPU time theirs one after another.
    PassBounds& b = result.bound;
    int me = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    for (int r = 0; r < ranks; ++r) {
      MPI_Barrier(MPI_COMM_WORLD);
      if (r == me) {
        b = time_pass_bounds<T>(device->a, device->b, device->c, device->d, device->x, blk.extents,
                                config.axis, config.reps, stream->s);
      }
    }
    double slowest[4] = {b.pass1_ms, b.pass2_ms, b.min1_ms, b.min2_ms};
    MPI_Allreduce(MPI_IN_PLACE, slowest, 4, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    b = {slowest[0], slowest[1], slowest[2], slowest[3]};
    result.has_bound = true;
  }
#endif
  return result;
}

int select_gpu() {
#if defined(TRIAX_HAS_CUDA)
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int local = 0, devices = 0;
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) return -1;
  cuda_ok(cudaSetDevice(local % devices), "cudaSetDevice");
  return local % devices;
#else
  return -1;
#endif
}

template PrecisionResult run_precision<float>(const MpiConfig&, const ProcessGrid&, int, int);
template PrecisionResult run_precision<double>(const MpiConfig&, const ProcessGrid&, int, int);

}  // namespace triax::bench::mpi
