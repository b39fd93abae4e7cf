#pragma once
// --cpu-bound (CPU ranks): floors for the local passes, arithmetic-free kernels that move bytes
// in the best order the memory allows (issue 28; docs/notes/2026-11-27-dist28.md). Two figures
// per rank block, each a pass 1, the reduced rows' neighbour exchange along the axis
// (MPI_Cart_shift, both directions, nonblocking: what PCR's first step moves, the least any
// exact method sends) and a pass 2, in the plan's batches and order (with overlap: batch k + 1's
// pass 1 between batch k's exchange and its pass 2):
// - plan: the bytes of the workspace passes, pass 1 reads a, b, c, d and writes 3 workspace
//   values an element, pass 2 reads the 3 and writes x (11 values an element);
// - min: the least two passes can move, pass 1 reads a, b, c, d only, pass 2 reads them again
//   and writes x (9 values an element; the single-rank solve moves 5).
// Every pass streams its batch in memory order (a batch is a union of contiguous runs: whole
// x-rows along y and z, whole systems along x), split evenly over the threads; each figure is
// the faster of plain and non-temporal stores, so that it is a floor, not an access order.

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace triax::bench::mpi {

template <class T>
class CpuBound {
 public:
  enum class Traffic { plan, min };

  /// The rank's packed block `extents`, systems along `axis`; cart: the grid, neighbours along
  /// axis by MPI_Cart_shift. batches: the plan's Solver::batch_count().
  CpuBound(const std::vector<std::int64_t>& extents, int axis, std::int64_t batches, bool overlap,
           int threads, MPI_Comm cart);
  /// One pass over the block (collective over the line).
  void run(Traffic traffic, bool streaming, const T* a, const T* b, const T* c, const T* d,
           T* x);

 private:
  /// A contiguous run of elements [begin, begin + size) of the block (and of the workspace,
  /// laid out as the block).
  struct Run {
    std::int64_t begin, size;
  };
  std::int64_t batch_start(std::int64_t k) const;
  template <class Body>
  void for_each_part(std::int64_t k, Body&& body);
  void pass1(std::int64_t k);
  void pass2(std::int64_t k);
  void begin(std::int64_t k);
  void complete();

  std::int64_t n_ = 0, stride_ = 1, count_ = 0, batches_ = 1;
  bool overlap_ = true;
  int threads_ = 1;
  MPI_Comm cart_ = MPI_COMM_NULL;
  int lo_ = MPI_PROC_NULL, hi_ = MPI_PROC_NULL;
  std::vector<std::vector<Run>> runs_;  ///< per batch, in memory order
  std::vector<T> work_, rows_, from_lo_, from_hi_;
  MPI_Request requests_[4];
  // The current run's arrays and choices.
  Traffic traffic_ = Traffic::plan;
  bool streaming_ = false;
  const T *a_ = nullptr, *b_ = nullptr, *c_ = nullptr, *d_ = nullptr;
  T* x_ = nullptr;
};

}  // namespace triax::bench::mpi
