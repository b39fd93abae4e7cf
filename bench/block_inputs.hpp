#pragma once
// What the CPU and GPU block rows share (block_runner.cpp): a case's inputs, generated once on
// the host; the sampled residual that checks a solve; and the row with its rates.
#include <cstdint>
#include <string>

#include "block_baseline.hpp"
#include "block_case.hpp"
#include "host_memory.hpp"
#include "stats.hpp"
#include "triax/block.hpp"

namespace triax::bench {

/// The layouts of a case (array of blocks, or the interleaved layout of its axis).
BlockLayouts block_case_layouts(const BlockCase& c);

/// Random block diagonally dominant systems in the case's (packed) layouts, and where each
/// system lies.
template <class T>
struct BlockInputs {
  BlockLayouts layouts;
  BlockSystems systems;
  std::int64_t points;  // grid points: M^2 values per block operand, M per vector
  HostArray<T> a, b, c, d;
  double flops;  // Algorithm 12's flops over the batch
};
template <class T>
BlockInputs<T> make_block_inputs(const BlockCase& c);

/// Largest componentwise relative residual of the solution u over up to 64 sampled systems.
template <class T>
double block_residual(const BlockSystems& g, const T* a, const T* b, const T* c, const T* d,
                      const T* u);

/// A row of the case: in place, bytes = (3M^2 + 2M) values per block row.
Row block_row(const BlockCase& c, const BlockSystems& g, std::size_t value_size,
              const std::string& backend, const std::string& algorithm);
/// Fills the row's timing, GFLOP/s and rates.
void finish_block_row(Row& r, const Timing& t, double flops, const CopyReference& copy);

}  // namespace triax::bench
