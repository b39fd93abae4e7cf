#include "dist_heat.hpp"

#include <mpi.h>

#include <array>
#include <cstdio>
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "advance.hpp"
#include "dist_fields.hpp"
#include "sine_mode.hpp"
#include "triax/mpi.hpp"

#if defined(TRIAX_HAS_CUDA)
#include <cuda_runtime.h>
#endif

namespace adi {
namespace {

#if defined(TRIAX_HAS_CUDA)
void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// GPU ranks (--backend cuda): device copies of u, d1, d2 and the coefficients for the solves
// (triax::mpi on device pointers); the explicit step stays on the host fields (ghost exchange
// and stencil), u copied down before it and its right-hand side up after it. The marks around
// the solves wait for the device, so the per-axis times are the solves' alone.
template <class T>
class GpuRankFields {
 public:
  explicit GpuRankFields(DistFields<T>& host) : host_(host) {
    cuda_ok(cudaMalloc(&u_, host.u_size() * sizeof(T)), "cudaMalloc");
    cuda_ok(cudaMalloc(&d1_, host.rhs_size() * sizeof(T)), "cudaMalloc");
    cuda_ok(cudaMalloc(&d2_, host.rhs_size() * sizeof(T)), "cudaMalloc");
    cuda_ok(cudaMalloc(&coefficients_, 3 * sizeof(T)), "cudaMalloc");
    const T k[3] = {*host.a(), *host.b(), *host.c()};
    cuda_ok(cudaMemcpy(coefficients_, k, sizeof k, cudaMemcpyHostToDevice), "cudaMemcpy");
    cuda_ok(cudaMemcpy(u_, host.u(), host.u_size() * sizeof(T), cudaMemcpyHostToDevice),
            "cudaMemcpy");
  }
  ~GpuRankFields() {
    for (T* p : {u_, d1_, d2_, coefficients_}) cudaFree(p);
  }
  GpuRankFields(const GpuRankFields&) = delete;
  GpuRankFields& operator=(const GpuRankFields&) = delete;

  T* u() { return u_; }
  T* d1() { return d1_; }
  T* d2() { return d2_; }
  const T* a() const { return coefficients_; }
  const T* b() const { return coefficients_ + 1; }
  const T* c() const { return coefficients_ + 2; }
  void explicit_rhs(T scale) {
    u_to_host();
    host_.explicit_rhs(scale);
    cuda_ok(cudaMemcpy(d1_, host_.d1(), host_.rhs_size() * sizeof(T), cudaMemcpyHostToDevice),
            "cudaMemcpy");
  }
  // The solves run on the default stream: a mark waits for them.
  void mark(int index) {
    cuda_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    host_.mark(index);
  }
  void add_elapsed(double* seconds) { host_.add_elapsed(seconds); }
  void u_to_host() {
    cuda_ok(cudaMemcpy(host_.u(), u_, host_.u_size() * sizeof(T), cudaMemcpyDeviceToHost),
            "cudaMemcpy");
  }

 private:
  DistFields<T>& host_;
  T *u_ = nullptr, *d1_ = nullptr, *d2_ = nullptr, *coefficients_ = nullptr;
};

// One GPU per rank where there are enough: device (node-local rank) % (GPUs of the node).
void select_gpu() {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int local = 0, devices = 0;
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    throw std::runtime_error("--backend cuda: no CUDA device");
  }
  cuda_ok(cudaSetDevice(local % devices), "cudaSetDevice");
}
#endif

// The Cartesian communicator of the run; freed when the run ends.
struct Cart {
  MPI_Comm comm = MPI_COMM_NULL;
  explicit Cart(const std::array<int, 3>& procs) {
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (procs[0] * procs[1] * procs[2] != size) {
      throw std::invalid_argument(
          "--procs " + std::to_string(procs[0]) + "x" + std::to_string(procs[1]) + "x" +
          std::to_string(procs[2]) + " holds " + std::to_string(procs[0] * procs[1] * procs[2]) +
          " ranks, but mpirun started " + std::to_string(size));
    }
    const int periods[3] = {0, 0, 0};
    MPI_Cart_create(MPI_COMM_WORLD, 3, procs.data(), periods, 0, &comm);
  }
  ~Cart() { MPI_Comm_free(&comm); }
  Cart(const Cart&) = delete;
  Cart& operator=(const Cart&) = delete;
};

GridBlock block_of(MPI_Comm cart, std::int64_t n, const std::array<int, 3>& procs) {
  int rank = 0, coords[3];
  MPI_Comm_rank(cart, &rank);
  MPI_Cart_coords(cart, rank, 3, coords);
  GridBlock b;
  for (int q = 0; q < 3; ++q) {
    b.begin[q] = n * coords[q] / procs[q];
    b.extents[q] = n * (coords[q] + 1) / procs[q] - b.begin[q];
  }
  return b;
}

double max_over_ranks(double v) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return v;
}

// --dist-method / --transport by the names to_string gives; the same on every rank, so a bad
// name throws on every rank alike.
template <class E>
E enum_by_name(const std::string& name, std::initializer_list<E> values, const char* option) {
  std::string known;
  for (E v : values) {
    if (triax::mpi::to_string(v) == name) return v;
    known += (known.empty() ? "" : ", ") + std::string(triax::mpi::to_string(v));
  }
  throw std::invalid_argument(std::string(option) + " " + name + ": expected one of " + known);
}

