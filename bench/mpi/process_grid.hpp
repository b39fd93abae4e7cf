#pragma once
// The Cartesian grid of ranks over the global array and this rank's block of it: dimension k of
// the grid splits array dimension k into contiguous, nearly even pieces.
#include <mpi.h>

#include <cstdint>
#include <vector>

namespace triax::bench::mpi {

struct ProcessGrid {
  MPI_Comm cart = MPI_COMM_NULL;  ///< owned: freed by the destructor
  std::vector<int> dims;          ///< ranks per array dimension
  std::vector<std::int64_t> begin, extents;  ///< this rank's block of the global array

  ProcessGrid(const std::vector<std::int64_t>& global, int axis, const std::vector<int>& procs);
  ~ProcessGrid();
  ProcessGrid(const ProcessGrid&) = delete;
  ProcessGrid& operator=(const ProcessGrid&) = delete;

  /// The block of the rank at `coords` (any rank's, for rank 0's comparison).
  void block_at(const std::vector<int>& coords, std::vector<std::int64_t>& block_begin,
                std::vector<std::int64_t>& block_extents) const;

  std::vector<std::int64_t> global;
};

}  // namespace triax::bench::mpi
