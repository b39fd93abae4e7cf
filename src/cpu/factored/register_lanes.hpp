#pragma once
// The factored solve along axis 0 (each system's rows contiguous, neighbouring systems a system
// stride apart) with register transposes: a group of V systems (one vector register of lanes,
// register_vectors.hpp: 16 / 8 with AVX-512, 8 / 4 with AVX2, 4 / 2 with SSE2, floats / doubles)
// is read one block at a time, a block being the L rows of one 64-byte line per system (L = 16
// floats / 8 doubles). Each line is S = L / V loads of V rows; each V x V square is transposed
// in registers into V rows of V lanes and the forward step runs on those registers; d' goes to
// a scratch of n x V values (32 KiB at n = 512, floats with AVX-512: in L1). The backward step
// produces a block's rows of x in registers, transposes them back and stores each system's line
// with its S stores back to back (one whole line at a time, never a half line waiting for its
// other half), streamed past the caches where the line is aligned and x is a separate output.
// The previous kernel gathered the whole group into the scratch first, solved, and scattered it
// back: three passes, with the memory traffic only in the first and the last.
//
// Rows outside whole blocks go through partial blocks; groups of fewer than V systems and n < L
// are left to the caller (factored_lanes.hpp's plain loops). `register_lanes_usable` is false
// where register_vectors.hpp has no registers for the target.

#include <algorithm>
#include <cstdint>

#include "core/factored/factor_table.hpp"
#include "cpu/factored/register_vectors.hpp"

