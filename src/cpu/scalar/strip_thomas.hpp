#pragma once
// cpu_thomas: Thomas vectorised across a strip of neighbouring systems (paper 000, s.5, the
// y and z directions). Systems that are neighbours along the fastest batch dimension have their
// row i side by side in memory, so each row of the strip is one contiguous run that the lane
// loops read directly. The strip is narrow enough that its c', d' (d' in x's own rows when the
// solve is in place) stay in the caches between the forward and the backward pass. Operands
// whose lanes are not contiguous (broadcast coefficients, odd strides) are gathered into a row
// buffer first.

#include <algorithm>
#include <cstdint>
#include <optional>

#include "core/problem.hpp"
#include "cpu/scalar/stream_store.hpp"
#include "cpu/scalar/thomas_lanes.hpp"

#ifndef TRIAX_CPU_ISA
#error "kernel headers are included through cpu/solve_batch.inc, which names the instruction set"
#endif

namespace triax::detail::cpu::TRIAX_CPU_ISA {

/// Where one strip lies: w systems starting at system s0, all in one line of batch dimension 0.
struct Strip {
  std::int64_t s0;
  int w;
};

/// Per-thread scratch of the strip kernel, `width` lanes: c', d' for every row, then a row
/// buffer per operand and the checked-mode bookkeeping.
template <class T>
struct StripScratch {
  T* cp;
  T* dp;
  T* rows[operand_count];
  int* info;  // 2 * width
};

/// Each row of a strip is a separate run of memory a row stride from the last, which the
/// hardware prefetcher does not follow from one run to the next: the forward pass asks for the
/// rows it will read rows_ahead rows later (prefetcht1) while it works on the current one,
/// spread over the row: one line of each operand before each line of lanes it computes. Asked
/// for as a burst of whole rows at the start of each row, the same prefetches made 256^3 along y
/// slower than none at all; spread, they gained 10-25% along y and z (docs/algorithms.md, "Rows
/// ahead": the runs, and the distances tried).
constexpr std::int64_t rows_ahead = 6;

/// Lanes per cache line: the unit in which the forward pass interleaves prefetches and arithmetic.
template <class T>
inline constexpr int line_lanes = 64 / static_cast<int>(sizeof(T));

/// Row i + rows_ahead of an operand whose lanes are contiguous and which changes along the
/// system, or null where there is nothing to prefetch.
template <class T>
inline const T* row_ahead(const T* base, std::int64_t i, std::int64_t n, std::int64_t row_stride,
                          std::int64_t lane_stride) {
  const bool wanted = i + rows_ahead < n && lane_stride == 1 && row_stride != 0;
  return wanted ? base + (i + rows_ahead) * row_stride : nullptr;
}

template <class T>
inline const T* lanes_from(const T* row, int j0) {
  return row != nullptr ? row + j0 : nullptr;
}

template <class T>
inline const T* lane_row(const T* base, std::int64_t lane_stride, int w, T* buffer) {
  if (lane_stride == 1) return base;
  for (int j = 0; j < w; ++j) buffer[j] = base[j * lane_stride];
  return buffer;
}

template <bool Accumulate, bool Checked, Guard G, class T>
void strip_thomas(const Problem& p, const Operands<T>& ops, Strip strip, StripScratch<T> s,
                  int width) {
  const std::int64_t n = p.n;
  const int w = strip.w;
  const T* in[op_x] = {ops.a, ops.b, ops.c, ops.d};
  std::int64_t off[operand_count], rs[operand_count], ls[operand_count];
  for (int op = 0; op < operand_count; ++op) {
    off[op] = p.system_offset(op, strip.s0);
    rs[op] = p.map[op].row_stride;
    ls[op] = p.batch_rank > 0 ? p.map[op].batch_strides[0] : 1;
  }
  LaneInfo info{s.info, s.info + width};
  if constexpr (Checked) std::fill(s.info, s.info + 2 * width, 0);

  // In place, d' goes over d in x's rows instead of into the scratch: between the passes the
  // caches keep c' and x's rows instead of c', d' and x's rows, and the backward pass stores
  // each value once (256^3 along y and z 7-15% faster, docs/algorithms.md, "d' over d"). Checked
  // mode inspects each stored row and keeps the scratch.
  const bool d_in_x = !Accumulate && !Checked && ops.x == ops.d && off[op_x] == off[op_d] &&
                      rs[op_x] == rs[op_d] && rs[op_x] != 0 && ls[op_x] == 1 && ls[op_d] == 1;
  T* const dp = d_in_x ? ops.x + off[op_x] : s.dp;
  const std::int64_t ds = d_in_x ? rs[op_x] : width;

  // One matrix for every system: its pivots once per strip (SharedMatrix), the lanes carry d'.
  const bool shared = width >= 4 && SharedMatrix<T>::applies(p, Checked);
  std::optional<SharedMatrix<T>> m;
  if (shared) {
    m.emplace(s.cp, n, in[op_a] + off[op_a], rs[op_a], in[op_b] + off[op_b], rs[op_b],
              in[op_c] + off[op_c], rs[op_c]);
    for (std::int64_t i = 0; i < n; ++i) {
      const T* next = row_ahead(in[op_d] + off[op_d], i, n, rs[op_d], ls[op_d]);
      const T* d = lane_row(in[op_d] + off[op_d] + i * rs[op_d], ls[op_d], w, s.rows[op_d]);
      T* dpi = dp + i * ds;
      const T* dp_prev = dp + (i > 0 ? i - 1 : 0) * ds;
      for (int j0 = 0; j0 < w; j0 += line_lanes<T>) {
        if (next != nullptr) __builtin_prefetch(next + j0, 0, 2);
        const int l = std::min(line_lanes<T>, w - j0);
        forward_row_shared(l, i, m->av[i], m->m[i], m->r[i], d + j0, dp_prev + j0, dpi + j0);
      }
    }
  }

  // An operand that does not change along the systems (row stride 0: a broadcast coefficient)
  // whose lanes are not contiguous is gathered once for the whole strip, not at every row.
  bool fixed[op_x];
  for (int op = op_a; op < op_x; ++op) {
    fixed[op] = !shared && rs[op] == 0 && ls[op] != 1 && operand_read(op, n);
    if (fixed[op]) lane_row(in[op] + off[op], ls[op], w, s.rows[op]);
  }
  for (std::int64_t i = 0; i < n && !shared; ++i) {
    const T* row[op_x];
    const T* next[op_x];
    for (int op = op_a; op < op_x; ++op) {
      next[op] = row_ahead(in[op] + off[op], i, n, rs[op], ls[op]);
      // a[0] and c[n-1] are never read.
      if ((op == op_a && i == 0) || (op == op_c && i == n - 1)) {
        row[op] = nullptr;
        continue;
      }
      row[op] =
          fixed[op] ? s.rows[op] : lane_row(in[op] + off[op] + i * rs[op], ls[op], w, s.rows[op]);
    }
    // One line of lanes at a time; whole lines with a constant count, which the lane loop is
    // compiled for.
    const auto line = [&](int j0, int lanes) {
      for (int op = op_a; op < op_x; ++op) {
        if (next[op] != nullptr) __builtin_prefetch(next[op] + j0, 0, 2);
      }
      forward_rows<Checked, G>(lanes, n, i, i + 1, lanes_from(row[op_a], j0),
                                        row[op_b] + j0, lanes_from(row[op_c], j0), row[op_d] + j0,
                                        0, s.cp + j0, width, dp + j0, ds, info.from(j0));
    };
    int j0 = 0;
    for (; j0 + line_lanes<T> <= w; j0 += line_lanes<T>) line(j0, line_lanes<T>);
    if (j0 < w) line(j0, w - j0);
  }

  // A separate output is streamed past the caches (measured 5-10% faster on 256^3 along y and
  // z); in place, x's lines are d's, still cached from the forward pass, and plain stores win.
  const bool stream_output = !Accumulate && !Checked && ops.x != ops.d;
  T* x = ops.x + off[op_x];
  for (std::int64_t i = n - 1; i >= 0; --i) {
    if (!shared) {
      backward_rows(w, n, i, i + 1, s.cp, width, dp, ds);
    } else if (i + 1 < n) {
      backward_row_shared(w, m->cp[i], dp + i * ds, dp + (i + 1) * ds);
    }
    if (d_in_x) continue;  // x is already in place
    const T* xs = s.dp + i * width;
    T* out = x + i * rs[op_x];
    if (ls[op_x] == 1 && stream_output) {
      stream_row(w, xs, out);
    } else if (ls[op_x] == 1) {
      store_row<Accumulate, Checked>(w, i, xs, out, info);
    } else {
      T* buf = s.rows[op_x];
      if constexpr (Accumulate) {
        for (int j = 0; j < w; ++j) buf[j] = out[j * ls[op_x]];
      }
      store_row<Accumulate, Checked>(w, i, xs, buf, info);
      for (int j = 0; j < w; ++j) out[j * ls[op_x]] = buf[j];
    }
  }
  if (stream_output) stream_fence();
  if constexpr (Checked) {
    for (int j = 0; j < w; ++j) ops.info[strip.s0 + j] = final_info(info, j);
  }
}

}  // namespace triax::detail::cpu::TRIAX_CPU_ISA
