#pragma once
// cpu_thomas_transpose: Thomas along axis 0, where each system is contiguous and neighbouring
// systems are far apart (paper 000, s.5, Figures 5 and 6). A group of W systems is processed
// together: a block of R rows of each is read with vector loads, transposed in registers so
// that row r of all W systems is contiguous, and the lane arithmetic runs on that tile. The
// back substitution leaves x in the same tile form, and it is transposed back on the way out.
// Blocks that are not whole (the tail of n, the last group of systems, rows that are not
// contiguous) take a scalar path that does the same with plain loops; so does checked mode's
// store, which inspects every value.

#include <algorithm>
#include <cstdint>
#include <optional>

#include "core/problem.hpp"
#include "cpu/batch.hpp"
#include "cpu/scalar/register_thomas.hpp"
#include "cpu/scalar/simd_transpose.hpp"
#include "cpu/scalar/thomas_lanes.hpp"

#ifndef TRIAX_CPU_ISA
#error "kernel headers are included through cpu/solve_batch.inc, which names the instruction set"
#endif

namespace triax::detail::cpu::TRIAX_CPU_ISA {

/// Per-thread scratch of the transpose kernel: c', d' for every row of W lanes, four R x W
/// tiles, and the checked-mode bookkeeping.
template <class T>
struct TileScratch {
  T* cp;
  T* dp;
  T* tile[op_x];
  int* info;  // 2 * W
};

/// What the solve reads of each coefficient operand over the whole problem, [lo, hi): from system
/// 0's first row read (row 1 for a) to one past the last system's last (row n - 2 for c). Strides
/// are never negative, so those two systems hold the ends, and every element between them is in
/// the caller's array. A load inside the span may reach past a system's rows (into the next
/// system, a ghost layer, a gap) and stays in the caller's memory; a load outside it might not
/// (a[0] and c[n-1] of the array's ends are never read: the array may end before them). Null
/// for an operand that is not read.
template <class T>
struct ReadSpans {
  const T* lo[op_x] = {};
  const T* hi[op_x] = {};
  bool on = false;  // made by of(): short rows by whole vectors, x's too (partial stores)

  static ReadSpans of(const Problem& p, const Operands<T>& ops) {
    ReadSpans s;
    s.on = true;
    const T* base[op_x] = {ops.a, ops.b, ops.c, ops.d};
    for (int op = op_a; op < op_x; ++op) {
      if (!operand_read(op, p.n) || p.count == 0) continue;
      const std::int64_t rs = p.map[op].row_stride;
      const std::int64_t first = op == op_a ? 1 : 0;
      const std::int64_t last = op == op_c ? p.n - 2 : p.n - 1;
      s.lo[op] = base[op] + p.system_offset(op, 0) + first * rs;
      s.hi[op] = base[op] + p.system_offset(op, p.count - 1) + last * rs + 1;
    }
    return s;
  }

