#pragma once
// The local modified Thomas passes of one rank's piece of a system (paper 003, the hybrid
// forward and backward passes of Algorithms 3 and 4, folded into one forward sweep that reads
// every input once, and a back substitution over the workspace).
//
// A piece holds rows 0 .. M-1 of a global system; row 0 also couples to the previous piece's
// last unknown (through a[0]) and row M-1 to the next piece's first (through c[M-1]). The
// forward sweep writes each row i >= 1 as
//     as[i] x[0] + x[i] + cs[i] x[i+1] = ds[i]
// into the workspace. The reduced rows need row 1 with x[2] .. x[M-2] eliminated, in terms of
// x[0] and x[M-1] alone: the sweep carries it along (substituting each new row k <= M-2 into
// it), instead of a backward sweep that would rewrite the whole workspace once more. Row 0 is
// then eliminated against row 1. What remains are two rows per piece that couple only the first
// and last unknowns of the pieces: the reduced system, tridiagonal over the sequence (first of
// piece 0, last of piece 0, first of piece 1, ...), 2P rows in all. Once x[0] and x[M-1] are
// known, the back substitution x[i] = ds[i] - as[i] x[0] - cs[i] x[i+1], i = M-2 .. 1, reads the
// workspace once: 7 values moved per element in the reduction (4 in, 3 out) and 4 in the back
// substitution, where a stored backward sweep moved 6 more.
//
// A piece needs two rows when the system has other pieces: a one-row piece's single unknown is
// coupled to both neighbours in its one equation, which no pair of tridiagonal reduced rows can
// hold (the plan rejects such pieces). A whole system of one row on a single rank is its own
// reduced system: its equation, and the identity row "y = 0" for the unused second unknown.

#include <cmath>
#include <cstdint>
#include <limits>

#include "core/problem.hpp"

namespace triax::detail {

/// std::isfinite on the host, the CUDA intrinsic in device code (the passes below run on both).
template <class T>
TRIAX_HOST_DEVICE inline bool finite_value(T v) {
#if defined(__CUDA_ARCH__)
  return isfinite(v);
#else
  return std::isfinite(v);
#endif
}

/// One reduced row: a couples to the unknown before it in the reduced sequence, c to the one
/// after it.
template <class T>
struct ReducedRow {
  T a, b, c, d;
};

/// The two reduced rows of one piece of one system.
template <class T>
struct ReducedPair {
  ReducedRow<T> first, last;
};

/// Where a piece lies in its global system: the first piece ignores a[0], the last c[M-1].
struct PiecePlace {
  bool first_piece;
  bool last_piece;
};

/// The workspace of one system's piece: three arrays of M values.
template <class T>
struct PieceWork {
  T* as;
  T* cs;
  T* ds;
};

/// The forward sweep over a piece's rows 1 .. M-1, one row at a time (reduce_piece drives it on
/// CPU ranks and in the GPU kernels that read strided rows; the GPU kernel for contiguous rows
/// feeds it from shared memory).
template <class T>
struct ForwardSweep {
  T as, cs, ds;  ///< the newest row i: as x[0] + x[i] + cs x[i+1] = ds
  T fa, fc, fd;  ///< row 1 with rows 2 .. i-1 substituted: fa x[0] + x[1] + fc x[i] = fd

