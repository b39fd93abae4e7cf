#pragma once
// Whether a, b, c and d of a normalised batch are the components 0..3 of one buffer of 4-element
// units (paper 002's Unified-Vector layout, or any N-D form of it with the component dimension
// fastest): then a row of a system is one aligned unit of 16 bytes (float) or 32 (double), and a
// kernel may read it with vector loads instead of four scalar loads at a 16- or 32-byte stride,
// each of which pulls the whole sector through the caches again (docs/algorithms.md,
// "Unified-Vector units"). Host-side and backend-free: the CUDA plan asks it at each solve, where
// the pointers are known (the layouts alone cannot tell p, p, p, p with offsets 0..3 from four
// unrelated buffers); x plays no part (any output layout keeps working).
#include <cstddef>
#include <cstdint>

#include "core/problem.hpp"

namespace triax::detail {

/// True when, for every system and row, b, c and d's elements follow a's at 1, 2 and 3 elements
/// (identical row and batch strides, base addresses one element apart) and a's element starts a
/// unit aligned to 4 elements (a's address 4 x elem aligned, every stride a multiple of 4).
/// `ptrs` are a, b, c, d's base pointers; `elem` the element size in bytes.
inline bool unified_units(const Problem& p, std::size_t elem, const void* const (&ptrs)[4]) {
  if (p.n < 1 || p.count < 1 || elem == 0) return false;
  for (const void* q : ptrs) {
    if (q == nullptr) return false;
  }
  const OperandMap& ma = p.map[op_a];
  const auto address = [&](int op) {
    return reinterpret_cast<std::uintptr_t>(ptrs[op]) +
           static_cast<std::uintptr_t>(p.map[op].offset * static_cast<std::int64_t>(elem));
  };
  const std::uintptr_t unit0 = address(op_a);
  if (unit0 % (4 * elem) != 0) return false;
  // A dimension of one row or one system is never stepped: its stride does not matter.
  const bool rows_stepped = p.n > 1;
  if (rows_stepped && ma.row_stride % 4 != 0) return false;
  for (int k = 0; k < p.batch_rank; ++k) {
    if (p.batch_extents[k] > 1 && ma.batch_strides[k] % 4 != 0) return false;
  }
  for (int op = op_b; op <= op_d; ++op) {
    const OperandMap& m = p.map[op];
    if (address(op) != unit0 + static_cast<std::uintptr_t>(op) * elem) return false;
    if (rows_stepped && m.row_stride != ma.row_stride) return false;
    for (int k = 0; k < p.batch_rank; ++k) {
      if (p.batch_extents[k] > 1 && m.batch_strides[k] != ma.batch_strides[k]) return false;
    }
  }
  return true;
}

}  // namespace triax::detail