// Rank 0 prints what each axis's plan runs and its phases per solve (each the largest over the
// ranks), so that a slow axis can be told apart: local passes, reduced arithmetic or messages.
template <class T>
void print_plans(const triax::mpi::Solver<T>* solvers[3], const triax::mpi::PhaseTimes times[3]) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int axis = 0; axis < 3; ++axis) {
    const triax::mpi::Solver<T>& p = *solvers[axis];
    const triax::mpi::PhaseTimes& t = times[axis];
    const double per = t.solves > 0 ? 1e3 / t.solves : 0;
    const double local = max_over_ranks(t.local_passes * per);
    const double reduced = max_over_ranks(t.reduced_solve * per);
    const double messages = max_over_ranks(t.communication * per);
    if (rank != 0) continue;
    std::printf("  axis %c plan: %d ranks along it, method %s, transport %s, reduced rows %s\n",
                "xyz"[axis], p.ranks_along_axis(), std::string(to_string(p.method())).c_str(),
                std::string(to_string(p.transport())).c_str(),
                std::string(to_string(p.reduced_rows())).c_str());
    if (t.solves > 0) {
      std::printf("    per solve (ms, slowest rank): local passes %.3f, reduced solve %.3f, "
                  "communication %.3f (%d solves)\n",
                  local, reduced, messages, t.solves);
    }
  }
}

}  // namespace

template <class T>
Result run_distributed(const Settings& s) {
#if defined(TRIAX_HAS_CUDA)
  if (s.backend == triax::Backend::cuda) select_gpu();  // before any other CUDA call
#endif
  const Cart cart(s.procs);
  const GridBlock block = block_of(cart.comm, s.n, s.procs);
  const TimeStep step(s);
  Result r = step.result;
  DistFields<T> fields(cart.comm, block, step.matrix<T>());
  for_each_sine_mode_point(s.n, block, [&](std::int64_t i, std::int64_t j, std::int64_t k,
                                           double v) { fields.u_at(i, j, k) = static_cast<T>(v); });

  // As on one rank: broadcast coefficients, x in place in d1, y from d1 into d2, z adds into u
  // (here inside its ghost layers).
  const std::int64_t* e = block.extents;
  const auto packed = triax::Layout::packed({e[0], e[1], e[2]});
  const auto constant = triax::Layout::strided({e[0], e[1], e[2]}, {0, 0, 0});
  const triax::OperandLayouts rhs(constant, constant, constant, packed, packed);
  const triax::OperandLayouts into_u(constant, constant, constant, packed, fields.u_layout());
  using triax::mpi::Decomposition;
  using triax::mpi::Method;
  using triax::mpi::Transport;
  triax::mpi::Options options;
  options.method = enum_by_name(s.dist_method, {Method::automatic, Method::allgather,
                                                Method::gather_scatter, Method::pcr, Method::jacobi},
                                "--dist-method");
  options.transport = enum_by_name(s.transport, {Transport::automatic, Transport::host_staging,
                                                 Transport::cuda_aware_mpi, Transport::nccl},
                                   "--transport");
  if (s.backend == triax::Backend::cuda) {
#if defined(TRIAX_HAS_CUDA)
    options.backend = triax::Backend::cuda;
#else
    throw std::invalid_argument("--backend cuda: this build has no CUDA");
#endif
  }
  triax::mpi::Solver<T> solve_x(Decomposition::cartesian(cart.comm, 0), rhs, 0, options),
      solve_y(Decomposition::cartesian(cart.comm, 1), rhs, 1, options),
      solve_z(Decomposition::cartesian(cart.comm, 2), into_u, 2, options);
  triax::mpi::PhaseTimes phases[3];
  if (s.phase_times) {
    solve_x.set_phase_times(&phases[0]);
    solve_y.set_phase_times(&phases[1]);
    solve_z.set_phase_times(&phases[2]);
  }
#if defined(TRIAX_HAS_CUDA)
  if (s.backend == triax::Backend::cuda) {
    GpuRankFields<T> gpu(fields);
    advance<T>(gpu, solve_x, solve_y, solve_z, s, step.mu, r);
    gpu.u_to_host();
  } else {
    advance<T>(fields, solve_x, solve_y, solve_z, s, step.mu, r);
  }
#else
  advance<T>(fields, solve_x, solve_y, solve_z, s, step.mu, r);
#endif

  const triax::mpi::Solver<T>* solvers[3] = {&solve_x, &solve_y, &solve_z};
  print_plans(solvers, phases);
  for (AxisTiming& t : r.axis) {
    t.seconds = max_over_ranks(t.seconds);
    t.first_seconds = max_over_ranks(t.first_seconds);
  }
  r.total_seconds = max_over_ranks(r.total_seconds);
  r.max_error = max_over_ranks(max_error(
      s.n, block, r.t_end,
      [&](std::int64_t i, std::int64_t j, std::int64_t k) { return fields.u_at(i, j, k); }));
  return r;
}

template Result run_distributed<float>(const Settings&);
template Result run_distributed<double>(const Settings&);

}  // namespace adi
