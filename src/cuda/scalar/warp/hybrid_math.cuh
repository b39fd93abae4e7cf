#pragma once
// The arithmetic of the Thomas-PCR hybrid (paper 000, s.2.3, Algorithms 3-5), shared by every
// hybrid kernel: what one thread does with its chunk of rows, and how a warp solves the reduced
// system its lanes hold.
//
// A chunk is L consecutive rows (local 0..L-1) of one system. The modified Thomas sweep
// (chunk_reduce) expresses the interior through the chunk's two end unknowns,
//     x_k = D_k - A_k x_0 - C_k x_{L-1},      k = 1 .. L-2,
// and substitutes this into the chunk's first and last equations. Those two equations, taken over
// the chunks of a system in order, form the reduced system [first_0, last_0, first_1, last_1, ...],
// tridiagonal in (x_0, x_{L-1}) of each chunk. pair_solve solves it when lane j of a segment of G
// lanes holds chunk j's pair: one cyclic-reduction step eliminates the first unknowns with the
// neighbour's help, PCR (log2 G shuffle steps) solves for the last ones, and the first ones
// follow. chunk_back then recovers the interior (Algorithm 5).
//
// Chunk lengths: L >= 2, or L = 1 only for a one-row system, or L = 0 for a chunk past the end of
// its system (both of its reduced rows are then the identity, decoupled from the rest). The
// caller passes a = 0 on the system's row 0 and c = 0 on its row n-1 (those are never read).
#include <cuda_runtime.h>

#include "cuda/pivot_reciprocal.cuh"
#include "cuda/row_scale.cuh"

