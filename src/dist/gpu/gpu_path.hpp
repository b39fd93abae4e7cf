#pragma once
// GPU ranks of triax::mpi: the device side of one plan. The local modified Thomas passes run as
// kernels (one thread per system, local_passes.hpp's arithmetic), over a device workspace and
// reduced-row buffers allocated here, when the plan is made. The reduced system either goes
// through pinned host buffers to the CPU ranks' MPI methods (host staging: rows_to_host, the
// methods on host_rows()/host_ends(), ends_to_device) or stays on the device (NCCL: allgather,
// gather-scatter or PCR with NCCL calls and device kernels, solve_reduced_on_device; with
// overlap and batches > 1 on a second stream of the plan, solve_reduced_beside). No CUDA or NCCL
// type appears here: dist_solver.cpp is plain C++.
#include <mpi.h>

#include <cstdint>
#include <memory>

#include "core/problem.hpp"
#include "dist/local_passes.hpp"
#include "triax/mpi.hpp"

namespace triax::detail {

struct GpuPathConfig {
  Problem problem;                 // normalised, as for the CPU ranks
  PiecePlace place{};              // where this rank's piece lies in its systems
  std::int64_t largest_batch = 0;  // systems of the largest batch (the first)
  bool checked = false;
  void* stream = nullptr;  // cudaStream_t
  triax::mpi::Method method = triax::mpi::Method::allgather;
  bool nccl = false;              // the reduced system on the device through NCCL
  bool one_row = false;           // one reduced row per rank (pcr; Options::reduced_rows)
  MPI_Comm line = MPI_COMM_NULL;  // the line's communicator (NCCL's id travels over it)
  int ranks = 1;
  int position = 0;
  // NCCL with batches > 1: the reduced solves on a second stream (Options::overlap).
  bool overlap = false;
};

template <class T>
class GpuPath {
 public:
  explicit GpuPath(const GpuPathConfig& config);
  ~GpuPath();
  GpuPath(const GpuPath&) = delete;
  GpuPath& operator=(const GpuPath&) = delete;

  /// Pinned host buffers for host staging: one ReducedPair and two ends per system.
  ReducedPair<T>* host_rows();
  T* host_ends();

  /// Queues the local reduction of systems [first, first + size) on the stream.
  void reduce(const Problem& p, const Operands<T>& ops, std::int64_t first, std::int64_t size);
  /// Copies the batch's reduced rows to host_rows() and waits for the copy.
  void rows_to_host(std::int64_t first, std::int64_t size);
  /// The same in two halves: queues the copy (and an event after it) on the stream ...
  void rows_to_host_async(std::int64_t first, std::int64_t size);
  /// ... and waits for the last queued copy (the stream's work up to it, not beyond).
  void wait_rows();
  /// Queues the copy of the batch's ends from host_ends() to the device.
  void ends_to_device(std::int64_t first, std::int64_t size);
  /// NCCL: queues the reduced solve of the batch (its collectives and kernels) on the stream.
  void solve_reduced_on_device(std::int64_t first, std::int64_t size);
  /// The same with one reduced row per rank (pcr).
  void solve_one_row_on_device(std::int64_t first, std::int64_t size);
  /// Whether the plan has the second stream (config.overlap with NCCL and batches > 1).
  bool has_side_stream() const;
  /// NCCL with overlap: the batch's reduced solve (as solve_reduced_on_device) on the plan's
  /// second stream, after the work queued so far on the caller's stream (its reduction); the
  /// batch's ends are ready at an event, which wait_ends makes the caller's stream wait for.
  /// Call wait_ends for a batch before queuing the next batch's reduced solve.
  void solve_reduced_beside(std::int64_t first, std::int64_t size);
  /// The caller's stream waits for the ends of the last solve_reduced_beside.
  void wait_ends();
  /// Queues the back substitution of the batch; in checked mode it records each system's first
  /// non-finite row (+ first_row, the piece's global offset) on the device.
  void finish(const Problem& p, const Operands<T>& ops, std::int64_t first, std::int64_t size,
              std::int64_t first_row);
  /// Checked mode, after every batch: the first bad row of each system over the line (NCCL on
  /// the device; staging through pinned memory and MPI_Allreduce), then info (device memory)
  /// LAPACK style; unconverged marks the systems without a bad row info_not_converged.
  void report_info(int* info, bool unconverged);
  /// Waits for the stream and the second one (phase timing only).
  void synchronize();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// cudaStreamSynchronize (phase timing of a line of one rank).
void synchronize_stream(void* stream);
/// Whether the library was built with NCCL.
bool nccl_built();
/// Whether every rank of `line` has a GPU of its own (no two share one on the same node); a
/// collective over line. Sets *clash to the first position that shares a GPU, else -1.
bool one_gpu_per_rank(MPI_Comm line, int* clash);
/// Whether the MPI reports CUDA support (OpenMPI's MPIX_Query_cuda_support); false where it
/// cannot tell.
bool mpi_is_cuda_aware();

}  // namespace triax::detail
