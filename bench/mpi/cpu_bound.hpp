#pragma once
// --cpu-bound (CPU ranks): the bytes of the local passes without their arithmetic. Per rank, the
// same threads and batches as the plan, in the plan's order (with overlap: forward pass of batch
// k + 1 between batch k's exchange and its back substitution), each batch's forward pass reads
// a, b, c, d once and writes the workspace (3 values a row, groups of systems laid out as the
// lane passes lay them) and the reduced rows; the reduced exchange sends the batch's reduced
// rows to both neighbours along the axis (what PCR's first step moves, the least any method
// sends); the back substitution reads the workspace and writes x. Arithmetic: one add per row
// in each pass, so the time is the memory's and the messages'. A solve's time over this is
// "% of bound" (docs/notes/2026-11-27-distcache.md).
#include <mpi.h>

#include <cstdint>
#include <vector>

namespace triax::bench::mpi {

template <class T>
class CpuBound {
 public:
  /// The rank's packed block `extents`, systems along `axis`; cart: the grid, neighbours along
  /// axis by MPI_Cart_shift. batches: the plan's Solver::batch_count().
  CpuBound(const std::vector<std::int64_t>& extents, int axis, std::int64_t batches, bool overlap,
           int threads, MPI_Comm cart);
  /// One pass over the block (collective over the line).
  void run(const T* a, const T* b, const T* c, const T* d, T* x);

 private:
  std::int64_t batch_start(std::int64_t k) const;
  void forward(const T* a, const T* b, const T* c, const T* d, std::int64_t k);
  void begin(std::int64_t k);
  void complete();
  void back(T* x, std::int64_t k);

  std::int64_t n_ = 0, stride_ = 1, count_ = 0, batches_ = 1, group_ = 1;
  bool overlap_ = true, adjacent_ = false;
  int threads_ = 1;
  MPI_Comm cart_ = MPI_COMM_NULL;
  int lo_ = MPI_PROC_NULL, hi_ = MPI_PROC_NULL;
  std::vector<T> work_, rows_, from_lo_, from_hi_;
  MPI_Request requests_[4];
};

}  // namespace triax::bench::mpi