  /// Whether rows [first, first + rows) of every system whose row 0 is at sys[0 .. W) lie in
  /// op's span (rows contiguous).
  template <int W>
  bool hold(int op, const T* const* sys, std::int64_t first, int rows) const {
    if (lo[op] == nullptr) return false;
    for (int j = 0; j < W; ++j) {
      if (sys[j] + first < lo[op] || sys[j] + first + rows > hi[op]) return false;
    }
    return true;
  }
};

/// Reads count contiguous values from p, one per cache line, so that they are in the caches;
/// volatile keeps the loads, whose values are not used.
template <class T>
inline void read_lines(const T* p, std::int64_t count) {
  constexpr std::int64_t per_line = 64 / sizeof(T);
  for (std::int64_t k = 0; k < count; k += per_line) {
    static_cast<void>(*static_cast<const volatile T*>(p + k));
  }
  static_cast<void>(*static_cast<const volatile T*>(p + count - 1));
}

template <bool Accumulate, bool Checked, Guard G, class T>
void transpose_thomas(const Problem& p, const Operands<T>& ops, const ReadSpans<T>& spans,
                      std::int64_t s0, int w, TileScratch<T> s) {
  constexpr int W = TileShape<T>::lanes;
  constexpr int R = TileShape<T>::rows;
  const std::int64_t n = p.n;
  const T* in[op_x] = {ops.a, ops.b, ops.c, ops.d};
  const T* src[op_x][W];
  T* dst[W];
  std::int64_t rs[operand_count];
  for (int op = 0; op < operand_count; ++op) rs[op] = p.map[op].row_stride;
  SystemWalk walk(p, s0);
  for (int j = 0; j < W; ++j) {
    // Lanes past the last system repeat it: they are computed but never stored.
    if (j > 0 && j < w) walk.next();
    for (int op = 0; op < op_x; ++op) src[op][j] = in[op] + walk.offset[op];
    dst[j] = ops.x + walk.offset[op_x];
  }
  LaneInfo info{s.info, s.info + W};
  if constexpr (Checked) std::fill(s.info, s.info + 2 * W, 0);

  constexpr int V = Vec<T>::lanes;
  // One matrix for every system: its pivots once (SharedMatrix), and only d goes through tiles.
  const bool shared = SharedMatrix<T>::applies(p, Checked);
  std::optional<SharedMatrix<T>> m;
  if (shared) {
    m.emplace(s.cp, n, src[op_a][0], rs[op_a], src[op_b][0], rs[op_b], src[op_c][0], rs[op_c]);
  }
  // A coefficient that does not change along the system (row stride 0: a broadcast, as constant-
  // coefficient schemes pass) has the same tile in every block: fill it once.
  for (int op = op_a; op < op_x; ++op) {
    if (rs[op] != 0 || (shared && op != op_d) || !operand_read(op, n)) continue;
    for (int r = 0; r < R; ++r) {
      for (int j = 0; j < W; ++j) s.tile[op][r * W + j] = *src[op][j];
    }
  }
  // The transposed loads below take a few rows of each of W systems at a time: 4 W short runs
  // at once, too many for the hardware prefetcher, so each load waited on memory. Reading the
  // rows first in memory order (one load per cache line, system after system) streams them into
  // the caches at the speed of a linear read, and the transposed loads then hit. A chunk of rows
  // is staged at a time, small enough that the chunk stays in a 512 KiB L2 beside c' and d'.
  // 256^3 along x (this VM, alternating runs; double then prefetching the next group into L2
  // instead): float 29.3-30.4 ms -> 24.9-25.8, double 54.6-55.0 -> 45.9-46.1. Prefetches or
  // loads of the next group spread over this one's blocks did not do it (docs/algorithms.md).
  constexpr std::int64_t stage_bytes = 256 * 1024;
  constexpr std::int64_t stage_rows =
      std::max<std::int64_t>(R, stage_bytes / (op_x * W * sizeof(T)) / R * R);
  // Systems shorter than a cache line skip the staging: it would read the very lines that the
  // loads below read next, one or two a system, with no run long enough for the prefetcher to
  // miss. Development VM (AVX-512, one thread, perf samples in this kernel, A/B pairs,
  // 2026-11-28): 2 x 1022223 along x 0.73-1.2x (5 of 6 pairs fewer), 7 x 600000 0.52-0.75x (4
  // of 4); not measured on the 16-core host.
  const bool stage = n * static_cast<std::int64_t>(sizeof(T)) >= 64;
  for (std::int64_t i0 = 0; i0 < n; i0 += R) {
    if (stage && i0 % stage_rows == 0) {
      const std::int64_t end = std::min(n, i0 + stage_rows);
      for (int op = op_a; op < op_x; ++op) {
        if (rs[op] != 1 || (shared && op != op_d)) continue;
        // a[0] and c[n-1] are not read.
        const std::int64_t first = (op == op_a && i0 == 0) ? 1 : i0;
        const std::int64_t last = op == op_c ? std::min(end, n - 1) : end;
        for (int j = 0; first < last && j < w; ++j) read_lines(src[op][j] + first, last - first);
      }
    }
    const int rows = static_cast<int>(std::min<std::int64_t>(R, n - i0));
    // Whole vectors of rows go through the register transpose; a ragged tail, or an operand
    // whose rows are not contiguous (a broadcast coefficient, say), takes plain loops. a[0] and
    // c[n-1] are never read (the caller's array may end before them): the vector of rows that
    // holds one of them takes the plain loops too, once per group and operand.
    for (int op = op_a; op < op_x; ++op) {
      if (rs[op] == 0 || (shared && op != op_d)) continue;  // filled above, or not needed
      // Rows [r_begin, r_end) of the block are read, [v_begin, v_end) of them by vectors.
      const int r_begin = (op == op_a && i0 == 0) ? 1 : 0;
      const int r_end =
          op == op_c ? static_cast<int>(std::min<std::int64_t>(rows, n - 1 - i0)) : rows;
      int v_begin = r_begin == 0 ? 0 : V;
      int v_end = rs[op] == 1 ? r_end / V * V : 0;
      // Rows that are not whole vectors (a system shorter than a vector, the tail of n, a[0],
      // c[n-1]) are read by whole vectors too where every lane's load stays in what the solve
      // reads of this operand (ReadSpans): the extra rows land in tile rows the arithmetic never
      // reads. Only where half a vector or more would be copied element by element: the 16-core
      // Xeon host (16 threads, float along x, 2026-11-28) took 0.81-0.94x the time at n = 5 to 31,
      // but 1.12-1.14x at n = 2 (a whole vector of transposes for two rows); double was level.
      const int elementwise =
          v_end > v_begin ? (v_begin - r_begin) + (r_end - v_end) : r_end - r_begin;
      if (rs[op] == 1 && 2 * elementwise >= V) {
        const int whole = (rows + V - 1) / V * V;
        if (spans.template hold<W>(op, src[op], i0, whole)) {
          v_begin = 0;
          v_end = whole;
        }
      }
      T* tile = s.tile[op];
      if (v_end > v_begin) {
        load_transposed<T, W>(src[op], i0 + v_begin, v_end - v_begin, tile + v_begin * W);
      }
      const auto scalar_rows = [&](int r0, int r1) {
        for (int j = 0; r0 < r1 && j < W; ++j) {
          const T* sys = src[op][j] + i0 * rs[op];
          for (int r = r0; r < r1; ++r) tile[r * W + j] = sys[r * rs[op]];
        }
      };
      if (v_end > v_begin) {
        scalar_rows(r_begin, v_begin);
        scalar_rows(v_end, r_end);
      } else {
        scalar_rows(r_begin, r_end);
      }
    }
    if (shared) {
      for (std::int64_t i = i0; i < i0 + rows; ++i) {
        forward_row_shared(W, i, m->av[i], m->m[i], m->r[i], s.tile[op_d] + (i - i0) * W,
                           s.dp + (i > 0 ? i - 1 : 0) * W, s.dp + i * W);
      }
    } else {
      forward_rows<Checked, G>(W, n, i0, i0 + rows, s.tile[op_a], s.tile[op_b],
                                        s.tile[op_c], s.tile[op_d], W, s.cp, W, s.dp, W, info);
    }
  }

  // Whole blocks of rows are substituted straight into the output transpose
  // (register_thomas.hpp) where x's rows are contiguous, every lane is a system (the tile path
  // never stores the repeated ones) and no value needs inspecting: 3-5% faster with everything
  // in the caches, level from memory on the 2-core VM, and 256^3 along x with 16 threads of the
  // GPU machine's Intel host float 5.3-5.5 ms -> 4.1-4.9 (docs/algorithms.md).
  const bool direct = !Checked && w == W && rs[op_x] == 1;
  const std::int64_t last_block = ((n - 1) / R) * R;
  for (std::int64_t i0 = last_block; i0 >= 0; i0 -= R) {
    const int rows = static_cast<int>(std::min<std::int64_t>(R, n - i0));
    if (direct && rows == R) {
      for (int jb = 0; jb < W; jb += V) {
        if (shared) {
          const auto cp_row = [&](std::int64_t i) { return typename Vec<T>::type{} + m->cp[i]; };
          backward_column<Accumulate, R>(dst + jb, n, i0, cp_row, s.dp + jb, W);
        } else {
          const T* cp = s.cp + jb;
          const auto cp_row = [cp](std::int64_t i) { return load_vec(cp + i * W); };
          backward_column<Accumulate, R>(dst + jb, n, i0, cp_row, s.dp + jb, W);
        }
      }
      continue;
    }
    if (shared) {
      for (std::int64_t i = std::min(i0 + rows, n - 1) - 1; i >= i0; --i) {
        backward_row_shared(W, m->cp[i], s.dp + i * W, s.dp + (i + 1) * W);
      }
    } else {
      backward_rows(W, n, i0, i0 + rows, s.cp, W, s.dp, W);
    }
    const T* xs = s.dp + i0 * W;  // rows [i0, i0 + rows) of x, in tile form
    const bool whole = !Checked && rs[op_x] == 1 && w == W;
    int fast_rows = whole ? rows / V * V : 0;
    if (fast_rows > 0) {
      // Streaming stores (past the caches), which help the strip kernel, measured 10% slower
      // here: the tile's runs of each system are short.
      store_transposed<Accumulate, T, W>(xs, fast_rows, dst, i0);
    }
#if defined(TRIAX_CPU_HAS_STORE_ROWS_FIRST)
    // The rows left, half a vector or more, through the transpose and partial stores, as the loads
    // above take them. The tile rows read past them are the workspace's (the tiles follow d').
    if (whole && spans.on && 2 * (rows - fast_rows) >= V) {
      store_transposed_first<Accumulate, T, W>(xs + fast_rows * W, rows - fast_rows, dst,
                                               i0 + fast_rows);
      fast_rows = rows;
    }
#endif
    for (int j = 0; fast_rows < rows && j < w; ++j) {
      T* out = dst[j] + i0 * rs[op_x];
      for (int r = fast_rows; r < rows; ++r) {
        const T v = Accumulate ? out[r * rs[op_x]] + xs[r * W + j] : xs[r * W + j];
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

}  // namespace triax::detail::cpu::TRIAX_CPU_ISA
