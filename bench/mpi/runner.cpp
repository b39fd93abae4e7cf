#include "runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "../inputs.hpp"
#include "../stats.hpp"
#include "triax/mpi.hpp"

namespace triax::bench::mpi {
namespace {

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
void for_each_global(const std::vector<std::int64_t>& global, const std::vector<std::int64_t>& begin,
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
  const auto n = static_cast<std::size_t>(product(blk.extents));
  for (auto* v : {&blk.a, &blk.b, &blk.c, &blk.d}) v->resize(n);
  blk.x.assign(n, T(0));
  for_each_global(grid.global, grid.begin, grid.extents,
                  [&](std::int64_t o, std::int64_t g, const std::vector<std::int64_t>& local) {
                    const Element<T> e = element_at<T>(seed, g);
                    bool first = false, last = false;
                    for (std::size_t k = 0; k < local.size(); ++k) {
                      const std::int64_t row = grid.begin[k] + local[k];
                      first = first || row == 0;
                      last = last || row == grid.global[k] - 1;
                    }
                    blk.a[o] = first ? T(0) : e.a;
                    blk.b[o] = e.b;
                    blk.c[o] = last ? T(0) : e.c;
                    blk.d[o] = e.d;
                  });
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
  row.threads = threads;
  std::vector<T> a, b, c, d;
  std::unique_ptr<Solver<T>> solver;
  if (rank == root) {
    const auto n = static_cast<std::size_t>(product(config.extents));
    a.resize(n), b.resize(n), c.resize(n), d.resize(n), x.assign(n, T(0));
    generate<T>(config.extents, a.data(), b.data(), c.data(), d.data(), seed);
    Options options;
    options.num_threads = threads;
    solver = std::make_unique<Solver<T>>(Backend::cpu, Layout::packed(config.extents), config.axis,
                                         options);
  }
  row.time = timed_reps(config.reps, [&] {
    if (solver) solver->solve(a.data(), b.data(), c.data(), d.data(), x.data());
  });
  return row;
}

}  // namespace

template <class T>
PrecisionResult run_precision(const MpiConfig& config, const ProcessGrid& grid, int threads,
                              int reference_threads) {
  PrecisionResult result;
  std::vector<T> single;
  if (config.reference) result.reference = single_rank<T>(config, reference_threads, single);
  Block<T> blk = make_block<T>(grid);
  const Layout layout = Layout::packed(blk.extents);
  for (triax::mpi::Method method : config.methods) {
    triax::mpi::Options options;
    options.num_threads = threads;
    options.method = method;
    options.batches = config.batches;
    options.jacobi_iterations = config.jacobi_iterations;
    options.jacobi_check_convergence = false;  // a fixed count: no reduction per iteration
    triax::mpi::Solver<T> solver(triax::mpi::Decomposition::cartesian(grid.cart, config.axis),
                                 layout, config.axis, options);
    MethodRow row;
    row.precision = sizeof(T) == 4 ? "float" : "double";
    row.method = std::string(triax::mpi::to_string(method));
    row.method_run = std::string(triax::mpi::to_string(solver.method()));
    auto solve = [&] { solver.solve(blk.a.data(), blk.b.data(), blk.c.data(), blk.d.data(),
                                    blk.x.data()); };
    // Phase times over the timed solves and their warm-ups alike: per solve, so the count
    // does not matter.
    triax::mpi::PhaseTimes phases;
    solver.set_phase_times(&phases);
    row.time = timed_reps(config.reps, solve);
    solver.set_phase_times(nullptr);
    double per_solve[3] = {phases.local_passes, phases.reduced_solve, phases.communication};
    for (double& v : per_solve) v *= 1e3 / std::max(1, phases.solves);
    MPI_Allreduce(MPI_IN_PLACE, per_solve, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    row.local_passes_ms = per_solve[0];
    row.reduced_solve_ms = per_solve[1];
    row.communication_ms = per_solve[2];
    if (config.reference) row.max_difference = max_difference(grid, blk, single);
    result.methods.push_back(row);
  }
  return result;
}

template PrecisionResult run_precision<float>(const MpiConfig&, const ProcessGrid&, int, int);
template PrecisionResult run_precision<double>(const MpiConfig&, const ProcessGrid&, int, int);

}  // namespace triax::bench::mpi