namespace triax::detail::cpu_factored::TRIAX_FACTORED_ISA {

inline constexpr bool register_lanes_usable = register_vectors_usable;
// The previous round (fdcpu) had this kernel in the AVX-512 copy only: TRIAX_CPU_FACTORED_ROUND=2
// keeps the other copies on the scratch transposes (block_transpose.hpp), for A/B runs.
#if defined(__AVX512F__)
inline constexpr bool register_lanes_in_previous_round = true;
#else
inline constexpr bool register_lanes_in_previous_round = false;
#endif

#if defined(__SSE2__)

/// Rows of one block: one 64-byte line of each system.
template <class T>
inline constexpr int block_rows = 64 / static_cast<int>(sizeof(T));

/// Lines ahead of the block being read that each system's next lines are asked for: the group's
/// V streams run in parallel, more than the hardware prefetcher tracks at once.
inline constexpr int lines_ahead = 4;

/// p + offset elements, for a run whose first rows lie before the system (masked off): formed
/// as an address, since the pointer itself may point before the array.
template <class T>
inline T* shifted(T* p, std::int64_t offset) {
  return reinterpret_cast<T*>(reinterpret_cast<std::intptr_t>(p) +
                              offset * static_cast<std::intptr_t>(sizeof(T)));
}

/// The rows of [lo, hi) that fall in the square of rows q V .. q V + V - 1, relative to it.
struct Part {
  int lo, hi;
  Part(int lo_block, int hi_block, int q, int v)
      : lo(std::max(lo_block - q * v, 0)), hi(std::min(hi_block - q * v, v)) {}
  bool empty() const { return hi <= lo; }
};

/// The forward step over one block of L rows base .. base + L - 1 of V systems (system k's row
/// i at d[k * ld + i]), of which rows base + lo .. base + hi - 1 are the system's (Whole: all;
/// else the others are neither read nor computed), given d' of the row before in `prev`
/// (zero before row 0: a of row 0 is stored as 0). d'[i * V + k] goes to dp; returns the last.
/// Bound (the arithmetic-free bound, strip_work.hpp): d in place of d', and a whole block's
/// squares stored untransposed (backward_block's Bound skips the transpose back, so the two
/// cancel; partial blocks keep both).
template <bool Whole, bool Scaled, bool Bound, class T>
inline typename Vec<T>::type forward_block(const T* d, std::int64_t ld, std::int64_t base, int lo,
                                           int hi, typename Vec<T>::type prev,
                                           const FactorView<T>& f, T* dp) {
  using Z = Vec<T>;
  constexpr int V = Z::lanes, L = block_rows<T>;
  if constexpr (Whole) lo = 0, hi = L;
  for (int q = 0; q < L / V; ++q) {
    const Part part(lo, hi, q, V);
    if (!Whole && part.empty()) continue;
    const std::int64_t at = base + q * V;
    typename Z::type r[V];
#pragma GCC unroll 16
    for (int k = 0; k < V; ++k) {
      const T* run = shifted(d + k * ld, at);
      if constexpr (Whole) {
        if (q == 0) __builtin_prefetch(shifted(run, lines_ahead * L), 0, 3);  // never faults
        r[k] = Z::load(run);
      } else {
        r[k] = Z::load(part.lo, part.hi, run);
      }
    }
    if constexpr (!(Bound && Whole)) Z::transpose(r);
#pragma GCC unroll 16
    for (int k = Whole ? 0 : part.lo; k < (Whole ? V : part.hi); ++k) {
      typename Z::type v = r[k];
      if constexpr (Bound) {
        Z::store(dp + (at + k) * V, v);
        continue;
      }
      const T* fr = f.rows + 3 * f.index(at + k);
      if constexpr (Scaled) v = Z::mul(Z::mul(v, Z::set1(f.scale[0])), Z::set1(f.scale[1]));
      // d r - (a r) d'[i-1]: one fused step on the chain from row to row instead of two (the
      // products with r are off it), which the chain's latency, not the memory, limits in the
      // caches.
      prev = Z::fnmadd(Z::set1(fr[0] * fr[1]), prev, Z::mul(v, Z::set1(fr[1])));
      Z::store(dp + (at + k) * V, prev);
    }
  }
  return prev;
}

/// The backward step over one block (rows as forward_block's) given x of the row after in
/// `next` (zero after the last row: c' of the last row is 0), d' in dp; system k's row i of x at
/// x[k * lx + i], added to where Accumulate, streamed where `stream` and the line is aligned.
/// Returns x of row base + lo. Bound: d' as x, a whole block untransposed (see forward_block).
template <bool Whole, bool Accumulate, bool Bound, class T>
inline typename Vec<T>::type backward_block(typename Vec<T>::type next, std::int64_t base, int lo,
                                            int hi, const FactorView<T>& f, const T* dp, T* x,
                                            std::int64_t lx, bool stream) {
  using Z = Vec<T>;
  constexpr int V = Z::lanes, L = block_rows<T>, S = L / V;
  if constexpr (Whole) lo = 0, hi = L;
  typename Z::type r[S][V];
  for (int q = S - 1; q >= 0; --q) {
#pragma GCC unroll 16
    for (int k = V - 1; k >= 0; --k) {
      const int row = q * V + k;
      if (!Whole && (row >= hi || row < lo)) {
        r[q][k] = Z::set1(T(0));
        continue;
      }
      if constexpr (Bound) {
        next = Z::load(dp + (base + row) * V);
      } else {
        const T cp = f.rows[3 * f.index(base + row) + 2];
        next = Z::fnmadd(Z::set1(cp), next, Z::load(dp + (base + row) * V));
      }
      r[q][k] = next;
    }
    if constexpr (!(Bound && Whole)) Z::transpose(r[q]);
  }
#pragma GCC unroll 16
  for (int k = 0; k < V; ++k) {
    T* line = shifted(x + k * lx, base);
    const bool whole_line = Whole && !Accumulate && stream &&
                            (reinterpret_cast<std::uintptr_t>(line) & 63) == 0;
#pragma GCC unroll 4
    for (int q = 0; q < S; ++q) {
      T* run = line + q * V;
      if constexpr (!Whole) {
        const Part part(lo, hi, q, V);
        if (part.empty()) continue;
        Z::store(part.lo, part.hi, run,
                 Accumulate ? Z::add(Z::load(part.lo, part.hi, run), r[q][k]) : r[q][k]);
      } else if constexpr (Accumulate) {
        Z::store(run, Z::add(Z::load(run), r[q][k]));
      } else if (whole_line) {
        Z::stream(run, r[q][k]);
      } else {
        Z::store(run, r[q][k]);
      }
    }
  }
  return next;
}

/// Lanes of one group: the systems a register holds.
template <class T>
inline constexpr int register_group = Vec<T>::lanes;

/// One group of V systems, n >= L rows (system k's row i at d[k * ld + i] and x[k * lx + i];
/// x may be d). The blocks start at the row where x's runs begin a cache line when every
/// system's do (so that they can be streamed whole); the rows before that and after the last
/// whole block go through partial blocks. d' in dp (n x V values). d is read completely before
/// x is written. Bound: x = d through the same loads, prefetches and stores (strip_work.hpp).
template <bool Accumulate, bool Scaled, bool Bound, class T>
void solve_register_group(const T* d, std::int64_t ld, T* x, std::int64_t lx, std::int64_t n,
                          const FactorView<T>& f, T* dp, bool stream) {
  using Z = Vec<T>;
  constexpr int V = Z::lanes, L = block_rows<T>;
  const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(x);
  const bool same_phase = (lx * std::int64_t(sizeof(T))) % 64 == 0 && at % sizeof(T) == 0;
  const int head = same_phase ? int((64 - at % 64) % 64 / sizeof(T)) : 0;
  const std::int64_t end = head + (n - head) / L * L;
  const int tail = static_cast<int>(n - end);
  typename Z::type v = Z::set1(T(0));
  if (head > 0) v = forward_block<false, Scaled, Bound>(d, ld, head - L, L - head, L, v, f, dp);
  for (std::int64_t b = head; b < end; b += L)
    v = forward_block<true, Scaled, Bound>(d, ld, b, 0, L, v, f, dp);
  if (tail > 0) forward_block<false, Scaled, Bound>(d, ld, end, 0, tail, v, f, dp);
  v = Z::set1(T(0));
  if (tail > 0) v = backward_block<false, Accumulate, Bound>(v, end, 0, tail, f, dp, x, lx, stream);
  // While x goes out, the next V systems' d comes in: one line of each per block, into L2
  // (a block is one line of each system), so the next group's forward step finds its rows there
  // instead of waiting for memory with nothing else to do. Past the last group the addresses
  // are another line's systems or nothing; a prefetch never faults.
  // x's lines, where stored plainly (or added to), are asked for with intent to write
  // lines_ahead blocks before the backward step, which walks them downwards, reaches them: each
  // store otherwise waits for its line to come from the cache or memory, V lines per block.
  const T* following = shifted(d, V * ld);
  const bool own_x = Accumulate || !stream;
  std::int64_t line = 0;
  for (std::int64_t b = end - L; b >= head; b -= L, line += L) {
#pragma GCC unroll 16
    for (int k = 0; k < V; ++k) {
      __builtin_prefetch(shifted(following, k * ld + line), 0, 2);
      if (own_x) __builtin_prefetch(shifted(x + k * lx, b - lines_ahead * L), 1, 3);
    }
    v = backward_block<true, Accumulate, Bound>(v, b, 0, L, f, dp, x, lx, stream);
  }
  for (; line < n; line += L) {
    for (int k = 0; k < V; ++k) __builtin_prefetch(shifted(following, k * ld + line), 0, 2);
  }
  if (head > 0)
    backward_block<false, Accumulate, Bound>(v, head - L, L - head, L, f, dp, x, lx, stream);
}

#else
template <class T>
inline constexpr int block_rows = 1;
template <class T>
inline constexpr int register_group = 1;
template <bool Accumulate, bool Scaled, bool Bound, class T>
void solve_register_group(const T*, std::int64_t, T*, std::int64_t, std::int64_t,
                          const FactorView<T>&, T*, bool) {}
#endif

}  // namespace triax::detail::cpu_factored::TRIAX_FACTORED_ISA
