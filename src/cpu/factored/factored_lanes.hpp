#pragma once
// The CPU kernel of triax::FactoredSolver: W systems at once as SIMD lanes, the factors read
// from the plan's small table (one row of three values per matrix row, or the few rows of a
// compressed near-Toeplitz table, which stay in L1). Neighbouring systems along the fastest
// batch dimension are the lanes: along axes >= 1 their row i is one contiguous run (the strip
// kernel's reading order), along axis 0 each lane is gathered from its own system (rows
// contiguous per system, so each cache line serves several consecutive rows).
//
// Forward:  d'[i] = (d[i] - a[i] d'[i-1]) r[i]   ((s d[i] - ...) where the table is scaled)
// Backward: x[n-1] = d'[n-1],  x[i] = d'[i] - c'[i] x[i+1], stored (or added) row by row.
// d is read completely in the forward pass, so x may be d (in place).

#include <algorithm>
#include <cstdint>
#include <limits>

#include "core/factored/factor_table.hpp"
#include "core/factored/factored_plan.hpp"
#include "core/problem.hpp"

namespace triax::detail::cpu_factored {

template <class T>
inline bool is_finite(T v) {
  return (v < T(0) ? -v : v) <= std::numeric_limits<T>::max();
}

/// Per-thread scratch: d' of every row for W lanes, a row buffer, checked-mode bookkeeping.
template <class T>
struct Scratch {
  T* dp;       // n x W
  T* row;      // W
  int* first;  // W: first row with a non-finite d'
  int* last;   // W: last row with a non-finite stored value
};

/// w systems s0 .. s0 + w - 1, neighbours along the fastest batch dimension.
template <bool Accumulate, bool Checked, bool Scaled, class T>
void solve_lanes(const Problem& p, const FactoredOperands<T>& ops, const FactorView<T>& f,
                 std::int64_t s0, int w, int width, Scratch<T> s) {
  const std::int64_t n = p.n;
  const std::int64_t od = p.system_offset(op_d, s0), ox = p.system_offset(op_x, s0);
  const std::int64_t rd = p.map[op_d].row_stride, rx = p.map[op_x].row_stride;
  const std::int64_t ld = p.batch_rank > 0 ? p.map[op_d].batch_strides[0] : 1;
  const std::int64_t lx = p.batch_rank > 0 ? p.map[op_x].batch_strides[0] : 1;
  const T* d = ops.d + od;
  T* x = ops.x + ox;
  if constexpr (Checked) {
    std::fill(s.first, s.first + w, 0);
    std::fill(s.last, s.last + w, 0);
  }
  for (std::int64_t i = 0; i < n; ++i) {
    const T* fr = f.rows + 3 * f.index(i);
    const T ai = fr[0], ri = fr[1];
    const T* di = d + i * rd;
    if (ld != 1) {
      for (int j = 0; j < w; ++j) s.row[j] = di[j * ld];
      di = s.row;
    }
    T* __restrict dpi = s.dp + i * width;
    const T* __restrict prev = s.dp + (i > 0 ? i - 1 : 0) * width;
    const T ap = i > 0 ? ai : T(0);
const T s0 = f.scale[0], s1 = f.scale[1];
#pragma omp simd
    for (int j = 0; j < w; ++j) {
      const T dj = Scaled ? (di[j] * s0) * s1 : di[j];
      dpi[j] = (dj - ap * prev[j]) * ri;
    }
    if constexpr (Checked) {
      for (int j = 0; j < w; ++j) {
        if (s.first[j] == 0 && !is_finite(dpi[j])) s.first[j] = static_cast<int>(i + 1);
      }
    }
  }
  for (std::int64_t i = n - 1; i >= 0; --i) {
    T* __restrict dpi = s.dp + i * width;
    if (i + 1 < n) {
      const T cpi = f.rows[3 * f.index(i) + 2];
      const T* __restrict next = s.dp + (i + 1) * width;
#pragma omp simd
      for (int j = 0; j < w; ++j) dpi[j] -= cpi * next[j];
    }
    T* xi = x + i * rx;
    if (lx == 1) {
#pragma omp simd
      for (int j = 0; j < w; ++j) xi[j] = Accumulate ? xi[j] + dpi[j] : dpi[j];
    } else {
      for (int j = 0; j < w; ++j) xi[j * lx] = Accumulate ? xi[j * lx] + dpi[j] : dpi[j];
    }
    if constexpr (Checked) {
      for (int j = 0; j < w; ++j) {
        if (s.last[j] == 0 && !is_finite(xi[j * lx])) s.last[j] = static_cast<int>(i + 1);
      }
    }
  }
  if constexpr (Checked) {
    for (int j = 0; j < w; ++j) {
      ops.info[s0 + j] = f.breakdown != 0 ? f.breakdown : s.first[j] != 0 ? s.first[j] : s.last[j];
    }
  }
}

}  // namespace triax::detail::cpu_factored
