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
#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/factored/factor_table.hpp"
#include "core/factored/factored_plan.hpp"
#include "core/problem.hpp"

#ifndef TRIAX_FACTORED_ISA
#error "factored_lanes.hpp is included through cpu/factored/strips.inc, which names the instruction set"
#endif

#include "cpu/factored/block_transpose.hpp"
#include "cpu/factored/register_lanes.hpp"
#include "cpu/factored/strip_work.hpp"

// The streaming row store of the scalar kernels (stream_row, stream_fence), compiled into this
// instruction set's namespace of theirs (the same flags as their copy of it).
#define TRIAX_CPU_ISA TRIAX_FACTORED_ISA
#include "cpu/scalar/stream_store.hpp"
#undef TRIAX_CPU_ISA

// One namespace per instruction set: the header is compiled twice with different flags, and
// the copies must not meet at link time.
namespace triax::detail::cpu_factored::TRIAX_FACTORED_ISA {

using cpu::TRIAX_FACTORED_ISA::stream_fence;

/// out[j] = v[j] for j < w: whole 64-byte lines of out streamed, the partial lines at either end
/// stored plainly (a partly written streamed line goes to memory as a partial write).
template <class T>
inline void stream_lines(int w, const T* __restrict v, T* __restrict out) {
  constexpr int L = 64 / static_cast<int>(sizeof(T));
  const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(out);
  const int lead = at % sizeof(T) != 0 ? w : static_cast<int>((64 - at % 64) % 64 / sizeof(T));
  int j = 0;
  for (; j < std::min(lead, w); ++j) out[j] = v[j];
  for (; j + L <= w; j += L) cpu::TRIAX_FACTORED_ISA::stream_row(L, v + j, out + j);
  for (; j < w; ++j) out[j] = v[j];
}

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

/// The bound's backward step (strip_work.hpp): `own` bit for bit, `other` (d' of the row after)
/// loaded as the solve loads it and ANDed with `zero`, which is 0 at run time but opaque to the
/// compiler: the same loads and stores as `own -= c' other`, no floating-point operation.
template <class T>
using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
template <class T>
inline T keep_own(T own, T other, Bits<T> zero) {
  return std::bit_cast<T>(std::bit_cast<Bits<T>>(own) | (std::bit_cast<Bits<T>>(other) & zero));
}

/// w systems s0 .. s0 + w - 1, neighbours along the fastest batch dimension. `registers`:
/// whole groups along axis 0 may take the register-transpose kernel (register_lanes.hpp).
/// Bound: x = d through the same passes, loads and stores, no arithmetic (strip_work.hpp).
template <bool Accumulate, bool Checked, bool Scaled, bool Bound, class T>
void solve_lanes(const Problem& p, const FactoredOperands<T>& ops, const FactorView<T>& f,
                 std::int64_t s0, int w, int width, Scratch<T> s, const StripTuning& t,
                 bool registers = true) {
  const std::int64_t n = p.n;
  const std::int64_t od = p.system_offset(op_d, s0), ox = p.system_offset(op_x, s0);
  const std::int64_t rd = p.map[op_d].row_stride, rx = p.map[op_x].row_stride;
  const std::int64_t ld = p.batch_rank > 0 ? p.map[op_d].batch_strides[0] : 1;
  const std::int64_t lx = p.batch_rank > 0 ? p.map[op_x].batch_strides[0] : 1;
  const T* d = ops.d + od;
  T* x = ops.x + ox;
  // In place the maps of d and x are the same (factored_plan.hpp): x's lines are d's, cached
  // by the forward step, so they are never streamed.
  const bool in_place = static_cast<const T*>(x) == d && rd == rx && ld == lx;
  const bool gathered = ld != 1;
  if constexpr (!Checked) {
    constexpr int V = register_group<T>;
    const bool this_copy = register_lanes_usable &&
                           (t.registers_every_isa || register_lanes_in_previous_round);
    if (registers && t.fresh && this_copy && gathered && rd == 1 && rx == 1 &&
        n >= block_rows<T> && w >= V) {
      const int whole = w - w % V;
      const bool stream = t.stream_registers && !in_place;
      for (int g = 0; g < whole; g += V) {
        solve_register_group<Accumulate, Scaled, Bound>(d + g * ld, ld, x + g * lx, lx, n, f, s.dp,
                                                        stream);
      }
      if (stream) stream_fence();
      if (whole < w) {
        solve_lanes<Accumulate, Checked, Scaled, Bound>(p, ops, f, s0 + whole, w - whole, width, s,
                                                        t, false);
      }
      return;
    }
  }
  if constexpr (Checked) {
    std::fill(s.first, s.first + w, 0);
    std::fill(s.last, s.last + w, 0);
  }
  // Lanes that are not contiguous (axis 0: each system's rows are) are gathered system by
  // system into the d' scratch first, each system's rows one contiguous run, and the solution
  // scattered back the same way: row by row the W gathers touched W lines at a time.
  if (gathered && rd == 1) {
    // Rows contiguous: register transposes of 8 x 8 floats / 4 x 4 doubles (AVX2).
    transpose_copy(d, ld, s.dp, width, n, w);
  } else if (gathered) {
    for (int j = 0; j < w; ++j) {
      const T* dj = d + j * ld;
      for (std::int64_t i = 0; i < n; ++i) s.dp[i * width + j] = dj[i * rd];
    }
  }
  // d' straight into x's rows where both d's and x's lanes are contiguous and x is stored, not
  // added to: the backward pass then turns x's rows into x in place, with no scratch between
  // (the strip kernel's "d' over d", docs/algorithms.md). Else d' lives in the scratch. A
  // separate output that is streamed (t.stream) keeps d' in the scratch instead: x's lines are
  // then written once, past the caches, and never read from memory first.
  const bool dp_in_x = !gathered && lx == 1 && !Accumulate &&
                       (!t.fresh || !t.stream || in_place || Checked);
  const bool stream_x = t.fresh && t.stream && !dp_in_x && !gathered && lx == 1 &&
                        !Accumulate && !Checked;
  T* const dp = dp_in_x ? x : s.dp;
  const std::int64_t ds = dp_in_x ? rx : width;
  const T s0f = f.scale[0], s1f = f.scale[1];
  // Rows of d (and of x where d' goes there) asked for t.ahead rows early, one line before each
  // line of lanes computed: each row is its own run a row stride from the last, which the
  // hardware prefetcher does not follow (the strip kernel's "Rows ahead", docs/algorithms.md).
  const std::int64_t ahead = t.fresh && !gathered ? t.ahead : 0;
  const bool ask_x = dp_in_x && !in_place;
  for (std::int64_t i = 0; i < n; ++i) {
    const T* fr = f.rows + 3 * f.index(i);
    const T ai = fr[0], ri = fr[1];
    // d' of the row overwrites its d where gathered: each lane reads before it writes.
    const T* di = gathered ? s.dp + i * width : d + i * rd;
    T* dpi = dp + i * ds;
    const T* pre_d = ahead > 0 && i + ahead < n ? d + (i + ahead) * rd : nullptr;
    if (i == 0) {
      // Row 0 has no a[0] d'[-1]: nothing else is read (0 times a stale NaN would be NaN).
#pragma omp simd
      for (int j = 0; j < w; ++j)
        dpi[j] = Bound ? di[j] : (Scaled ? (di[j] * s0f) * s1f : di[j]) * ri;
    } else if (pre_d != nullptr) {
      const T* __restrict prev = dp + (i - 1) * ds;
      T* pre_x = ask_x ? x + (i + ahead) * rx : nullptr;
      constexpr int L = 64 / static_cast<int>(sizeof(T));
      const auto part = [&](int j0, int l) {
        __builtin_prefetch(pre_d + j0, 0, 2);
        if (pre_x != nullptr) __builtin_prefetch(pre_x + j0, 1, 2);
#pragma omp simd
        for (int j = j0; j < j0 + l; ++j) {
          const T dj = Scaled ? (di[j] * s0f) * s1f : di[j];
          dpi[j] = Bound ? di[j] : (dj - ai * prev[j]) * ri;
        }
      };
      int j0 = 0;
      for (; j0 + L <= w; j0 += L) part(j0, L);
      if (j0 < w) part(j0, w - j0);
    } else {
      const T* __restrict prev = dp + (i - 1) * ds;
#pragma omp simd
      for (int j = 0; j < w; ++j) {
        const T dj = Scaled ? (di[j] * s0f) * s1f : di[j];
        dpi[j] = Bound ? di[j] : (dj - ai * prev[j]) * ri;
      }
    }
    if constexpr (Checked) {
      for (int j = 0; j < w; ++j) {
        if (s.first[j] == 0 && !is_finite(dpi[j])) s.first[j] = static_cast<int>(i + 1);
      }
    }
  }
  const bool scattered = lx != 1;
  Bits<T> zero = 0;
  if constexpr (Bound) asm volatile("" : "+r"(zero));  // 0, unknown to the compiler
  for (std::int64_t i = n - 1; i >= 0; --i) {
    T* __restrict dpi = dp + i * ds;
    if (i + 1 < n) {
      const T cpi = f.rows[3 * f.index(i) + 2];
      const T* __restrict next = dp + (i + 1) * ds;
      if constexpr (Bound) {
#pragma omp simd
        for (int j = 0; j < w; ++j) dpi[j] = keep_own(dpi[j], next[j], zero);
      } else {
#pragma omp simd
        for (int j = 0; j < w; ++j) dpi[j] -= cpi * next[j];
      }
    }
    if (dp_in_x) {
      if constexpr (Checked) {
        for (int j = 0; j < w; ++j) {
          if (s.last[j] == 0 && !is_finite(dpi[j])) s.last[j] = static_cast<int>(i + 1);
        }
      }
      continue;  // x is in place
    }
    if (scattered) continue;  // stored system by system below
    T* xi = x + i * rx;
    if (stream_x) {
      stream_lines(w, static_cast<const T*>(dpi), xi);
      continue;
    }
#pragma omp simd
    for (int j = 0; j < w; ++j) xi[j] = Accumulate ? xi[j] + dpi[j] : dpi[j];
    if constexpr (Checked) {
      for (int j = 0; j < w; ++j) {
        if (s.last[j] == 0 && !is_finite(xi[j])) s.last[j] = static_cast<int>(i + 1);
      }
    }
  }
  if (stream_x) stream_fence();
  if (scattered && rx == 1 && !Accumulate && !Checked) {
    transpose_copy(static_cast<const T*>(s.dp), width, x, lx, w, n);
  } else if (scattered) {
    for (int j = 0; j < w; ++j) {
      T* xj = x + j * lx;
      for (std::int64_t i = 0; i < n; ++i) {
        const T v = Accumulate ? xj[i * rx] + s.dp[i * width + j] : s.dp[i * width + j];
        xj[i * rx] = v;
        if constexpr (Checked) {
          if (!is_finite(v)) s.last[j] = static_cast<int>(i + 1);  // rows ascend: the last wins
        }
      }
    }
  }
  if constexpr (Checked) {
    for (int j = 0; j < w; ++j) {
      ops.info[s0 + j] = f.breakdown != 0 ? f.breakdown : s.first[j] != 0 ? s.first[j] : s.last[j];
    }
  }
}

}  // namespace triax::detail::cpu_factored::TRIAX_FACTORED_ISA
