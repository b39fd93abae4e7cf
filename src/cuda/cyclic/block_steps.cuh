#pragma once
// The steps of the cyclic family as one thread block runs them on a system in shared memory
// (paper 001, s.4): each step spreads its rows over the block's threads and ends with a barrier.
// The formulas are core/cyclic_equations.hpp's, shared with the CPU references; the order of the
// steps and checked mode's ranking of breakdowns match src/cpu/cyclic/cyclic_system.hpp.
#include <cuda_runtime.h>

#include <climits>

#include "core/cyclic_equations.hpp"
#include "cuda/cyclic/shared_layout.hpp"

namespace triax::detail::cuda::cyclic {

using detail::cyclic::AffineStep;
using detail::cyclic::Equation;

/// Rows as four padded arrays (a, b, c, d) in shared memory.
template <class T>
struct RowArrays {
  T *a, *b, *c, *d;
  __device__ static RowArrays at(T* base, int length) {
    return {base, base + length, base + 2 * length, base + 3 * length};
  }
  __device__ Equation<T> get(int i) const {
    const int k = padded<T>(i);
    return {a[k], b[k], c[k], d[k]};
  }
  __device__ void set(int i, const Equation<T>& e) const {
    const int k = padded<T>(i);
    a[k] = e.a;
    b[k] = e.b;
    c[k] = e.c;
    d[k] = e.d;
  }
};

/// RD's steps as six padded arrays in shared memory.
template <class T>
struct StepArrays {
  T* m[6];
  __device__ static StepArrays at(T* base, int length) {
    StepArrays s;
    for (int k = 0; k < 6; ++k) s.m[k] = base + k * length;
    return s;
  }
  __device__ AffineStep<T> get(int i) const {
    const int k = padded<T>(i);
    return {m[0][k], m[1][k], m[2][k], m[3][k], m[4][k], m[5][k]};
  }
  __device__ void set(int i, const AffineStep<T>& s) const {
    const int k = padded<T>(i);
    m[0][k] = s.m00;
    m[1][k] = s.m01;
    m[2][k] = s.m02;
    m[3][k] = s.m10;
    m[4][k] = s.m11;
    m[5][k] = s.m12;
  }
};

/// Checked mode's record of one system in shared memory: the smallest breakdown key (step * n +
/// row, as breakdown_key orders them) and the last row stored non-finite, + 1.
template <bool Checked>
struct BlockBreakdown {
  int* key;
  int* last_bad;
  unsigned long long* largest;  // RD's check: largest row norm, |x|, |d| (block_max)
  int n;
  int step = 0;
  __device__ void note(int row) const {
    if (Checked) atomicMin(key, step * n + row);
  }
  template <class T>
  __device__ void note_if_unusable(T pivot, int row) const {
    if (Checked && !detail::cyclic::usable_pivot(pivot)) note(row);
  }
  __device__ int info() const { return *key != INT_MAX ? *key % n + 1 : *last_bad; }
};

/// CR's forward reduction until `stride` (the layout's) is reached: each level combines the rows
/// at even positions of the current reduced system with their odd neighbours, in place (the odd
/// rows, which CR's back substitution needs, are only read).
template <class T, bool Checked>
__device__ void block_cr_reduce(const RowArrays<T>& rows, int n, int stride,
                                BlockBreakdown<Checked>& breakdown) {
  const Equation<T> outside = detail::cyclic::outside_equation<T>();
  for (int s = 1; s < stride; s *= 2, ++breakdown.step) {
    const int m = static_cast<int>(detail::cyclic::rows_at_level(n, s));
    for (int k = 2 * threadIdx.x; k < m; k += 2 * blockDim.x) {
      const int i = k * s;
      if (k + 1 < m) breakdown.note_if_unusable(rows.b[padded<T>(i + s)], i + s);
      rows.set(i,
               detail::cyclic::eliminate_neighbours(k > 0 ? rows.get(i - s) : outside, rows.get(i),
                                                    k + 1 < m ? rows.get(i + s) : outside));
    }
    __syncthreads();
  }
}

/// CR's back substitution from `stride` down: x (kept in the rows' d, which the reduction no
/// longer needs at the rows already solved) at the rows at odd positions of each level.
template <class T>
__device__ void block_cr_substitute(const RowArrays<T>& rows, int n, int stride) {
  for (int s = stride / 2; s >= 1; s /= 2) {
    const int m = static_cast<int>(detail::cyclic::rows_at_level(n, s));
    for (int k = 2 * threadIdx.x + 1; k < m; k += 2 * blockDim.x) {
      const int i = k * s;
      const T above = k + 1 < m ? rows.d[padded<T>(i + s)] : T(0);
      rows.d[padded<T>(i)] =
          detail::cyclic::substitute(rows.get(i), rows.d[padded<T>(i - s)], above);
    }
    __syncthreads();
  }
}

/// PCR on the m rows of `current` (its double buffer `next`): x of reduced row r goes to
/// x[padded(r * stride)], breakdowns to row r * stride.
template <class T, bool Checked>
__device__ void block_pcr(RowArrays<T> current, RowArrays<T> next, int m, T* x, int stride,
                          BlockBreakdown<Checked>& breakdown) {
  const Equation<T> outside = detail::cyclic::outside_equation<T>();
  for (int s = 1; s < m; s *= 2, ++breakdown.step) {
    for (int r = threadIdx.x; r < m; r += blockDim.x) {
      const Equation<T> e = current.get(r);
      breakdown.note_if_unusable(e.b, r * stride);
      next.set(r, detail::cyclic::eliminate_neighbours(r >= s ? current.get(r - s) : outside, e,
                                                       r + s < m ? current.get(r + s) : outside));
    }
    __syncthreads();
    const RowArrays<T> done = current;
    current = next;
    next = done;
  }
  for (int r = threadIdx.x; r < m; r += blockDim.x) {
    const Equation<T> e = current.get(r);
    breakdown.note_if_unusable(e.b, r * stride);
    x[padded<T>(r * stride)] = e.d / e.b;
  }
  ++breakdown.step;
  __syncthreads();
}

/// The largest reduced system warp_pcr takes: one row per lane of a warp.
inline constexpr int warp_pcr_rows = 32;

/// An equation from the lane `delta` below (up) or above (down) in the warp.
template <class T>
__device__ Equation<T> shuffle_up(const Equation<T>& e, int delta) {
  return {__shfl_up_sync(~0u, e.a, delta), __shfl_up_sync(~0u, e.b, delta),
          __shfl_up_sync(~0u, e.c, delta), __shfl_up_sync(~0u, e.d, delta)};
}
template <class T>
__device__ Equation<T> shuffle_down(const Equation<T>& e, int delta) {
  return {__shfl_down_sync(~0u, e.a, delta), __shfl_down_sync(~0u, e.b, delta),
          __shfl_down_sync(~0u, e.c, delta), __shfl_down_sync(~0u, e.d, delta)};
}

/// PCR on the m <= warp_pcr_rows rows at 0, stride, 2 stride, ... of `rows`, by the block's first
/// warp with one row per lane in registers: block_pcr's steps, the same arithmetic on the same
/// values (so the same bits), with the neighbours' rows taken by shuffles instead of from shared
/// memory, and no barrier between steps. x of reduced row r goes to rows.d[padded(r * stride)],
/// breakdowns to row r * stride as block_pcr ranks them. Ends with a barrier. For the hybrid
/// CR+PCR this trades its inner system's barriers (one a step) for one; CR (one row) and PCR on
/// short systems take it too.
template <class T, bool Checked>
__device__ void warp_pcr(const RowArrays<T>& rows, int m, int stride,
                         BlockBreakdown<Checked>& breakdown) {
  const int first_step = breakdown.step;
  int steps = 0;
  for (int s = 1; s < m; s *= 2) ++steps;
  if (threadIdx.x < warp_pcr_rows) {
    const Equation<T> outside = detail::cyclic::outside_equation<T>();
    const int r = static_cast<int>(threadIdx.x);
    const bool held = r < m;
    Equation<T> e = held ? rows.get(r * stride) : outside;
    for (int s = 1; s < m; s *= 2, ++breakdown.step) {
      if (held) breakdown.note_if_unusable(e.b, r * stride);
      const Equation<T> below = shuffle_up(e, s);
      const Equation<T> above = shuffle_down(e, s);
      const Equation<T> reduced = detail::cyclic::eliminate_neighbours(
          r >= s ? below : outside, e, r + s < m ? above : outside);
      if (held) e = reduced;
    }
    if (held) {
      breakdown.note_if_unusable(e.b, r * stride);
      rows.d[padded<T>(r * stride)] = e.d / e.b;
    }
  }
  breakdown.step = first_step + steps + 1;
  __syncthreads();
}

/// Largest of non-negative values across a block: their bits as doubles order as integers.
__device__ inline void block_max(unsigned long long* largest, double value) {
  atomicMax(largest, static_cast<unsigned long long>(__double_as_longlong(value)));
}
__device__ inline double block_max_value(const unsigned long long* largest) {
  return __longlong_as_double(static_cast<long long>(*largest));
}

/// RD on m steps already in `prefix` (its double buffer `spare`): the Hillis-Steele scan of
/// their products, x[0] from the full product, x[r + 1] from x[0] and the product of steps 0..r,
/// into the first array of whichever scan buffer is free at the end (x[r] at padded(r)), which
/// is returned. Checked: the first row whose product is not finite (an overflow, or c = 0), else
/// the first whose residual exceeds residual_limit, the rows coming from row_of(r); breakdowns
/// at row r * stride.
template <class T, bool Checked, class RowOf>
__device__ T* block_rd(StepArrays<T> prefix, StepArrays<T> spare, int m, int stride,
                       const RowOf& row_of, BlockBreakdown<Checked>& breakdown) {
  for (int s = 1; s < m; s *= 2) {
    for (int r = threadIdx.x; r < m; r += blockDim.x) {
      spare.set(r, r >= s ? AffineStep<T>::then(prefix.get(r - s), prefix.get(r)) : prefix.get(r));
    }
    __syncthreads();
    const StepArrays<T> done = prefix;
    prefix = spare;
    spare = done;
  }
  if (Checked) {
    for (int r = threadIdx.x; r < m; r += blockDim.x) {
      if (!prefix.get(r).all_finite()) breakdown.note(r * stride);
    }
  }
  const T x0 = detail::cyclic::first_unknown(prefix.get(m - 1));
  T* x = spare.m[0];
  if (threadIdx.x == 0) {
    if (!detail::cyclic::finite(x0)) breakdown.note((m - 1) * stride);
    x[0] = x0;
  }
  for (int r = threadIdx.x; r + 1 < m; r += blockDim.x) {
    x[padded<T>(r + 1)] = detail::cyclic::unknown_after(prefix.get(r), x0);
  }
  __syncthreads();
  if (Checked) {
    // RD's backward error (residual_limit): the largest row norm, |x| and |d|, then every row.
    for (int r = threadIdx.x; r < m; r += blockDim.x) {
      const Equation<T> e = row_of(r);
      block_max(&breakdown.largest[0], detail::cyclic::row_norm(e));
      block_max(&breakdown.largest[1], detail::cyclic::magnitude(x[padded<T>(r)]));
      block_max(&breakdown.largest[2], detail::cyclic::magnitude(e.d));
    }
    __syncthreads();
    const T limit =
        detail::cyclic::residual_limit<T>(m, static_cast<T>(block_max_value(&breakdown.largest[0])),
                                          static_cast<T>(block_max_value(&breakdown.largest[1])),
                                          static_cast<T>(block_max_value(&breakdown.largest[2])));
    for (int r = threadIdx.x; r < m; r += blockDim.x) {
      const T below = r > 0 ? x[padded<T>(r - 1)] : T(0);
      const T above = r + 1 < m ? x[padded<T>(r + 1)] : T(0);
      const T res = detail::cyclic::residual(row_of(r), below, x[padded<T>(r)], above);
      if (detail::cyclic::magnitude(res) > limit) breakdown.note(r * stride);
    }
  }
  ++breakdown.step;
  return x;
}

}  // namespace triax::detail::cuda::cyclic
