#include "dist_heat.hpp"

#include <mpi.h>

#include <array>
#include <stdexcept>
#include <string>

#include "advance.hpp"
#include "dist_fields.hpp"
#include "sine_mode.hpp"
#include "triax/mpi.hpp"

namespace adi {
namespace {

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

}  // namespace

template <class T>
Result run_distributed(const Settings& s) {
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
  triax::mpi::Solver<T> solve_x(Decomposition::cartesian(cart.comm, 0), rhs, 0),
      solve_y(Decomposition::cartesian(cart.comm, 1), rhs, 1),
      solve_z(Decomposition::cartesian(cart.comm, 2), into_u, 2);
  advance<T>(fields, solve_x, solve_y, solve_z, s, step.mu, r);

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
