#pragma once
// Where a system's rows start in each operand, on the device: the mixed-radix walk over the
// merged batch dimensions of core/problem.hpp's Problem::system_offset, with 32-bit division
// where the count allows and one walk for several operands.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/problem.hpp"

namespace triax::detail::cuda {

/// Every operand, as a mask of system_offsets.
inline constexpr unsigned all_operands = (1u << operand_count) - 1;

/// Offsets of system s's row 0 in the operands whose bit is set in `Ops` (others untouched):
/// mixed radix over the merged batch dimensions, 32-bit division where the count allows. s <
/// p.count, so the last dimension's index is what the others leave: no division there, and none
/// at all for one merged dimension (every batch of systems side by side, as along the last
/// axis), where the kernels that call this once per group spent about 30 instructions on it.
/// The chunk table kernels, which ran Problem::system_offset (64-bit division) once for d and
/// once for x, spent about 600 of their 1768 static instructions there (float, 16-row chunks).
template <unsigned Ops = all_operands>
__device__ __forceinline__ void system_offsets(const Problem& p, std::int64_t s,
                                               std::int64_t (&off)[operand_count]) {
#pragma unroll
  for (int op = 0; op < operand_count; ++op) {
    if ((Ops >> op) & 1u) off[op] = p.map[op].offset;
  }
  const int last = p.batch_rank - 1;
  if (last < 0) return;  // one system, no batch dimension
  const auto add = [&](auto index, int k) {
#pragma unroll
    for (int op = 0; op < operand_count; ++op) {
      if ((Ops >> op) & 1u) off[op] += std::int64_t(index) * p.map[op].batch_strides[k];
    }
  };
  if (p.count <= 0xffffffffLL) {
    unsigned rest = static_cast<unsigned>(s);
    for (int k = 0; k < last; ++k) {
      const unsigned e = static_cast<unsigned>(p.batch_extents[k]);
      const unsigned i = rest % e;
      rest /= e;
      add(i, k);
    }
    add(rest, last);
  } else {
    std::int64_t rest = s;
    for (int k = 0; k < last; ++k) {
      const std::int64_t e = p.batch_extents[k], i = rest % e;
      rest /= e;
      add(i, k);
    }
    add(rest, last);
  }
}

}  // namespace triax::detail::cuda
