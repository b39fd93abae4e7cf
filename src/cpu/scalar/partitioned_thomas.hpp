#pragma once
// cpu_thomas_partitioned: few long systems, every thread busy (the partition method; paper 003
// applies it across MPI ranks, here it runs across the threads of one process). Each system is
// cut into K chunks of consecutive rows. The last row of every chunk but the last is an
// interface unknown R_k; the other rows of a chunk (its "interior") depend on the rest of the
// system only through the interface rows beside it.
//
//  1. Relations (parallel over chunks): two sweeps over the interior [s, e), one down and one up,
//     interleaved row by row so that their division chains overlap, express its end rows through
//     its neighbours L = x[s-1] and R = x[e]:
//        x[e-1] = bottom.delta + bottom.gamma L - bottom.kappa R
//        x[s]   = top.delta    + top.gamma R    - top.kappa L
//     Nothing is stored per row; the chunk's rows are read twice, the second time from the
//     caches (chunks are sized for them).
//  2. Reduced system (parallel over systems): row e_k of the system, with x[e_k - 1] and
//     x[e_k + 1] replaced by the relations, couples R_{k-1}, R_k, R_{k+1}: a tridiagonal system
//     of K - 1 rows, solved by Thomas in long double (it is tiny).
//  3. Interiors (parallel over chunks): Thomas on each interior with L and R known, and R_k
//     stored at its row.
//
// Every division is taken as in thomas_lanes.hpp's forward_row (binade_scale, whose s = -inf for
// a non-finite pivot makes every quotient NaN): a system scaled by a power of two is solved as the unscaled
// one. Checked mode reports the first row, in row order, where one of the eliminations of the
// three steps met a zero or non-finite pivot or a non-finite right-hand side, counting each only
// where its inputs from the other steps were clean (so that the row reported is where the
// trouble started, not where it arrived); if there is none, the last row whose x is not finite.
// The pivots are this algorithm's, not Thomas's on the whole system: a zero pivot of Thomas
// beyond the first chunk need not be one here, and then the system is solved.

#include <algorithm>
#include <cstdint>

#include "core/problem.hpp"
#include "cpu/scalar/partition_work.hpp"
#include "cpu/scalar/simd_transpose.hpp"
#include "cpu/scalar/thomas_lanes.hpp"

#ifndef TRIAX_CPU_ISA
#error "kernel headers are included through cpu/solve_batch.inc, which names the instruction set"
#endif

// The per-lane steps are lambdas called in the lane loops; GCC declined to inline some of their
// instantiations (float), leaving a call per lane and row that no vector loop survives.
#if defined(__GNUC__)
#define TRIAX_PARTITION_INLINE __attribute__((always_inline))
#else
#define TRIAX_PARTITION_INLINE
#endif

namespace triax::detail::cpu::TRIAX_CPU_ISA {

/// One row of one operand of one system: operand[i] is row i.
template <class T>
struct SystemColumn {
  const T* base;
  std::int64_t stride;
  T operator[](std::int64_t i) const { return base[i * stride]; }
};

/// The rows of one system.
template <class T>
struct SystemRows {
  SystemColumn<T> a, b, c, d;
  T* x;
  std::int64_t x_stride;
};

template <class T>
SystemRows<T> system_rows(const Problem& p, const Operands<T>& ops, std::int64_t s) {
  const auto column = [&](const T* base, int op) {
    return SystemColumn<T>{base + p.system_offset(op, s), p.map[op].row_stride};
  };
  return {column(ops.a, op_a), column(ops.b, op_b), column(ops.c, op_c), column(ops.d, op_d),
          ops.x + p.system_offset(op_x, s), p.map[op_x].row_stride};
}

/// q / m for the three right-hand sides of one elimination step, with m first brought into a
/// binade near 1 (forward_row's rule: one reciprocal, always normal; a non-finite m gives NaN).
template <class T>
struct PivotDivide {
  T s, r;
  explicit PivotDivide(T m) : s(binade_scale(m)), r(T(1) / (m * s)) {}
  T operator()(T q) const { return (q * s) * r; }
};

template <class T>
inline bool pivot_ok(T m, T rhs, T spike) {
  return m != T(0) && is_finite(m) && is_finite(rhs) && is_finite(spike);
}

/// G chunks of one system side by side, as lanes: the interiors of lane g are the rows
/// [first + g * pitch, + len), all of one length (chunks 0 .. K-2 of a system are q rows each,
/// q - 1 of them interior). Each step's recurrence runs down (or up) all lanes at once, so that
/// G independent division chains overlap where one chain per thread left the divider idle most
/// of the time (one system of 10^7 rows on 16 cores: 11.2 / 20.7 GB/s float / double, one chain
/// per chunk). `lanes` <= G are real; the others repeat the last real lane's rows (their loads
/// stay inside the system) and store nothing.
template <int G>
struct LaneGroup {
  std::int64_t first, pitch, len;
  int lanes;
  bool left[G];    // lane g's chunk has an interface row above it (a of its first row is read)
  bool has_right;  // every lane's chunk has an interface row below it (c of its last row read)

