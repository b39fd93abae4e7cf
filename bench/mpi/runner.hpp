#pragma once
// One precision of triax-bench-mpi: this rank's block of the global problem, each method timed
// with a barrier before every solve, and the single-rank solve of the whole problem on rank 0.
#include <cstdint>
#include <string>
#include <vector>

#include "gpu_bound.hpp"
#include "options.hpp"
#include "process_grid.hpp"

namespace triax::bench::mpi {

/// Milliseconds of one repeated measurement: the median, fastest and slowest repetition, each
/// repetition's time being the slowest rank's.
struct Spread {
  double median_ms = 0, min_ms = 0, max_ms = 0;
};

struct MethodRow {
  std::string precision, method, method_run;  ///< asked for, and what automatic resolved to
  std::string transport_run;                  ///< GPU ranks: the transport the plan ran
  Spread time;
  /// Per solve, the largest over the ranks (PhaseTimes).
  double local_passes_ms = 0, reduced_solve_ms = 0, communication_ms = 0;
  double max_difference = -1;  ///< max |x - x_single| / max |x_single|; -1 = not compared
  std::int64_t batches = 1;    ///< Solver::batch_count()
  /// --bound where the axis is split: the median ms of this method's reduced-system messages
  /// alone (comm_bound.hpp), the slowest rank's; 0 = not run.
  double comm_bound_ms = 0;
};

struct ReferenceRow {
  std::string precision;
  Spread time;
  int threads = 0;
};

struct PrecisionResult {
  std::string precision;  ///< float or double
  std::vector<MethodRow> methods;
  ReferenceRow reference;  ///< threads 0 = not run
  /// --bound: each kernel's time, the slowest rank's; has_bound false = not run.
  bool has_bound = false;
  PassBounds bound;
  /// The largest rank block's share of the global array: the single-rank time times this is
  /// the one-GPU time of one rank's piece (exact for one rank, proportional otherwise).
  double piece_share = 1;
  /// --cpu-bound: the median ms (the slowest rank's) of CpuBound's plan traffic (11 values an
  /// element) and of the two-pass minimum (9), 0 = not run; whether each was faster with
  /// non-temporal stores; the batches they ran.
  double cpu_bound_ms = 0, cpu_min_ms = 0;
  bool cpu_bound_streaming = false, cpu_min_streaming = false;
  std::int64_t cpu_bound_batches = 0;
};

/// GPU ranks: selects device (node-local rank) % (devices of the node), as NCCL wants one GPU
/// per rank; returns the device, or -1 without CUDA (built without it, or no device).
int select_gpu();

/// Collective over MPI_COMM_WORLD.
template <class T>
PrecisionResult run_precision(const MpiConfig& config, const ProcessGrid& grid, int threads,
                              int reference_threads);

}  // namespace triax::bench::mpi
