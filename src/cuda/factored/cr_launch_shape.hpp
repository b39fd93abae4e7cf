#pragma once
// How many neighbouring systems a block of the CR kernels takes (factored_cr_kernels.cuh), on
// the host: the plan launches with it, and triax-bench-factored's tile bound copies with the
// same shape.
#include <algorithm>
#include <cstdint>

#include "core/factored/cr_table.hpp"
#include "core/problem.hpp"

namespace triax::detail::cuda_factored_cr {

// A shared-memory block aims at this much tile, so that several blocks share an SM and one's
// loads overlap another's reduction; longer systems take up to cr_shared_bytes.
constexpr std::int64_t cr_shared_target = 24 * 1024;

template <class T>
inline std::int64_t cr_tile_bytes(std::int64_t n, int shift) {
  const std::int64_t pitch = shift == 0 ? 1 : (std::int64_t(1) << shift) + 1;
  return n * pitch * static_cast<std::int64_t>(sizeof(T));
}

/// log2 of the systems a block takes, at most the batch rounded up to a power of two.
inline int most_shift(const Problem& p) {
  int s = 0;
  while (s < 5 && (std::int64_t(1) << s) < p.count) ++s;
  return s;
}

/// log2 of the lanes where neighbouring systems fill a 32-byte sector a row (lanes contiguous).
template <class T>
int sector_shift(const Problem& p) {
  if (p.map[op_d].row_stride == 1) return 0;
  return sizeof(T) == 4 ? 3 : 2;
}

/// log2 of the lanes of the shared-memory variant.
template <class T>
int shared_shift(const Problem& p) {
  const int top = most_shift(p);
  int shift = -1;
  for (int s = top; s >= 0; --s) {
    if (cr_tile_bytes<T>(p.n, s) <= cr_shared_target) {
      shift = s;
      break;
    }
  }
  if (shift < std::min(top, sector_shift<T>(p))) {
    // Long systems: fewer bytes in flight per block, but whole sectors where it still fits.
    for (int s = std::min(top, sector_shift<T>(p)); s >= 0; --s) {
      if (cr_tile_bytes<T>(p.n, s) <= cr_shared_bytes) return s;
    }
  }
  return std::max(shift, 0);
}

/// log2 of the lanes of the global-memory variant: whole sectors, no more (no tile to fill).
template <class T>
int global_shift(const Problem& p) {
  return std::min(most_shift(p), sector_shift<T>(p));
}

}  // namespace triax::detail::cuda_factored_cr
