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
// Every division is taken as in thomas_lanes.hpp's forward_row (binade_scale, and (m - m) so that
// an infinite pivot shows as NaN): a system scaled by a power of two is solved as the unscaled
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
#include "cpu/scalar/thomas_lanes.hpp"

#ifndef TRIAX_CPU_ISA
#error "kernel headers are included through cpu/solve_batch.inc, which names the instruction set"
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
/// binade near 1 (forward_row's rule: one reciprocal, always normal; an infinite m gives NaN).
template <class T>
struct PivotDivide {
  T s, r, nan_if_inf;
  explicit PivotDivide(T m) : s(binade_scale(m)), r(T(1) / (m * s)), nan_if_inf(m - m) {}
  T operator()(T q) const { return (q * s) * r; }
  T rhs(T q) const { return ((q + nan_if_inf) * s) * r; }
};

/// Step 1 for the interior [s, e) of a chunk; has_left / has_right: whether row s - 1 / row e
/// belong to the system (a[s] and c[e-1] are read only then).
/// In checked mode, `bad` gets the row (+ 1) where either sweep first broke down (a zero or
/// non-finite pivot, or a non-finite right-hand side or spike; from there the sweep carries
/// NaN or inf onwards), the smaller of the two, or keeps 0.
template <bool Checked, class T>
ChunkRelations<T> chunk_relations(const SystemRows<T>& sys, std::int64_t s, std::int64_t e,
                                  bool has_left, bool has_right, int& bad) {
  int down_bad = 0, up_bad = 0;
  // Down: x[i] = del + gam L - kap x[i+1];  up: x[i] = del_u + gam_u R - kap_u x[i-1].
  T kap = 0, del = 0, gam = 0, kap_u = 0, del_u = 0, gam_u = 0;
  const std::int64_t len = e - s;
  for (std::int64_t j = 0; j < len; ++j) {
    {
      const std::int64_t i = s + j;
      T m = sys.b[i], rhs = sys.d[i], g = T(0);
      if (j > 0) {
        const T a = sys.a[i];
        m -= a * kap;
        rhs -= a * del;
        g = -a * gam;
      } else if (has_left) {
        g = -sys.a[i];
      }
      const PivotDivide<T> div(m);
      kap = (i + 1 < e || has_right) ? div(sys.c[i]) : T(0);
      del = div.rhs(rhs);
      gam = div(g);
      if constexpr (Checked) {
        if (down_bad == 0 && !(m != T(0) && is_finite(m) && is_finite(del) && is_finite(gam))) {
          down_bad = int(i + 1);
        }
      }
    }
    {
      const std::int64_t i = e - 1 - j;
      T m = sys.b[i], rhs = sys.d[i], g = T(0);
      if (j > 0) {
        const T c = sys.c[i];
        m -= c * kap_u;
        rhs -= c * del_u;
        g = -c * gam_u;
      } else if (has_right) {
        g = -sys.c[i];
      }
      const PivotDivide<T> div(m);
      kap_u = (i > s || has_left) ? div(sys.a[i]) : T(0);
      del_u = div.rhs(rhs);
      gam_u = div(g);
      if constexpr (Checked) {
        if (up_bad == 0 && !(m != T(0) && is_finite(m) && is_finite(del_u) && is_finite(gam_u))) {
          up_bad = int(i + 1);
        }
      }
    }
  }
  if constexpr (Checked) bad = (down_bad == 0 || (up_bad != 0 && up_bad < down_bad)) ? up_bad : down_bad;
  return {{del_u, gam_u, kap_u}, {del, gam, kap}};
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

/// Step 3 for the interior [s, e) with its neighbours' values left (row s - 1) and right (row
/// e) where they exist, and the interface value of row e stored when has_right. kap and del
/// are scratch of e - s values. A breakdown counts only where left and right are finite (a
/// non-finite one broke down before, and was recorded where it did).
template <bool Accumulate, bool Checked, class T>
RowFindings solve_interior(const SystemRows<T>& sys, std::int64_t s, std::int64_t e,
                           bool has_left, T left, bool has_right, T right, T* kap, T* del) {
  RowFindings found;
  const bool ends_finite = is_finite(left) && is_finite(right);
  const std::int64_t len = e - s;
  for (std::int64_t j = 0; j < len; ++j) {
    const std::int64_t i = s + j;
    T m = sys.b[i], rhs = sys.d[i];
    if (j > 0) {
      const T a = sys.a[i];
      m -= a * kap[j - 1];
      rhs -= a * del[j - 1];
    } else if (has_left) {
      rhs -= sys.a[i] * left;
    }
    const PivotDivide<T> div(m);
    kap[j] = (i + 1 < e || has_right) ? div(sys.c[i]) : T(0);
    del[j] = div.rhs(rhs);
    if constexpr (Checked) {
      const bool ok = m != T(0) && is_finite(m) && is_finite(del[j]);
      if (!ok && found.first_bad == 0 && ends_finite) found.first_bad = static_cast<int>(i + 1);
    }
  }
  const auto store = [&](std::int64_t i, T v) {
    T& out = sys.x[i * sys.x_stride];
    if constexpr (Accumulate) {
      out += v;
    } else {
      out = v;
    }
    if constexpr (Checked) {
      if (!is_finite(out)) found.last_nonfinite = std::max(found.last_nonfinite, int(i + 1));
    }
  };
  if (has_right) store(e, right);
  T next = has_right ? right : T(0);
  for (std::int64_t j = len - 1; j >= 0; --j) {
    next = del[j] - kap[j] * next;
    store(s + j, next);
  }
  return found;
}

template <bool Accumulate, bool Checked, class T, class ForEach>
void partitioned_thomas(const Problem& p, const Operands<T>& ops, const PartitionWork<T>& w,
                        ForEach&& for_each) {
  const std::int64_t n = p.n, K = w.chunks;
  const std::int64_t tasks = p.count * K;
  for_each(tasks, [&](std::int64_t task, int) {
    const std::int64_t s = task / K, k = task % K;
    const ChunkRange r = chunk_range(n, K, k);
    const bool has_right = k + 1 < K;
    int bad = 0;
    w.relations[task] = chunk_relations<Checked>(system_rows(p, ops, s), r.begin,
                                                 has_right ? r.end - 1 : r.end, k > 0, has_right,
                                                 bad);
    if constexpr (Checked) w.findings[task] = {bad, 0};
  });
  for_each(p.count, [&](std::int64_t s, int t) {
    const int bad = solve_interfaces<Checked>(system_rows(p, ops, s), n, K, w.relations + s * K,
                                              w.findings + s * K, w.boundary + s * (K - 1),
                                              w.reduced + 2 * K * t);
    if constexpr (Checked) w.interface_bad[s] = bad;
  });
  for_each(tasks, [&](std::int64_t task, int t) {
    const std::int64_t s = task / K, k = task % K;
    const ChunkRange r = chunk_range(n, K, k);
    const bool has_right = k + 1 < K;
    const T* bound = w.boundary + s * (K - 1);
    T* kap = w.scratch + w.scratch_per_thread * t;
    const RowFindings found = solve_interior<Accumulate, Checked>(
        system_rows(p, ops, s), r.begin, has_right ? r.end - 1 : r.end, k > 0,
        k > 0 ? bound[k - 1] : T(0), has_right, has_right ? bound[k] : T(0), kap,
        kap + w.scratch_per_thread / 2);
    if constexpr (Checked) {
      RowFindings& f = w.findings[task];
      if (found.first_bad != 0 && (f.first_bad == 0 || found.first_bad < f.first_bad)) {
        f.first_bad = found.first_bad;
      }
      f.last_nonfinite = found.last_nonfinite;
    }
  });
  if constexpr (Checked) {
    for_each(p.count, [&](std::int64_t s, int) {
      int first = w.interface_bad[s], last = 0;
      for (std::int64_t k = 0; k < K; ++k) {
        const RowFindings& f = w.findings[s * K + k];
        if (f.first_bad != 0 && (first == 0 || f.first_bad < first)) first = f.first_bad;
        last = std::max(last, f.last_nonfinite);
      }
      ops.info[s] = first != 0 ? first : last;
    });
  }
}

}  // namespace triax::detail::cpu::TRIAX_CPU_ISA