  /// Row 1, normalised.
  TRIAX_HOST_DEVICE void start(T a1, T b1, T c1, T d1) {
    const T r = T(1) / b1;
    as = a1 * r;
    cs = c1 * r;
    ds = d1 * r;
    fa = as;
    fc = cs;
    fd = ds;
  }
  /// Row i >= 2 loses x[i-1] to row i-1; unless it is the piece's last row, x[i] = ds - as x[0]
  /// - cs x[i+1] then goes into row 1, whose coupling moves on to x[i+1].
  TRIAX_HOST_DEVICE void step(T ai, T bi, T ci, T di, bool last_row) {
    const T r = T(1) / (bi - ai * cs);
    ds = r * (di - ai * ds);
    as = -r * ai * as;
    cs = r * ci;
    if (!last_row) {
      fd -= fc * ds;
      fa -= fc * as;
      fc = -fc * cs;
    }
  }
  /// The piece's reduced rows (m >= 2 rows) from its row 0 (a0 = 0 for the first piece): row 0
  /// loses x[1] to row 1, the last row is the sweep's newest.
  TRIAX_HOST_DEVICE ReducedPair<T> reduced(T a0, T b0, T c0, T d0, std::int64_t m) const {
    const ReducedRow<T> last{as, T(1), cs, ds};
    if (m == 2) return {{a0, b0, c0, d0}, last};
    return {{a0, b0 - c0 * fa, -c0 * fc, d0 - c0 * fd}, last};
  }
};

/// One array of a GPU rank's workspace: element i of system s at i * stride (stride = the
/// systems of the plan), so that the threads of consecutive systems touch consecutive addresses.
template <class T>
struct StridedArray {
  T* base;
  std::int64_t stride;
  TRIAX_HOST_DEVICE T& operator[](std::int64_t i) const { return base[i * stride]; }
};

/// The workspace of one system's piece on a GPU rank: PieceWork with strided arrays.
template <class T>
struct StridedPieceWork {
  StridedArray<T> as, cs, ds;
};

/// Forward and backward passes over system s of a piece; returns its reduced rows. Work is
/// PieceWork<T> (CPU ranks) or StridedPieceWork<T> (GPU ranks, one thread per system).
template <class T, class Work>
TRIAX_HOST_DEVICE ReducedPair<T> reduce_piece(const Problem& p, const Operands<T>& ops,
                                              std::int64_t s, PiecePlace place, Work w) {
  const std::int64_t m = p.n;
  const T* a = ops.a + p.system_offset(op_a, s);
  const T* b = ops.b + p.system_offset(op_b, s);
  const T* c = ops.c + p.system_offset(op_c, s);
  const T* d = ops.d + p.system_offset(op_d, s);
  const std::int64_t sa = p.map[op_a].row_stride, sb = p.map[op_b].row_stride;
  const std::int64_t sc = p.map[op_c].row_stride, sd = p.map[op_d].row_stride;
  // The global system's a[0] and c[n-1] are never read.
  const T a0 = place.first_piece ? T(0) : a[0];
  const auto c_of = [&](std::int64_t i) {
    return place.last_piece && i == m - 1 ? T(0) : c[i * sc];
  };
  if (m == 1) {
    return {{a0, b[0], T(0), d[0]}, {T(0), T(1), T(0), T(0)}};
  }
  // Forward: row 1 normalised, then each row i >= 2 loses x[i-1] to row i-1. The previous
  // row's values stay in registers (the workspace is only written here).
  ForwardSweep<T> f;
  f.start(a[sa], b[sb], c_of(1), d[sd]);
  w.as[1] = f.as;
  w.cs[1] = f.cs;
  w.ds[1] = f.ds;
  for (std::int64_t i = 2; i < m; ++i) {
    f.step(a[i * sa], b[i * sb], c_of(i), d[i * sd], i == m - 1);
    w.as[i] = f.as;
    w.cs[i] = f.cs;
    w.ds[i] = f.ds;
  }
  return f.reduced(a0, b[0], c[0], d[0], m);
}

/// reduce_piece with the loads of `Batch` rows of a, b, c and d issued before their arithmetic:
/// the same sweep, the same values in the same order, but a GPU thread has 4 x Batch loads in
/// flight instead of 4. One thread per system along y or z holds too few threads to hide the
/// memory latency otherwise (256 x 256 systems are a quarter of an H100's threads), and the
/// compiler does not hoist loads across the sweep's dependence by itself.
template <int Batch, class T, class Work>
TRIAX_HOST_DEVICE ReducedPair<T> reduce_piece_batched(const Problem& p, const Operands<T>& ops,
                                                      std::int64_t s, PiecePlace place, Work w) {
  const std::int64_t m = p.n;
  const T* a = ops.a + p.system_offset(op_a, s);
  const T* b = ops.b + p.system_offset(op_b, s);
  const T* c = ops.c + p.system_offset(op_c, s);
  const T* d = ops.d + p.system_offset(op_d, s);
  const std::int64_t sa = p.map[op_a].row_stride, sb = p.map[op_b].row_stride;
  const std::int64_t sc = p.map[op_c].row_stride, sd = p.map[op_d].row_stride;
  const T a0 = place.first_piece ? T(0) : a[0];
  if (m == 1) {
    return {{a0, b[0], T(0), d[0]}, {T(0), T(1), T(0), T(0)}};
  }
  const T b0 = b[0], c0 = c[0], d0 = d[0];
  ForwardSweep<T> f{};
  for (std::int64_t i0 = 1; i0 < m; i0 += Batch) {
    T va[Batch], vb[Batch], vc[Batch], vd[Batch];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int k = 0; k < Batch; ++k) {
      const std::int64_t i = i0 + k;
      if (i < m) {
        va[k] = a[i * sa];
        vb[k] = b[i * sb];
        // The global system's c[n-1] is never read.
        vc[k] = place.last_piece && i == m - 1 ? T(0) : c[i * sc];
        vd[k] = d[i * sd];
      }
    }
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int k = 0; k < Batch; ++k) {
      const std::int64_t i = i0 + k;
      if (i < m) {
        if (i == 1) {
          f.start(va[k], vb[k], vc[k], vd[k]);
        } else {
          f.step(va[k], vb[k], vc[k], vd[k], i == m - 1);
        }
        w.as[i] = f.as;
        w.cs[i] = f.cs;
        w.ds[i] = f.ds;
      }
    }
  }
  return f.reduced(a0, b0, c0, d0, m);
}

