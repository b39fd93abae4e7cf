#include "process_grid.hpp"

#include <stdexcept>
#include <string>

#include "../extents_text.hpp"

namespace triax::bench::mpi {

ProcessGrid::ProcessGrid(const std::vector<std::int64_t>& global_, int axis,
                         const std::vector<int>& procs)
    : global(global_) {
  const int r = static_cast<int>(global.size());
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (procs.empty()) {
    // Only the solve axis is free: MPI_Dims_create puts every rank along it.
    dims.assign(r, 1);
    dims[axis] = 0;
    MPI_Dims_create(size, r, dims.data());
  } else {
    dims = procs;
    int product = 1;
    for (int p : dims) product *= p;
    if (product != size) {
      // Every rank reads the same --procs and the same size: all of them throw.
      throw std::invalid_argument("--procs " + extents_text(dims) + " holds " +
                                  std::to_string(product) + " ranks, but mpirun started " +
                                  std::to_string(size));
    }
  }
  const std::vector<int> periods(r, 0);
  // No reordering: rank numbers stay those of MPI_COMM_WORLD, which the printing rank 0 is.
  MPI_Cart_create(MPI_COMM_WORLD, r, dims.data(), periods.data(), 0, &cart);
  int rank = 0;
  MPI_Comm_rank(cart, &rank);
  std::vector<int> coords(r);
  MPI_Cart_coords(cart, rank, r, coords.data());
  block_at(coords, begin, extents);
}

ProcessGrid::~ProcessGrid() {
  if (cart != MPI_COMM_NULL) MPI_Comm_free(&cart);
}

void ProcessGrid::block_at(const std::vector<int>& coords, std::vector<std::int64_t>& block_begin,
                           std::vector<std::int64_t>& block_extents) const {
  const std::size_t r = global.size();
  block_begin.resize(r);
  block_extents.resize(r);
  for (std::size_t k = 0; k < r; ++k) {
    const std::int64_t lo = global[k] * coords[k] / dims[k];
    const std::int64_t hi = global[k] * (coords[k] + 1) / dims[k];
    block_begin[k] = lo;
    block_extents[k] = hi - lo;
  }
}

}  // namespace triax::bench::mpi
