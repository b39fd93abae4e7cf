// Built (not run) where the installed package has triax::mpi: its header, MPI's and the
// library's symbols resolve through the exported target alone.
#include <triax/mpi.hpp>

#include <cstdio>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const auto layout = triax::Layout::packed({8, 4});
  triax::mpi::Solver<double> solver(triax::mpi::Decomposition::line(MPI_COMM_WORLD), layout, 0);
  std::printf("consumer_mpi: %lld rows\n", static_cast<long long>(solver.global_system_length()));
  MPI_Finalize();
  return 0;
}
