#pragma once
// What the CPU block plan hands its kernels, and their entry points, compiled once per
// instruction set like the scalar kernels (block_kernels_baseline.cpp, block_kernels_avx2.cpp;
// cpu/batch.hpp says why), each copy in its own namespace.

#include <cstddef>
#include <cstdint>

#include "core/block_problem.hpp"

namespace triax::detail::cpu {

/// Systems solved side by side: every arithmetic step of block Thomas runs on `block_lanes`
/// consecutive systems at once (one AVX2 float vector, two double ones), so the loops over
/// lanes are the vector loops and the pivot reciprocals of 8 systems overlap.
inline constexpr int block_lanes = 8;

/// Per-thread scratch elements: C* and d* of every block row of the lanes, and the A and
/// pivot blocks and pivot reciprocals of the current row.
inline std::size_t block_scratch_elements(std::int64_t n, int m) {
  const std::size_t mm = static_cast<std::size_t>(m) * m;
  return (static_cast<std::size_t>(n) * (mm + m) + 2 * mm + m) * block_lanes;
}

template <class T>
struct BlockBatch {
  const BlockProblem* problem;
  Operands<T> ops;
  int threads;
  T* work;  // threads x per_thread elements
  std::size_t per_thread;
};

template <class T>
void solve_block_batch_baseline(const BlockBatch<T>& batch);
template <class T>
void solve_block_batch_avx2(const BlockBatch<T>& batch);
template <class T>
void solve_block_batch_avx512(const BlockBatch<T>& batch);

}  // namespace triax::detail::cpu
