#pragma once
// triax-bench-mpi --bound, the reduced system's share: the messages one method sends for the
// reduced systems of a rank's block, through the transport the solve ran (MPI on CPU ranks; host
// staging: the rows' device-to-host copy, MPI, the ends' copy back; NCCL on the stream), with
// the same counts, value type and order as reduced_methods.hpp / one_row_methods.hpp (on NCCL
// gpu_path.cu's solve_reduced_on_device), and none of the arithmetic and no local passes. With
// the local passes' bound (gpu_bound.hpp) it makes the whole solve's bound (issue 29).
#include <mpi.h>

#include <cstdint>
#include <memory>

#include "dist/transport.hpp"
#include "triax/mpi.hpp"

namespace triax::bench::mpi {

struct CommBoundSetup {
  triax::mpi::Method method = triax::mpi::Method::pcr;  ///< as the plan resolved it
  /// As the plan ran it (Solver::transport()); CPU ranks: ignored (MPI).
  triax::mpi::Transport transport = triax::mpi::Transport::host_staging;
  bool gpu = false;
  bool one_row = false;        ///< ReducedRows::one_per_rank
  int jacobi_iterations = 10;  ///< a fixed count, one max-reduction at the end (as the bench)
  std::int64_t count = 0;      ///< systems of the rank's block
  std::int64_t batches = 1;    ///< Solver::batch_count(); batches run one after another
  void* stream = nullptr;      ///< GPU ranks: cudaStream_t of the copies and NCCL calls
};

/// The line of this rank's systems (the ranks along `axis` of the grid `cart`, numbered by
/// their coordinate, as Decomposition::cartesian) with one transport: NCCL on `stream`, else MPI
/// (CPU ranks and host staging). Made once and shared by every method's CommBound, so that no
/// NCCL communicator is made per method. Collective over cart.
class CommLine {
 public:
  CommLine(MPI_Comm cart, int axis, bool nccl, void* stream);
  ~CommLine();
  CommLine(const CommLine&) = delete;
  CommLine& operator=(const CommLine&) = delete;
  triax::detail::Transport& transport() { return *transport_; }

 private:
  MPI_Comm line_ = MPI_COMM_NULL;  // freed here where NCCL holds only a copy of its id
  std::unique_ptr<triax::detail::Transport> transport_;
};

template <class T>
class CommBound {
 public:
  /// `line` must carry the transport setup names (CommLine's nccl = setup.transport == nccl on
  /// GPU ranks) and outlive this. Allocates the buffers where the solve keeps them.
  CommBound(CommLine& line, const CommBoundSetup& setup);
  ~CommBound();
  CommBound(const CommBound&) = delete;
  CommBound& operator=(const CommBound&) = delete;
  /// One solve's messages; returns when they are complete (the stream waited for).
  void run();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace triax::bench::mpi
