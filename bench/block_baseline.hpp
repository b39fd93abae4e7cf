#pragma once
// The CPU baseline of the block rows: LAPACK ?gbsv (LAPACKE) on each system as one band matrix
// of order nM with kl = ku = 2M - 1, OpenMP across systems.
#include <cstdint>
#include <string>
#include <vector>

#include "stats.hpp"

namespace triax::bench {

/// Where each system of a block batch starts (element offsets of block row 0, component /
/// entry (0, 0)) and the strides inside it.
struct BlockSystems {
  int m;
  std::int64_t n;
  std::vector<std::int64_t> block_start, vector_start;  // one per system
  std::int64_t block_row_stride, block_r, block_c;      // block row i, entry row, entry column
  std::int64_t vector_row_stride, vector_r;
  std::int64_t count() const { return static_cast<std::int64_t>(block_start.size()); }
};

/// "lapacke_sgbsv" or "lapacke_dgbsv".
template <class T>
std::string gbsv_name();

/// Times `reps` batches (median after two warm-ups): per system, the band matrix and the
/// right-hand side filled from the blocks (gbsv overwrites them, so the copy is inherent),
/// LAPACKE_?gbsv_work, the solution scattered into `out`. Counts singular systems in `failures`.
template <class T>
Timing lapack_gbsv_batch(const BlockSystems& g, const T* a, const T* b, const T* c, const T* d,
                         T* out, int reps, void (*prepare)(), std::int64_t* failures);

}  // namespace triax::bench
