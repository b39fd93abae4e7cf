#pragma once
// The transpose kernel's back substitution straight into the output transpose, for whole
// blocks of R rows: each column of V lanes (V neighbouring systems of the W-lane group) runs its
// rows from c' and d' in the workspace, keeps x in registers and hands a group of rows at a
// time to the register transpose that stores it. Through the tile, x went over d' in the
// workspace and was loaded again for the transpose: one store and one load more per vector.
// The columns' recurrences are independent, which is what hides the latency of each one's.

#include <cstdint>

#include "cpu/scalar/simd_transpose.hpp"

#ifndef TRIAX_CPU_ISA
#error "kernel headers are included through cpu/solve_batch.inc, which names the instruction set"
#endif

namespace triax::detail::cpu::TRIAX_CPU_ISA {

/// Back substitution of rows [i0, i0 + R) of one column: x[i] = d'[i] - c'[i] x[i + 1], with
/// d' of row i at dp + i * ws and c' given by cp_row(i) (a vector: the workspace's row, or one
/// value for every lane where one matrix serves every system). x is stored (or added) through
/// the transpose to the V systems whose rows start at x[0 .. V). Row i0 + R's x is read from dp
/// (0 past the end, where c'[n-1] = 0), and row i0's is left there for the block below.
template <bool Accumulate, int R, class T, class CpRow>
inline void backward_column(T* const* x, std::int64_t n, std::int64_t i0, CpRow cp_row, T* dp,
                            std::int64_t ws) {
  using V = typename Vec<T>::type;
  constexpr int G = group_rows<T>;
  static_assert(R % G == 0);
  V xn{};
  if (i0 + R < n) xn = load_vec(dp + (i0 + R) * ws);
  for (int g = R - G; g >= 0; g -= G) {
    const std::int64_t i = i0 + g;
    V xv[G];
    for (int k = G - 1; k >= 0; --k) {
      xn = load_vec(dp + (i + k) * ws) - cp_row(i + k) * xn;
      xv[k] = xn;
    }
    store_group<Accumulate, T>(x, i, xv);
  }
  store_vec(dp + i0 * ws, xn);
}

}  // namespace triax::detail::cpu::TRIAX_CPU_ISA
