#pragma once
// cpu_thomas: Thomas vectorised across a strip of neighbouring systems (paper 000, s.5, the
// y and z directions). Systems that are neighbours along the fastest batch dimension have their
// row i side by side in memory, so each row of the strip is one contiguous run that the lane
// loops read directly. The strip is narrow enough that its c', d' (and the rows just read) stay
// in L2 between the forward and the backward pass. Operands whose lanes are not contiguous
// (broadcast coefficients, odd strides) are gathered into a row buffer first.

#include <algorithm>
#include <cstdint>
#include <optional>

#include "core/problem.hpp"
#include "cpu/stream_store.hpp"
#include "cpu/thomas_lanes.hpp"

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
/// rows it will read rows_ahead rows later (prefetcht1, every line of the run) while it works on
/// the current one. 256^3, alternating runs on the development VM, medians: along z double 38-39
/// ms -> 30-32, float 15.1-17.6 -> 14.6-15.1; along y double 29-33 -> 27-28, float 14.3-14.6 ->
/// 12.8-13.1; apps/adi_heat (one matrix: d alone) double 256^3 y 16.5-19.0 ms per step
/// -> 13.2-14.9. Distances of 1 to 6 rows all gained; 4 was the most even.
constexpr std::int64_t rows_ahead = 4;

template <class T>
inline void prefetch_run(const T* run, int w) {
  for (int j = 0; j < w; j += 64 / static_cast<int>(sizeof(T))) __builtin_prefetch(run + j, 0, 2);
}

template <class T>
inline const T* lane_row(const T* base, std::int64_t lane_stride, int w, T* buffer) {
  if (lane_stride == 1) return base;
  for (int j = 0; j < w; ++j) buffer[j] = base[j * lane_stride];
  return buffer;
}

template <bool Accumulate, bool Checked, class T>
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

  // One matrix for every system: its pivots once per strip (SharedMatrix), the lanes carry d'.
  const bool shared = width >= 3 && SharedMatrix<T>::applies(p, Checked);
  std::optional<SharedMatrix<T>> m;
  if (shared) {
    m.emplace(s.cp, n, in[op_a] + off[op_a], rs[op_a], in[op_b] + off[op_b], rs[op_b],
              in[op_c] + off[op_c], rs[op_c]);
    for (std::int64_t i = 0; i < n; ++i) {
      if (ls[op_d] == 1 && i + rows_ahead < n) {
        prefetch_run(in[op_d] + off[op_d] + (i + rows_ahead) * rs[op_d], w);
      }
      const T* d = lane_row(in[op_d] + off[op_d] + i * rs[op_d], ls[op_d], w, s.rows[op_d]);
      forward_row_shared(w, i, m->av[i], m->r[i], d, s.dp + (i > 0 ? i - 1 : 0) * width,
                         s.dp + i * width);
    }
  }

  // An operand that does not change along the systems (row stride 0: a broadcast coefficient)
  // whose lanes are not contiguous is gathered once for the whole strip, not at every row.
  bool fixed[op_x];
  for (int op = op_a; op < op_x; ++op) {
    fixed[op] = !shared && rs[op] == 0 && ls[op] != 1;
    if (fixed[op]) lane_row(in[op] + off[op], ls[op], w, s.rows[op]);
  }
  for (std::int64_t i = 0; i < n && !shared; ++i) {
    for (int op = op_a; op < op_x && i + rows_ahead < n; ++op) {
      if (ls[op] == 1 && rs[op] != 0) prefetch_run(in[op] + off[op] + (i + rows_ahead) * rs[op], w);
    }
    const T* row[op_x];
    for (int op = op_a; op < op_x; ++op) {
      // a[0] and c[n-1] are never read.
      if ((op == op_a && i == 0) || (op == op_c && i == n - 1)) {
        row[op] = nullptr;
        continue;
      }
      row[op] =
          fixed[op] ? s.rows[op] : lane_row(in[op] + off[op] + i * rs[op], ls[op], w, s.rows[op]);
    }
    forward_rows<Checked>(w, n, i, i + 1, row[op_a], row[op_b], row[op_c], row[op_d], 0, s.cp, s.dp,
                          width, info);
  }

  // A separate output is streamed past the caches (measured 5-10% faster on 256^3 along y and
  // z); in place, x's lines are d's, still cached from the forward pass, and plain stores win.
  const bool stream_output = !Accumulate && !Checked && ops.x != ops.d;
  T* x = ops.x + off[op_x];
  for (std::int64_t i = n - 1; i >= 0; --i) {
    if (!shared) {
      backward_rows(w, n, i, i + 1, s.cp, s.dp, width);
    } else if (i + 1 < n) {
      backward_row_shared(w, m->cp[i], s.dp + i * width, s.dp + (i + 1) * width);
    }
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
