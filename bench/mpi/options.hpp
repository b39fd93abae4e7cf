#pragma once
// The command line of triax-bench-mpi (CLI11): the global problem, the process grid, the methods
// and the repetitions. Every rank parses the same argv, so every rank agrees on the result.
#include <cstdint>
#include <string>
#include <vector>

#include "triax/mpi.hpp"

namespace triax::bench::mpi {

struct MpiConfig {
  std::vector<std::int64_t> extents{256, 256, 256};  ///< the global array (x fastest)
  int axis = 0;
  /// Ranks per array dimension; empty = all ranks along the solve axis (MPI_Dims_create over
  /// that axis alone).
  std::vector<int> procs;
  std::vector<triax::mpi::Method> methods;
  std::vector<std::string> precisions{"double"};
  int reps = 10;
  int threads = 0;            ///< per rank; 0 = OMP_NUM_THREADS, else hardware threads / ranks
  int reference_threads = 0;  ///< the single-rank solve; 0 = threads x ranks
  bool reference = true;
  int jacobi_iterations = 10;  ///< Jacobi runs exactly this many (no convergence check)
  int batches = 1;  ///< triax::mpi::Options::batches (0 = automatic)
  bool overlap = true;          ///< triax::mpi::Options::overlap
  std::string backend = "cpu";  ///< cpu or cuda (GPU ranks: one device per node-local rank)
  triax::mpi::Transport transport = triax::mpi::Transport::automatic;  ///< GPU ranks only
  /// Checked mode (an info array per solve); it also keeps a line of one rank on the
  /// distributed path (the local passes), which measures that path on one GPU or rank.
  bool checked = false;
  /// Where the axis is split, time each method's reduced-system messages alone
  /// (comm_bound.hpp); GPU ranks: also arithmetic-free kernels moving the local passes' bytes in
  /// their order (gpu_bound.hpp), and report the local passes and the solve against them.
  bool bound = false;
  /// CPU ranks: also time arithmetic-free floors of the local passes (the plan's bytes and the
  /// two-pass minimum, streamed, with a neighbour exchange of the reduced rows: cpu_bound.hpp),
  /// where the local passes run (axis split, or --checked); each row gets its % of both.
  bool cpu_bound = false;
  /// triax::mpi::Options::reduced_rows of every method (one: pcr, jacobi and automatic only).
  triax::mpi::ReducedRows reduced_rows = triax::mpi::ReducedRows::two_per_rank;
  std::string json_path;
};

/// Parses argv. On --help prints usage and exits 0 (rank 0 prints); on a bad argument rank 0
/// prints "triax-bench-mpi: --option: why" and every rank exits 2.
MpiConfig parse_mpi_command_line(int argc, char** argv, int rank);

}  // namespace triax::bench::mpi
