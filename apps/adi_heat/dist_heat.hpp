#pragma once
// adi_heat over MPI ranks (--procs AxBxC, under mpirun): the same problem and time loop as on
// one rank, the grid split over a Cartesian grid of ranks and each axis solved by
// triax::mpi::Solver. Collective over MPI_COMM_WORLD; every rank returns the same Result (times
// and error: the largest over the ranks).

#include "heat_problem.hpp"

namespace adi {

// Throws std::invalid_argument (on every rank alike) when s.procs' product is not the rank count;
// triax::invalid_argument (the same on every rank) when a rank holds fewer than 2 points of a
// split axis.
template <class T>
Result run_distributed(const Settings& s);

}  // namespace adi