namespace triax::detail::cuda {

constexpr unsigned full_warp = 0xffffffffu;

/// One equation sub * x_prev + diag * x + sup * x_next = rhs.
template <class T>
struct Row {
  T sub, diag, sup, rhs;
};

template <class T>
__device__ __forceinline__ Row<T> identity_row() {
  return {T(0), T(1), T(0), T(0)};
}

/// The running minimum of |x| over a sweep's pivot reciprocals, only to tell whether one of
/// them flushed to 0 (reciprocal never returns a nonzero value below 2^-126 / 2^-1022): one FMNMX
/// per row in float; in double the high word's magnitude bits under an integer min, two integer
/// instructions where fmin on doubles took five to seven (SASS, 2026-11-26).
template <class T>
struct SmallestMagnitude;
template <>
struct SmallestMagnitude<float> {
  float v = 1.0f;
  __device__ __forceinline__ void add(float x) { v = fminf(v, fabsf(x)); }
  __device__ __forceinline__ bool is_zero() const { return v == 0.0f; }
};
template <>
struct SmallestMagnitude<double> {
  unsigned v = 0x7fffffffu;
  __device__ __forceinline__ void add(double x) {
    v = min(v, static_cast<unsigned>(__double2hiint(x)) & 0x7fffffffu);
  }
  __device__ __forceinline__ bool is_zero() const { return v == 0u; }
};

/// Rows in registers: arrays of a compile-time capacity M, indexed only by unrolled loop
/// counters. A, C, D overwrite a, c, d; x overwrites d.
template <class T, int M>
struct RegisterRows {
  static constexpr int unroll = M;
  T a[M], b[M], c[M], d[M];
  __device__ __forceinline__ static constexpr int bound(int) { return M; }
  __device__ __forceinline__ T& sub(int k) { return a[k]; }
  __device__ __forceinline__ T& diag(int k) { return b[k]; }
  __device__ __forceinline__ T& sup(int k) { return c[k]; }
  __device__ __forceinline__ T& rhs(int k) { return d[k]; }
};

/// Rows in shared memory (a warp's reduced system, R rows per lane): four arrays, row k of this
/// lane at index(k). The sweep runs to the run-time length.
template <class T>
struct SharedRows {
  static constexpr int unroll = 1;
  T *a, *b, *c, *d;
  int base;  // padded index of row 0 relative to the arrays
  __device__ __forceinline__ static int bound(int length) { return length; }
  __device__ __forceinline__ int at(int k) const;
  __device__ __forceinline__ T& sub(int k) { return a[at(k)]; }
  __device__ __forceinline__ T& diag(int k) { return b[at(k)]; }
  __device__ __forceinline__ T& sup(int k) { return c[at(k)]; }
  __device__ __forceinline__ T& rhs(int k) { return d[at(k)]; }
};

/// Shared-memory index with one element of padding per 128 bytes: a warp whose lanes read rows
/// a power of two apart then hits distinct banks.
template <class T>
__device__ __forceinline__ int padded(int e) {
  constexpr int per_line = 128 / static_cast<int>(sizeof(T));
  return e + e / per_line;
}
template <class T>
__host__ __device__ constexpr int padded_size(int e) {
  return e + e / (128 / static_cast<int>(sizeof(T))) + 1;
}

template <class T>
__device__ __forceinline__ int SharedRows<T>::at(int k) const {
  return padded<T>(base + k);
}

/// Modified Thomas on a chunk of L rows (Algorithm 3 and the backward half that yields the form
/// x_k = D_k - A_k x_0 - C_k x_{L-1}); returns the chunk's two reduced equations.
template <class T, class Rows>
__device__ __forceinline__ void chunk_reduce(Rows& r, int L, Row<T>& first, Row<T>& last) {
  if (L <= 1) {  // empty chunk, or a one-row system (its c was passed as 0)
    if (L == 1) {
      const T s = row_scale(r.diag(0));  // keeps pair_solve's reciprocal of b in range
      first = Row<T>{T(0), r.diag(0) * s, T(0), r.rhs(0) * s};
    } else {
      first = identity_row<T>();
    }
    last = identity_row<T>();
    return;
  }
  // A chunk whose first diagonal entry lies far from 1 is scaled by a power of two first
  // (row_scale.cuh): the same equations, whose pivots and products then stay in the normal range
  // for any 2^k times a well-scaled system. A, C, D below and x do not depend on the scale; the
  // chunk's two reduced equations come out multiplied by it, which pair_solve's normalisation
  // removes. The test is a few integer instructions per chunk; the scaling runs only where it
  // is needed.
  if (outside_scale_window(r.diag(0))) {
    const T s = scale_towards_one(r.diag(0));
    const int rows = Rows::bound(L);
#pragma unroll Rows::unroll
    for (int k = 0; k < rows; ++k) {
      r.sub(k) *= s;
      r.diag(k) *= s;
      r.sup(k) *= s;
      r.rhs(k) *= s;
    }
  }
  // Forward over the interior 1..L-2: x_k + A_k x_0 + C_k x_{k+1} = D_k. The running values of
  // the previous row start as the trivial "x_0 = x_0" (A = -1, C = 0, D = 0), which makes
  // row 1's step and, for L = 2, the last row's substitution come out right.
  T ap = T(-1), cp = T(0), dp = T(0);
  // The smallest |1 / pivot| of the sweep: 0 where a pivot above 2^126 (float) / 2^1022 (double)
  // flushed its reciprocal, which would decouple the row and return finite, wrong x. One min
  // per row; such a chunk (only where its rows span more than about 2^62 / 2^510, since the
  // scaling above centres the first) poisons its reduced equation: the system's x comes out NaN.
  SmallestMagnitude<T> smallest_inv;
  const int n_rows = Rows::bound(L);
#pragma unroll Rows::unroll
  for (int k = 1; k < n_rows; ++k) {
    const T ak = r.sub(k), bk = r.diag(k), ck = r.sup(k), dk = r.rhs(k);
    if (k < L - 1) {
      const T inv = reciprocal(bk - ak * cp);
      smallest_inv.add(inv);
      ap = -ak * ap * inv;
      cp = ck * inv;
      dp = (dk - ak * dp) * inv;
      r.sub(k) = ap;
      r.sup(k) = cp;
      r.rhs(k) = dp;
    } else if (k == L - 1) {
      // Last row with x_{L-2} = D - A x_0 - C x_{L-1} substituted (row L-2's forward values are
      // already final).
      last = {-ak * ap, bk - ak * cp, ck, dk - ak * dp};
    }
  }
  // Backward: row k from row k+1, for k = L-3 .. 1.
#pragma unroll Rows::unroll
  for (int k = n_rows - 2; k >= 1; --k) {
    if (k < L - 2) {
      const T c_k = r.sup(k);
      r.rhs(k) = r.rhs(k) - c_k * r.rhs(k + 1);
      r.sub(k) = r.sub(k) - c_k * r.sub(k + 1);
      r.sup(k) = -c_k * r.sup(k + 1);
    }
  }
  // First row with x_1 substituted; for L = 2, x_1 is the chunk's last unknown itself
  // (A = 0, C = -1, D = 0).
  const T a0 = r.sub(0), b0 = r.diag(0), c0 = r.sup(0), d0 = r.rhs(0);
  const bool interior = L > 2;
  const T a1 = interior ? r.sub(1) : T(0);
  const T c1 = interior ? r.sup(1) : T(-1);
  const T d1 = interior ? r.rhs(1) : T(0);
  first = {a0, b0 - c0 * a1, -c0 * c1, d0 - c0 * d1};
  if (smallest_inv.is_zero()) first.rhs = quiet_nan<T>();
}

/// For a caller whose rows hold anything at all in a of the system's row 0 and c of its row
/// n - 1 (a kernel that reads its rows without a test per row): chunk_reduce carries the chunk's
/// a_0 only into first.sub and its c_{L-1} only into last.sup, so zeroing those two where the
/// chunk starts or ends the system gives what zeros in the rows would have. (chunk_back reads
/// those two values too, in rows whose results it replaces by x_first and x_last.)
template <class T>
__device__ __forceinline__ void drop_system_ends(Row<T>& first, Row<T>& last, bool starts,
                                                 bool ends) {
  first.sub = starts ? T(0) : first.sub;
  last.sup = ends ? T(0) : last.sup;
}

/// Algorithm 5: the chunk's solution from its two end values, into rhs(0 .. L-1).
template <class T, class Rows>
__device__ __forceinline__ void chunk_back(Rows& r, int L, T x_first, T x_last) {
  // Every row is written through selects (rows past L get garbage, never stored): a store under
  // "k == L - 1" would let the compiler turn it into one store at a run-time index, which sends
  // a register array to local memory.
  const int n_rows = Rows::bound(L);
#pragma unroll Rows::unroll
  for (int k = 0; k < n_rows; ++k) {
    T v = r.rhs(k) - r.sub(k) * x_first - r.sup(k) * x_last;
    v = k == L - 1 ? x_last : v;
    r.rhs(k) = k == 0 ? x_first : v;
  }
}

/// Solves the reduced system held as pairs for K right-hand sides at once: lane j (0 <= j < G,
/// G a power of two <= 32, every lane of the warp taking part) holds chunk j's first and last
/// equations (their rhs fields are ignored: f_rhs and l_rhs hold the K right-hand sides).
/// Returns the chunk's two end values for each right-hand side. The elimination does not depend
/// on the right-hand side, so K of them cost K - 1 more shuffles per step, not K solves.
template <class T, int K>
__device__ __forceinline__ void pair_solve_multi(const Row<T>& f, const T (&f_rhs)[K],
                                                 const Row<T>& l, const T (&l_rhs)[K], int G,
                                                 T (&x_first)[K], T (&x_last)[K]) {
  // No lane tests whether its neighbours exist. Chunk 0's first equation has sub = 0 and chunk
  // G-1's last has sup = 0 (row 0's a and row n-1's c are passed as 0, and a chunk past the end
  // of its system is the identity), so al = 0 on lane 0 and ga = 0 on lane G-1; by induction,
  // after the step at distance s, al = 0 on lanes j < 2s and ga = 0 on lanes j >= G - 2s. A
  // shuffle from outside the segment returns the lane's own value, which is then multiplied by
  // that zero: the same result as the identity outside the system, without a select on every
  // shuffled value (docs/algorithms.md, "PCR without boundary selects").
  const T fr = reciprocal_or_nan(f.diag);
  const T fe = f.sub * fr, fh = f.sup * fr;
  T fd[K];
#pragma unroll
  for (int k = 0; k < K; ++k) fd[k] = f_rhs[k] * fr;
  // The next chunk's, to eliminate x_f(j+1) from this chunk's last equation (l.sup = 0 on the
  // last lane, where the shuffle returns the lane's own).
  const T ne = __shfl_down_sync(full_warp, fe, 1, G);
  const T nh = __shfl_down_sync(full_warp, fh, 1, G);
  // Equation in the last unknowns only, normalised to a unit diagonal: al y(j-1) + y(j) +
  // ga y(j+1) = de.
  T al = -l.sub * fe;
  T ga = -l.sup * nh;
  T de[K];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const T nd = __shfl_down_sync(full_warp, fd[k], 1, G);
    de[k] = l_rhs[k] - l.sub * fd[k] - l.sup * nd;
  }
  {
    const T inv = reciprocal_or_nan(l.diag - l.sub * fh - l.sup * ne);
    al *= inv;
    ga *= inv;
#pragma unroll
    for (int k = 0; k < K; ++k) de[k] *= inv;
  }
  // PCR: after the step at distance s each equation couples to neighbours 2s away.
  for (int s = 1; s < G; s *= 2) {
    const T ga_m = __shfl_up_sync(full_warp, ga, s, G);
    const T al_m = __shfl_up_sync(full_warp, al, s, G);
    const T al_p = __shfl_down_sync(full_warp, al, s, G);
    const T ga_p = __shfl_down_sync(full_warp, ga, s, G);
    const T inv = reciprocal(T(1) - al * ga_m - ga * al_p);
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const T de_m = __shfl_up_sync(full_warp, de[k], s, G);
      const T de_p = __shfl_down_sync(full_warp, de[k], s, G);
      de[k] = (de[k] - al * de_m - ga * de_p) * inv;
    }
    al = -al * al_m * inv;
    ga = -ga * ga_p * inv;
  }
#pragma unroll
  for (int k = 0; k < K; ++k) {
    x_last[k] = de[k];
    const T prev = __shfl_up_sync(full_warp, de[k], 1, G);  // fe = 0 on lane 0
    x_first[k] = fd[k] - fe * prev - fh * de[k];
  }
}

/// pair_solve_multi for the one right-hand side the equations carry.
template <class T>
__device__ __forceinline__ void pair_solve(const Row<T>& f, const Row<T>& l, int G, T& x_first,
                                           T& x_last) {
  const T f_rhs[1] = {f.rhs}, l_rhs[1] = {l.rhs};
  T xf[1], xl[1];
  pair_solve_multi<T, 1>(f, f_rhs, l, l_rhs, G, xf, xl);
  x_first = xf[0];
  x_last = xl[0];
}

}  // namespace triax::detail::cuda