  LaneGroup(std::int64_t first_row, std::int64_t pitch_rows, std::int64_t length, int real,
            bool first_has_left, bool right)
      : first(first_row), pitch(pitch_rows), len(length), lanes(real), has_right(right) {
    // A lane beyond the real ones repeats the last real lane, and its reads with it.
    for (int g = 0; g < G; ++g) left[g] = std::min(g, lanes - 1) > 0 || first_has_left;
  }
  std::int64_t row(int g, std::int64_t j) const { return first + std::min(g, lanes - 1) * pitch + j; }
};

/// Runs step(g, j, first, last) for rows j = 0 .. len - 1 of every lane: the two end rows lane
/// by lane (they read a or c only where the neighbour exists), the rows between as lane loops
/// without branches; ahead(j) before each row.
template <int G, class Step, class Ahead>
TRIAX_PARTITION_INLINE inline void lane_sweep(std::int64_t len, Step&& step, Ahead&& ahead) {
  for (int g = 0; g < G; ++g) step(g, 0, true, len == 1);
  for (std::int64_t j = 1; j + 1 < len; ++j) {
    ahead(j);
#pragma omp simd
    for (int g = 0; g < G; ++g) step(g, j, false, false);
  }
  if (len > 1) {
    for (int g = 0; g < G; ++g) step(g, len - 1, false, true);
  }
}

/// A lane group reads 4 G streams at once, more than the hardware prefetchers follow: once per
/// cache line of rows, each lane asks for its a, b, c, d rows prefetch_lines lines ahead.
inline constexpr std::int64_t prefetch_lines = 8;
template <int G, class T>
TRIAX_PARTITION_INLINE inline void prefetch_ahead(const SystemRows<T>& sys,
                                                  const LaneGroup<G>& grp, std::int64_t j) {
  constexpr std::int64_t line = 64 / sizeof(T);
  const std::int64_t ahead = j + prefetch_lines * line;
  if (j % line != 0 || ahead >= grp.len) return;
  for (int g = 0; g < grp.lanes; ++g) {
    const std::int64_t i = grp.row(g, ahead);
    for (const SystemColumn<T>* op : {&sys.a, &sys.b, &sys.c, &sys.d}) {
      __builtin_prefetch(op->base + i * op->stride, 0, 3);
    }
  }
}

// The middle rows of the sweeps in vectors (unchecked solves on contiguous rows): lane group
// rows come in blocks of vec_block_rows rows, each operand's block read as vectors per lane and
// transposed in registers (simd_transpose.hpp's load_transposed, as the transpose kernel reads
// neighbouring systems), so that a row of the G lanes is G / V whole vectors; the row steps are
// then vector arithmetic. The scalar lane loops above left the steps scalar (GCC: strided lane
// reads), about 10 ns a row on one core for the three sweeps. The first and last rows of a sweep
// (a or c read only beside an interface row) and the rows short of a whole block stay scalar.
inline constexpr int vec_block_rows = 16;

/// Vector form of PivotDivide: the same binade scale (binade_scale's bits, lane by lane), one
/// reciprocal, q -> (q s) r.
template <class T>
struct VecDivide {
  using V = typename Vec<T>::type;
  using I = typename Vec<T>::bits;
  V s, r;
  explicit VecDivide(V m)
      : s(reinterpret_cast<V>(binade_scale_bits<T>(reinterpret_cast<I>(m)))),
        r(T(1) / (m * s)) {}
  V operator()(V q) const { return (q * s) * r; }
};

/// Whether the lane group's rows are whole vectors apart in every operand (rows contiguous), so
/// that the vector blocks apply.
template <class T>
bool rows_contiguous(const SystemRows<T>& sys) {
  return sys.a.stride == 1 && sys.b.stride == 1 && sys.c.stride == 1 && sys.d.stride == 1;
}

/// Blocks of vec_block_rows rows [j0, j0 + B) of the four operands of every lane, transposed:
/// tile[op][(r * G) + g] is row j0 + r of lane g.
template <int G, class T>
struct LaneTiles {
  static constexpr int B = vec_block_rows;
  static_assert(B % Vec<T>::lanes == 0 && G % Vec<T>::lanes == 0, "whole vectors");
  alignas(64) T tile[op_x][B * G];
  void load(const SystemRows<T>& sys, const LaneGroup<G>& grp, std::int64_t j0) {
    const SystemColumn<T>* cols[op_x] = {&sys.a, &sys.b, &sys.c, &sys.d};
    for (int op = 0; op < op_x; ++op) {
      const T* src[G];
      for (int g = 0; g < G; ++g) src[g] = cols[op]->base + grp.row(g, 0);
      load_transposed<T, G>(src, j0, B, tile[op]);
    }
  }
  const T* row(int op, int r) const { return tile[op] + r * G; }
};

/// Lane state of one sweep as vectors: kap, del (and gam for step 1) of G lanes.
template <int G, class T>
struct VecLanes {
  static constexpr int N = G / Vec<T>::lanes;
  typename Vec<T>::type kap[N], del[N], gam[N];
  void get(const T* k, const T* d, const T* g) {
    for (int q = 0; q < N; ++q) {
      kap[q] = load_vec(k + q * Vec<T>::lanes);
      del[q] = load_vec(d + q * Vec<T>::lanes);
      gam[q] = load_vec(g + q * Vec<T>::lanes);
    }
  }
  void put(T* k, T* d, T* g) const {
    for (int q = 0; q < N; ++q) {
      store_vec(k + q * Vec<T>::lanes, kap[q]);
      store_vec(d + q * Vec<T>::lanes, del[q]);
      store_vec(g + q * Vec<T>::lanes, gam[q]);
    }
  }
};

/// Step 1 for a lane group: the relations of each lane's interior. Rows j = 0 and len - 1 of
/// each sweep touch the interior's ends (a of the first row, c of the last, read only where the
/// neighbour exists) and run per lane; the rows between run as vector loops without branches.
/// In checked mode, bad[g] gets the row (+ 1) where either sweep of lane g first broke down (a
/// zero or non-finite pivot, or a non-finite right-hand side or spike; from there the sweep
/// carries NaN or inf onwards), the smaller of the two, or 0.
template <bool Checked, int G, class T>
void group_relations(const SystemRows<T>& sys, const LaneGroup<G>& grp, ChunkRelations<T>* out,
                     int* bad, bool vector_rows) {
  // Down: x[i] = del + gam L - kap x[i+1];  up: x[i] = del + gam R - kap x[i-1]. The up sweep
  // is the down sweep with a and c exchanged and the rows reversed.
  struct Sweep {
    T kap[G], del[G], gam[G];
    int bad[G] = {};
  } down, up;
  const std::int64_t len = grp.len;
  // Row j of a sweep in lane g (row `at(g, j)`): `behind` couples to the row before in the
  // sweep's direction, `ahead` to the row after; first: no row before it in the sweep; last:
  // none after; has_behind / has_ahead: whether the chunk has an interface row on that side.
  const auto step = [&](Sweep& w, const SystemColumn<T>& behind, const SystemColumn<T>& ahead,
                        std::int64_t i, int g, bool first, bool last, bool has_behind,
                        bool has_ahead) TRIAX_PARTITION_INLINE {
    T m = sys.b[i], rhs = sys.d[i], sp = T(0);
    if (!first) {
      const T e = behind[i];
      m -= e * w.kap[g];
      rhs -= e * w.del[g];
      sp = -e * w.gam[g];
    } else if (has_behind) {
      sp = -behind[i];
    }
    const PivotDivide<T> div(m);
    w.kap[g] = (!last || has_ahead) ? div(ahead[i]) : T(0);
    w.del[g] = div(rhs);
    w.gam[g] = div(sp);
    if constexpr (Checked) {
      if (w.bad[g] == 0 && !pivot_ok(m, w.del[g], w.gam[g])) w.bad[g] = int(i + 1);
    }
  };
  // Rows [1, 1 + blocks B) of the interior in vector blocks (unchecked, contiguous rows), the
  // others by the lane loops: down from memory, asking for rows ahead; up from the caches, which
  // the group's rows fit.
  constexpr int B = vec_block_rows;
  const std::int64_t blocks =
      (!Checked && vector_rows && rows_contiguous(sys) && len > 2) ? (len - 2) / B : 0;
  const std::int64_t v0 = 1, v1 = 1 + blocks * B;  // vector rows [v0, v1)
  const auto scalar_rows = [&](Sweep& w, const SystemColumn<T>& behind,
                               const SystemColumn<T>& ahead, bool up, std::int64_t t0,
                               std::int64_t t1, bool has_behind_first, bool has_ahead_last) {
    // Sweep steps t0 .. t1 - 1 (step t: row t going down, len - 1 - t going up).
    for (std::int64_t t = t0; t < t1; ++t) {
      const std::int64_t j = up ? len - 1 - t : t;
      const bool first = t == 0, last = t + 1 == len;
      if (!up && !first && !last) prefetch_ahead(sys, grp, j);
      for (int g = 0; g < G; ++g) {
        const bool hb = up ? has_behind_first : grp.left[g];
        const bool ha = up ? grp.left[g] : has_ahead_last;
        step(w, behind, ahead, grp.row(g, j), g, first, last, hb, ha);
      }
    }
  };
  const auto vector_sweep = [&](Sweep& w, bool up) {
    using VT = typename Vec<T>::type;
    constexpr int N = G / Vec<T>::lanes, L = Vec<T>::lanes;
    VecLanes<G, T> st;
    st.get(w.kap, w.del, w.gam);
    LaneTiles<G, T> tiles;
    const int beh = up ? op_c : op_a, ahd = up ? op_a : op_c;
    for (std::int64_t k = 0; k < blocks; ++k) {
      const std::int64_t j0 = up ? v1 - (k + 1) * B : v0 + k * B;
      if (!up) {
        for (int r = 0; r < B; ++r) prefetch_ahead(sys, grp, j0 + r);  // at line starts only
      }
      tiles.load(sys, grp, j0);
      for (int rr = 0; rr < B; ++rr) {
        const int r = up ? B - 1 - rr : rr;
        for (int q = 0; q < N; ++q) {
          const VT e = load_vec(tiles.row(beh, r) + q * L);
          const VT m = load_vec(tiles.row(op_b, r) + q * L) - e * st.kap[q];
          const VT rhs = load_vec(tiles.row(op_d, r) + q * L) - e * st.del[q];
          const VT sp = -e * st.gam[q];
          const VecDivide<T> div(m);
          st.kap[q] = div(load_vec(tiles.row(ahd, r) + q * L));
          st.del[q] = div(rhs);
          st.gam[q] = div(sp);
        }
      }
    }
    st.put(w.kap, w.del, w.gam);
  };
  // Down: steps 0 .. len - 1 are rows 0 .. len - 1; rows [v0, v1) are steps [v0, v1).
  scalar_rows(down, sys.a, sys.c, false, 0, v0, false, grp.has_right);
  vector_sweep(down, false);
  scalar_rows(down, sys.a, sys.c, false, v1, len, false, grp.has_right);
  // Up: step t is row len - 1 - t; rows [v0, v1) are steps (len - 1 - v1, len - 1 - v0].
  scalar_rows(up, sys.c, sys.a, true, 0, len - v1, grp.has_right, false);
  vector_sweep(up, true);
  scalar_rows(up, sys.c, sys.a, true, len - v0, len, grp.has_right, false);
  for (int g = 0; g < grp.lanes; ++g) {
    out[g] = {{up.del[g], up.gam[g], up.kap[g]}, {down.del[g], down.gam[g], down.kap[g]}};
    if constexpr (Checked) {
      const int d = down.bad[g], u = up.bad[g];
      bad[g] = (d == 0 || (u != 0 && u < d)) ? u : d;
    }
  }
}

/// Step 2 for one system: the interface values R_0 .. R_{K-2} into boundary; work holds 2K
/// long doubles (c' and d' of the reduced rows). Returns the interface row (+ 1) whose pivot or
/// right-hand side broke down first, or 0; a row counts only where step 1 found both chunks
/// beside it clean (found: step 1's findings of each chunk), since otherwise the cause lies in
/// a chunk and was recorded there.
template <bool Checked, class T>
int solve_interfaces(const SystemRows<T>& sys, std::int64_t n, std::int64_t chunks,
                     const ChunkRelations<T>* rel, const RowFindings* found, T* boundary,
                     long double* work) {
  bool upstream_clean = true;  // no chunk up to here broke down in step 1
  using L = long double;
  L* const cp = work;
  L* const dp = work + chunks;
  int first_bad = 0;
  for (std::int64_t k = 0; k + 1 < chunks; ++k) {
    const std::int64_t r = chunk_range(n, chunks, k).end - 1;
    const L a = sys.a[r], b = sys.b[r], c = sys.c[r];
    const auto& below = rel[k].bottom;   // x[r - 1]
    const auto& above = rel[k + 1].top;  // x[r + 1]
    const L lower = a * L(below.gamma);  // times R_{k-1} (gamma = 0 for k = 0)
    const L upper = c * L(above.gamma);  // times R_{k+1} (gamma = 0 for the last chunk)
    L m = b - a * L(below.kappa) - c * L(above.kappa);
    L rhs = L(sys.d[r]) - a * L(below.delta) - c * L(above.delta);
    if (k > 0) {
      m -= lower * cp[k - 1];
      rhs -= lower * dp[k - 1];
    }
    // Long double's range holds every product of T values, so no binade scaling; (m - m) still
    // turns an infinite pivot into NaN.
    cp[k] = upper / m;
    dp[k] = (rhs + (m - m)) / m;
    if constexpr (Checked) {
      upstream_clean = upstream_clean && found[k].first_bad == 0 && found[k + 1].first_bad == 0;
      const bool ok = m != 0 && is_finite(m) && is_finite(dp[k]);
      if (!ok && first_bad == 0 && upstream_clean) first_bad = static_cast<int>(r + 1);
    }
  }
  for (std::int64_t k = chunks - 2; k >= 0; --k) {
    if (k + 2 < chunks) dp[k] -= cp[k] * dp[k + 1];
    boundary[k] = static_cast<T>(dp[k]);
  }
  return first_bad;
}

/// Step 3 for a lane group: Thomas on each lane's interior with its neighbours' values left[g]
/// (row above) and right[g] (row below) where they exist, storing x, and the interface value
/// right[g] at its row. scratch: 2 x G x len values (kappa and delta of each row and lane). A
/// breakdown counts only where the lane's neighbours are finite (a non-finite one broke down
/// before, and was recorded where it did).
template <bool Accumulate, bool Checked, int G, class T>
void group_interiors(const SystemRows<T>& sys, const LaneGroup<G>& grp, const T* left,
                     const T* right, T* scratch, RowFindings* found, bool vector_rows) {
  const std::int64_t len = grp.len;
  T* const kap = scratch;
  T* const del = scratch + G * len;
  int bad[G] = {};
  const auto step = [&](int g, std::int64_t j, bool first, bool last) TRIAX_PARTITION_INLINE {
    const std::int64_t i = grp.row(g, j);
    T m = sys.b[i], rhs = sys.d[i];
    if (!first) {
      const T a = sys.a[i];
      m -= a * kap[(j - 1) * G + g];
      rhs -= a * del[(j - 1) * G + g];
    } else if (grp.left[g]) {
      rhs -= sys.a[i] * left[g];
    }
    const PivotDivide<T> div(m);
    kap[j * G + g] = (!last || grp.has_right) ? div(sys.c[i]) : T(0);
    del[j * G + g] = div(rhs);
    if constexpr (Checked) {
      if (bad[g] == 0 && !pivot_ok(m, del[j * G + g], T(0))) bad[g] = int(i + 1);
    }
  };
  // Rows [1, 1 + blocks B) in vector blocks (unchecked, contiguous rows; step 1's rule), the
  // others by the lane loops.
  constexpr int B = vec_block_rows;
  const std::int64_t blocks =
      (!Checked && vector_rows && rows_contiguous(sys) && len > 2) ? (len - 2) / B : 0;
  const std::int64_t v1 = 1 + blocks * B;
  if (blocks == 0) {
    lane_sweep<G>(len, step, [&](std::int64_t j) { prefetch_ahead(sys, grp, j); });
  } else {
    for (int g = 0; g < G; ++g) step(g, 0, true, false);
    using VT = typename Vec<T>::type;
    constexpr int N = G / Vec<T>::lanes, L = Vec<T>::lanes;
    VT kv[N], dv[N];
    for (int q = 0; q < N; ++q) {
      kv[q] = load_vec(kap + q * L);
      dv[q] = load_vec(del + q * L);
    }
    LaneTiles<G, T> tiles;
    for (std::int64_t j0 = 1; j0 < v1; j0 += B) {
      for (int r = 0; r < B; ++r) prefetch_ahead(sys, grp, j0 + r);  // at line starts only
      tiles.load(sys, grp, j0);
      for (int r = 0; r < B; ++r) {
        T* kr = kap + (j0 + r) * G;
        T* dr = del + (j0 + r) * G;
        for (int q = 0; q < N; ++q) {
          const VT a = load_vec(tiles.row(op_a, r) + q * L);
          const VecDivide<T> div(load_vec(tiles.row(op_b, r) + q * L) - a * kv[q]);
          const VT rhs = load_vec(tiles.row(op_d, r) + q * L) - a * dv[q];
          kv[q] = div(load_vec(tiles.row(op_c, r) + q * L));
          dv[q] = div(rhs);
          store_vec(kr + q * L, kv[q]);
          store_vec(dr + q * L, dv[q]);
        }
      }
    }
    for (std::int64_t j = v1; j < len; ++j) {
      if (j + 1 < len) prefetch_ahead(sys, grp, j);
      for (int g = 0; g < G; ++g) step(g, j, false, j + 1 == len);
    }
  }

  int last_nonfinite[G] = {};
  const auto store = [&](int g, std::int64_t i, T v) {
    T& out = sys.x[i * sys.x_stride];
    if constexpr (Accumulate) {
      out += v;
    } else {
      out = v;
    }
    if constexpr (Checked) {
      if (!is_finite(out)) last_nonfinite[g] = std::max(last_nonfinite[g], int(i + 1));
    }
  };
  T next[G];
  for (int g = 0; g < grp.lanes; ++g) {
    next[g] = grp.has_right ? right[g] : T(0);
    if (grp.has_right) store(g, grp.row(g, len), right[g]);
  }
  for (std::int64_t j = len - 1; j >= 0; --j) {
    for (int g = 0; g < grp.lanes; ++g) {
      next[g] = del[j * G + g] - kap[j * G + g] * next[g];
      store(g, grp.row(g, j), next[g]);
    }
  }
  if constexpr (Checked) {
    for (int g = 0; g < grp.lanes; ++g) {
      const bool ends_finite = is_finite(left[g]) && is_finite(right[g]);
      found[g] = {ends_finite ? bad[g] : 0, last_nonfinite[g]};
    }
  }
}

/// The lane groups of one system: chunks 0 .. K-2 (q rows each, the last one an interface row)
/// in groups of G, and the last chunk (the rest of the system, no interface row) alone.
template <int G>
struct SystemGroups {
  std::int64_t n, chunks, q, groups;
  SystemGroups(std::int64_t rows, std::int64_t k)
      : n(rows), chunks(k), q(rows / k), groups((k - 1 + G - 1) / G + 1) {}