/// Writes (or, with ops.accumulate, adds) the piece's solution from its end values and returns
/// the first local row whose value is not finite, or -1. The workspace loads of `Batch` rows are
/// issued before their arithmetic (as reduce_piece_batched, for the same reason); every Batch
/// writes the same values in the same order. The GPU kernels run it with 8, CPU ranks with 1
/// (finish_piece).
template <int Batch, class T, class Work>
TRIAX_HOST_DEVICE std::int64_t finish_piece_batched(const Problem& p, const Operands<T>& ops,
                                                    std::int64_t s, Work w, T first, T last) {
  const std::int64_t m = p.n;
  T* x = ops.x + p.system_offset(op_x, s);
  const std::int64_t sx = p.map[op_x].row_stride;
  std::int64_t bad = -1;
  // Rows are written last to first: the lowest non-finite row is the one kept.
  const auto put = [&](std::int64_t i, T value) {
    if (!finite_value(value)) bad = i;
    if (ops.accumulate)
      x[i * sx] += value;
    else
      x[i * sx] = value;
  };
  if (m > 1) put(m - 1, last);
  T next = last;
  for (std::int64_t i0 = m - 2; i0 >= 1; i0 -= Batch) {
    T vas[Batch], vcs[Batch], vds[Batch];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int k = 0; k < Batch; ++k) {
      const std::int64_t i = i0 - k;
      if (i >= 1) {
        vas[k] = w.as[i];
        vcs[k] = w.cs[i];
        vds[k] = w.ds[i];
      }
    }
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int k = 0; k < Batch; ++k) {
      const std::int64_t i = i0 - k;
      if (i >= 1) {
        next = vds[k] - vas[k] * first - vcs[k] * next;
        put(i, next);
      }
    }
  }
  put(0, first);
  return bad;
}

/// finish_piece_batched one row at a time: the CPU ranks' back substitution (their caches
/// need no loads in flight).
template <class T, class Work>
TRIAX_HOST_DEVICE std::int64_t finish_piece(const Problem& p, const Operands<T>& ops,
                                            std::int64_t s, Work w, T first, T last) {
  return finish_piece_batched<1>(p, ops, s, w, first, last);
}

}  // namespace triax::detail
