#pragma once
// cpu_thomas_transpose: Thomas along axis 0, where each system is contiguous and neighbouring
// systems are far apart (paper 000, s.5, Figures 5 and 6). A group of W systems is processed
// together: a block of R rows of each is read (one cache line per system and operand),
// transposed into a tile so that row r of all W systems is contiguous, and the lane arithmetic
// runs on the tile. The solution is transposed back on the way out. Any n (the last block is
// short), any number of systems (the last group repeats its last system in the unused lanes and
// never stores them), any strides.

#include <algorithm>
#include <cstdint>

#include "core/problem.hpp"
#include "cpu/thomas_lanes.hpp"

namespace triax::detail::cpu {

template <class T>
struct TileShape {
  static constexpr int lanes = 64 / sizeof(T) >= 8 ? 64 / sizeof(T) : 8;  // W
  static constexpr int rows = 64 / sizeof(T);                              // R, one cache line
};

/// Per-thread scratch of the transpose kernel: c', d' for every row of W lanes, four R x W
/// tiles, and the checked-mode bookkeeping.
template <class T>
struct TileScratch {
  T* cp;
  T* dp;
  T* tile[op_x];
  int* info;  // 2 * W
  static std::size_t elements(std::int64_t n) {
    return static_cast<std::size_t>(2 * n + op_x * TileShape<T>::rows) * TileShape<T>::lanes;
  }
};

template <bool Accumulate, bool Checked, class T>
void transpose_thomas(const Problem& p, const Operands<T>& ops, std::int64_t s0, int w,
                      TileScratch<T> s) {
  constexpr int W = TileShape<T>::lanes;
  constexpr int R = TileShape<T>::rows;
  const std::int64_t n = p.n;
  const T* in[op_x] = {ops.a, ops.b, ops.c, ops.d};
  std::int64_t base[operand_count][W];
  std::int64_t rs[operand_count];
  for (int op = 0; op < operand_count; ++op) {
    rs[op] = p.map[op].row_stride;
    for (int j = 0; j < W; ++j) base[op][j] = p.system_offset(op, s0 + std::min(j, w - 1));
  }
  LaneInfo info{s.info, s.info + W};
  if constexpr (Checked) std::fill(s.info, s.info + 2 * W, 0);

  for (std::int64_t i0 = 0; i0 < n; i0 += R) {
    const int rows = static_cast<int>(std::min<std::int64_t>(R, n - i0));
    for (int op = op_a; op < op_x; ++op) {
      // a[0] and c[n-1] are never read.
      const int r_begin = (op == op_a && i0 == 0) ? 1 : 0;
      const int r_end = op == op_c ? static_cast<int>(std::min<std::int64_t>(rows, n - 1 - i0))
                                   : rows;
      const T* src = in[op];
      T* tile = s.tile[op];
      for (int j = 0; j < W; ++j) {
        const T* sys = src + base[op][j] + i0 * rs[op];
        for (int r = r_begin; r < r_end; ++r) tile[r * W + j] = sys[r * rs[op]];
      }
    }
    forward_rows<Checked>(W, n, i0, i0 + rows, s.tile[op_a], s.tile[op_b], s.tile[op_c],
                          s.tile[op_d], W, s.cp, s.dp, W, info);
  }

  const std::int64_t last_block = ((n - 1) / R) * R;
  for (std::int64_t i0 = last_block; i0 >= 0; i0 -= R) {
    const int rows = static_cast<int>(std::min<std::int64_t>(R, n - i0));
    backward_rows(W, n, i0, i0 + rows, s.cp, s.dp, W);
    for (int j = 0; j < w; ++j) {
      T* out = ops.x + base[op_x][j] + i0 * rs[op_x];
      const T* xs = s.dp + i0 * W + j;
      for (int r = 0; r < rows; ++r) {
        const T v = Accumulate ? out[r * rs[op_x]] + xs[r * W] : xs[r * W];
        out[r * rs[op_x]] = v;
        if constexpr (Checked) {
          const int row = static_cast<int>(i0 + r + 1);
          if (!is_finite(v) && row > info.backward[j]) info.backward[j] = row;
        }
      }
    }
  }
  if constexpr (Checked) {
    for (int j = 0; j < w; ++j) ops.info[s0 + j] = final_info(info, j);
  }
}

}  // namespace triax::detail::cpu