  /// Group h: its first chunk, and its lanes (chunk first + g is lane g).
  std::int64_t first_chunk(std::int64_t h) const { return h * G; }
  int lanes(std::int64_t h) const {
    return h + 1 == groups ? 1 : static_cast<int>(std::min<std::int64_t>(G, chunks - 1 - h * G));
  }
  bool last(std::int64_t h) const { return h + 1 == groups; }
  LaneGroup<G> lane_group(std::int64_t h) const {
    const std::int64_t k0 = last(h) ? chunks - 1 : first_chunk(h);
    const std::int64_t len = last(h) ? n - k0 * q : q - 1;
    return LaneGroup<G>(k0 * q, q, len, lanes(h), k0 > 0, !last(h));
  }
  std::int64_t chunk0(std::int64_t h) const { return last(h) ? chunks - 1 : first_chunk(h); }
};


/// Checked mode: each system's info from its chunks' and its interface's findings, the first
/// breakdown row (1-based) if any, else the last row with a non-finite result (0: none).
template <class T, class ForEach>
void merge_partition_findings(std::int64_t count, std::int64_t K, const PartitionWork<T>& w,
                              int* info, ForEach&& for_each) {
  for_each(count, [&](std::int64_t s, int) {
    int first = w.interface_bad[s], last = 0;
    for (std::int64_t k = 0; k < K; ++k) {
      const RowFindings& f = w.findings[s * K + k];
      if (f.first_bad != 0 && (first == 0 || f.first_bad < first)) first = f.first_bad;
      last = std::max(last, f.last_nonfinite);
    }
    info[s] = first != 0 ? first : last;
  });
}

template <bool Accumulate, bool Checked, class T, class ForEach>
void partitioned_thomas(const Problem& p, const Operands<T>& ops, const PartitionWork<T>& w,
                        ForEach&& for_each) {
  constexpr int G = partition_lanes;
  const std::int64_t K = w.chunks;
  const SystemGroups<G> sg(p.n, K);
  const std::int64_t tasks = p.count * sg.groups;
  for_each(tasks, [&](std::int64_t task, int) {
    const std::int64_t s = task / sg.groups, h = task % sg.groups;
    const std::int64_t k0 = s * K + sg.chunk0(h);
    int bad[G] = {};
    group_relations<Checked>(system_rows(p, ops, s), sg.lane_group(h), w.relations + k0, bad,
                             w.vector_rows);
    if constexpr (Checked) {
      for (int g = 0; g < sg.lanes(h); ++g) w.findings[k0 + g] = {bad[g], 0};
    }
  });
  for_each(p.count, [&](std::int64_t s, int t) {
    const int bad = solve_interfaces<Checked>(system_rows(p, ops, s), p.n, K, w.relations + s * K,
                                              w.findings + s * K, w.boundary + s * (K - 1),
                                              w.reduced + 2 * K * t);
    if constexpr (Checked) w.interface_bad[s] = bad;
  });
  for_each(tasks, [&](std::int64_t task, int t) {
    const std::int64_t s = task / sg.groups, h = task % sg.groups;
    const std::int64_t c0 = sg.chunk0(h);
    const LaneGroup<G> grp = sg.lane_group(h);
    const T* bound = w.boundary + s * (K - 1);
    T left[G], right[G];
    for (int g = 0; g < G; ++g) {
      const std::int64_t k = c0 + std::min(g, grp.lanes - 1);
      left[g] = k > 0 ? bound[k - 1] : T(0);
      right[g] = k + 1 < K ? bound[k] : T(0);
    }
    RowFindings found[G];
    group_interiors<Accumulate, Checked>(system_rows(p, ops, s), grp, left, right,
                                         w.scratch + w.scratch_per_thread * t, found,
                                         w.vector_rows);
    if constexpr (Checked) {
      for (int g = 0; g < grp.lanes; ++g) {
        RowFindings& f = w.findings[s * K + c0 + g];
        if (found[g].first_bad != 0 && (f.first_bad == 0 || found[g].first_bad < f.first_bad)) {
          f.first_bad = found[g].first_bad;
        }
        f.last_nonfinite = found[g].last_nonfinite;
      }
    }
  });
  if constexpr (Checked) merge_partition_findings(p.count, K, w, ops.info, for_each);
}

}  // namespace triax::detail::cpu::TRIAX_CPU_ISA
