#pragma once
// cpu_thomas_partitioned where the rows are not contiguous (systems along an axis >= 1): the
// same three steps as partitioned_thomas.hpp, but the lanes of a vector are up to
// strip_partition_lanes neighbouring systems (batch dimension 0, whose row i lies side by side in
// memory), not chunks of one system. A task is one chunk of rows of every system of a strip, so
// that a batch of a few systems keeps every thread busy (the strip kernel gave them one work
// item), each thread reads whole runs of neighbouring systems (chunk-lanes of one system read
// every cache line once per system and thread), and the lane loops run over contiguous values.
//
// Step 1 sweeps a chunk's interior down and then up; the chunk's rows of the strip are sized to
// stay in the caches for the second sweep (strip_partition_chunks in cpu_plan.cpp). Step 2 is
// partitioned_thomas.hpp's solve_interfaces, per system. Step 3 is Thomas on each interior with
// its interface values known. Divisions, checked-mode findings and their merging are those of
// partitioned_thomas.hpp, chunk by chunk, so both variants report the same rows.

#include <algorithm>
#include <cstdint>

#include "cpu/scalar/partitioned_thomas.hpp"

namespace triax::detail::cpu::TRIAX_CPU_ISA {

/// The rows of a strip of w systems starting at system s0: row i of operand op, lane j, is
/// base[op][i * rs[op] + j * ls[op]].
template <class T>
struct StripRows {
  const T* base[op_x];
  std::int64_t rs[op_x], ls[op_x];
  T* x;
  std::int64_t xrs, xls;
  int w;

  StripRows(const Problem& p, const Operands<T>& ops, std::int64_t s0, int lanes) : w(lanes) {
    const T* in[op_x] = {ops.a, ops.b, ops.c, ops.d};
    for (int op = 0; op < op_x; ++op) {
      base[op] = in[op] + p.system_offset(op, s0);
      rs[op] = p.map[op].row_stride;
      ls[op] = p.batch_rank > 0 ? p.map[op].batch_strides[0] : 0;
    }
    x = ops.x + p.system_offset(op_x, s0);
    xrs = p.map[op_x].row_stride;
    xls = p.batch_rank > 0 ? p.map[op_x].batch_strides[0] : 0;
  }

  /// Row i of operand op as w contiguous values: in place where the lanes are, else gathered
  /// into buf (padded or broadcast operands).
  const T* row(int op, std::int64_t i, T* buf) const {
    const T* r = base[op] + i * rs[op];
    if (ls[op] == 1) return r;
    for (int j = 0; j < w; ++j) buf[j] = r[j * ls[op]];
    return buf;
  }
};

/// One row of a step-1 sweep over w lanes: `be` couples to the row before in the sweep's
/// direction (on the first row, null where the chunk has no interface row on that side), `ah`
/// to the row after (read only where Ahead).
template <bool First, bool Ahead, bool Checked, class T>
TRIAX_PARTITION_INLINE inline void sweep_row(int w, std::int64_t i, const T* be, const T* b,
                                             const T* ah, const T* d, T* kap, T* del, T* gam,
                                             int* bad) {
  if (First && be == nullptr) {
#pragma omp simd
    for (int j = 0; j < w; ++j) {
      const PivotDivide<T> div(b[j]);
      kap[j] = Ahead ? div(ah[j]) : T(0);
      del[j] = div(d[j]);
      gam[j] = div(T(0));
      if constexpr (Checked) {
        const bool ok = pivot_ok(b[j], del[j], gam[j]);
        bad[j] = (!ok && bad[j] == 0) ? int(i + 1) : bad[j];
      }
    }
    return;
  }
#pragma omp simd
  for (int j = 0; j < w; ++j) {
    T m = b[j], rhs = d[j], sp;
    if constexpr (First) {
      sp = -be[j];
    } else {
      m -= be[j] * kap[j];
      rhs -= be[j] * del[j];
      sp = -be[j] * gam[j];
    }
    const PivotDivide<T> div(m);
    kap[j] = Ahead ? div(ah[j]) : T(0);
    del[j] = div(rhs);
    gam[j] = div(sp);
    if constexpr (Checked) {
      const bool ok = pivot_ok(m, del[j], gam[j]);
      bad[j] = (!ok && bad[j] == 0) ? int(i + 1) : bad[j];
    }
  }
}

/// One chunk's interior [b0, e) of a strip: which rows, and whether an interface row lies above
/// (row b0 - 1) and below (row e).
struct Interior {
  std::int64_t b0, e;
  bool left, right;
};

inline Interior chunk_interior(std::int64_t n, std::int64_t chunks, std::int64_t k) {
  const ChunkRange r = chunk_range(n, chunks, k);
  const bool right = k + 1 < chunks;
  return {r.begin, right ? r.end - 1 : r.end, k > 0, right};
}

/// The lane state of one step-1 sweep of one chunk.
template <class T>
struct SweepLanes {
  alignas(64) T kap[strip_partition_lanes], del[strip_partition_lanes], gam[strip_partition_lanes];
  int bad[strip_partition_lanes] = {};
};

/// One step-1 sweep (down, or up: a and c exchanged, rows reversed) of G chunks whose interiors
/// have the same length, row t of every chunk before row t + 1 of any.
template <bool Checked, class T>
void sweep_chunks(const StripRows<T>& r, const Interior* in, int G, bool up, SweepLanes<T>* s) {
  constexpr int L = strip_partition_lanes;
  const int w = r.w;
  const int beh = up ? op_c : op_a, ahd = up ? op_a : op_c;
  const std::int64_t len = in[0].e - in[0].b0;
  alignas(64) T buf[op_x][L];
  const auto rows = [&](std::int64_t i, int op) { return r.row(op, i, buf[op]); };
  const auto at = [&](int c, std::int64_t t) { return up ? in[c].e - 1 - t : in[c].b0 + t; };
  const auto has_behind = [&](int c) { return up ? in[c].right : in[c].left; };
  const auto has_ahead = [&](int c) { return up ? in[c].left : in[c].right; };
  for (int c = 0; c < G; ++c) {
    const std::int64_t i = at(c, 0);
    const T* be = has_behind(c) ? rows(i, beh) : nullptr;
    SweepLanes<T>& x = s[c];
    if (len > 1 || has_ahead(c)) {
      sweep_row<true, true, Checked, T>(w, i, be, rows(i, op_b), rows(i, ahd), rows(i, op_d), x.kap,
                                        x.del, x.gam, x.bad);
    } else {
      sweep_row<true, false, Checked, T>(w, i, be, rows(i, op_b), nullptr, rows(i, op_d), x.kap,
                                         x.del, x.gam, x.bad);
    }
  }
  for (std::int64_t t = 1; t + 1 < len; ++t) {
    for (int c = 0; c < G; ++c) {
      const std::int64_t i = at(c, t);
      SweepLanes<T>& x = s[c];
      sweep_row<false, true, Checked, T>(w, i, rows(i, beh), rows(i, op_b), rows(i, ahd),
                                         rows(i, op_d), x.kap, x.del, x.gam, x.bad);
    }
  }
  if (len < 2) return;
  for (int c = 0; c < G; ++c) {
    const std::int64_t i = at(c, len - 1);
    SweepLanes<T>& x = s[c];
    if (has_ahead(c)) {
      sweep_row<false, true, Checked, T>(w, i, rows(i, beh), rows(i, op_b), rows(i, ahd),
                                         rows(i, op_d), x.kap, x.del, x.gam, x.bad);
    } else {
      sweep_row<false, false, Checked, T>(w, i, rows(i, beh), rows(i, op_b), nullptr,
                                          rows(i, op_d), x.kap, x.del, x.gam, x.bad);
    }
  }
}

/// Step 1 for G chunks of a strip (interiors of one length): the relations of every lane's
/// interior of chunk c into rel[c + j * K], and in checked mode the first bad row of either
/// sweep into found[c + j * K]. The down sweep reads the rows from memory, the up sweep from
/// the caches.
template <bool Checked, class T>
void strip_relations(const StripRows<T>& r, const Interior* in, int G, ChunkRelations<T>* rel,
                     RowFindings* found, std::int64_t K) {
  SweepLanes<T> down[strip_chunk_group], up[strip_chunk_group];
  sweep_chunks<Checked>(r, in, G, false, down);
  sweep_chunks<Checked>(r, in, G, true, up);
  for (int c = 0; c < G; ++c) {
    const SweepLanes<T>& dn = down[c];
    const SweepLanes<T>& u = up[c];
    for (int j = 0; j < r.w; ++j) {
      rel[c + j * K] = {{u.del[j], u.gam[j], u.kap[j]}, {dn.del[j], dn.gam[j], dn.kap[j]}};
      if constexpr (Checked) {
        const int d = dn.bad[j], b = u.bad[j];
        found[c + j * K] = {(d == 0 || (b != 0 && b < d)) ? b : d, 0};
      }
    }
  }
}

/// One forward row of step 3: Thomas with the row above's kappa, delta in kp, dp (First: the
/// interface value `left` times a, where a is given).
template <bool First, bool Ahead, bool Checked, class T>
TRIAX_PARTITION_INLINE inline void interior_row(int w, std::int64_t i, const T* a, const T* b,
                                                const T* c, const T* d, const T* left,
                                                const T* kp, const T* dp, T* kap, T* del,
                                                int* bad) {
#pragma omp simd
  for (int j = 0; j < w; ++j) {
    T m = b[j], rhs = d[j];
    if constexpr (First) {
      if (a != nullptr) rhs -= a[j] * left[j];
    } else {
      m -= a[j] * kp[j];
      rhs -= a[j] * dp[j];
    }
    const PivotDivide<T> div(m);
    kap[j] = Ahead ? div(c[j]) : T(0);
    del[j] = div(rhs);
    if constexpr (Checked) {
      const bool ok = pivot_ok(m, del[j], T(0));
      bad[j] = (!ok && bad[j] == 0) ? int(i + 1) : bad[j];
    }
  }
}

/// Stores (or adds) row i of x for every lane; checked mode keeps the last non-finite row.
template <bool Accumulate, bool Checked, class T>
inline void store_strip_row(const StripRows<T>& r, std::int64_t i, const T* v, int* last) {
  T* out = r.x + i * r.xrs;
  const auto put = [&](int j, T& o) {
    o = Accumulate ? o + v[j] : v[j];
    if constexpr (Checked) last[j] = !is_finite(o) ? std::max(last[j], int(i + 1)) : last[j];
  };
  if (r.xls == 1) {
#pragma omp simd
    for (int j = 0; j < r.w; ++j) put(j, out[j]);
  } else {
    for (int j = 0; j < r.w; ++j) put(j, out[j * r.xls]);
  }
}

/// Step 3 for G chunks of a strip (interiors of one length): Thomas on each lane's interior of
/// chunk c between its interface values left[c][j] and right[c][j], in lockstep; kappa and
/// delta of every row in scratch (2 x L x rows of the interior per chunk). found[c][j]: the
/// lane's findings.
template <bool Accumulate, bool Checked, class T>
void strip_interiors(const StripRows<T>& r, const Interior* in, int G,
                     const T (*left)[strip_partition_lanes],
                     const T (*right)[strip_partition_lanes], T* scratch,
                     RowFindings (*found)[strip_partition_lanes]) {
  constexpr int L = strip_partition_lanes;
  const int w = r.w;
  alignas(64) T buf[op_x][L];
  int bad[strip_chunk_group][L] = {}, last[strip_chunk_group][L] = {};
  const auto rows = [&](std::int64_t i, int op) { return r.row(op, i, buf[op]); };
  const std::int64_t len = in[0].e - in[0].b0;
  const auto kap = [&](int c, std::int64_t t) { return scratch + (2 * c * len + t) * L; };
  const auto del = [&](int c, std::int64_t t) { return scratch + (2 * c * len + len + t) * L; };
  for (std::int64_t t = 0; t < len; ++t) {
    for (int c = 0; c < G; ++c) {
      const std::int64_t i = in[c].b0 + t;
      const bool ahead = t + 1 < len || in[c].right;
      const T* a = (t > 0 || in[c].left) ? rows(i, op_a) : nullptr;
      const T* cc = ahead ? rows(i, op_c) : nullptr;
      const T* b = rows(i, op_b);
      const T* d = rows(i, op_d);
      T* kj = kap(c, t);
      T* dj = del(c, t);
      if (t == 0) {
        if (ahead) {
          interior_row<true, true, Checked, T>(w, i, a, b, cc, d, left[c], nullptr, nullptr, kj, dj,
                                               bad[c]);
        } else {
          interior_row<true, false, Checked, T>(w, i, a, b, cc, d, left[c], nullptr, nullptr, kj,
                                                dj, bad[c]);
        }
      } else if (ahead) {
        interior_row<false, true, Checked, T>(w, i, a, b, cc, d, left[c], kj - L, dj - L, kj, dj,
                                              bad[c]);
      } else {
        interior_row<false, false, Checked, T>(w, i, a, b, cc, d, left[c], kj - L, dj - L, kj, dj,
                                               bad[c]);
      }
    }
  }
  alignas(64) T next[strip_chunk_group][L];
  for (int c = 0; c < G; ++c) {
    for (int j = 0; j < w; ++j) next[c][j] = in[c].right ? right[c][j] : T(0);
    if (in[c].right) store_strip_row<Accumulate, Checked>(r, in[c].e, next[c], last[c]);
  }
  for (std::int64_t t = len - 1; t >= 0; --t) {
    for (int c = 0; c < G; ++c) {
      const T* kj = kap(c, t);
      const T* dj = del(c, t);
      T* nx = next[c];
#pragma omp simd
      for (int j = 0; j < w; ++j) nx[j] = dj[j] - kj[j] * nx[j];
      store_strip_row<Accumulate, Checked>(r, in[c].b0 + t, nx, last[c]);
    }
  }
  if constexpr (Checked) {
    for (int c = 0; c < G; ++c) {
      for (int j = 0; j < w; ++j) {
        const bool ends_finite = is_finite(left[c][j]) && is_finite(right[c][j]);
        found[c][j] = {ends_finite ? bad[c][j] : 0, last[c][j]};
      }
    }
  }
}

/// The tasks of one strip: chunks 0 .. K-2 (interiors of q - 1 rows) in groups of
/// strip_chunk_group, and the last chunk (the rest of the system) alone.
struct StripGroups {
  std::int64_t n, chunks, groups;
  StripGroups(std::int64_t rows, std::int64_t k)
      : n(rows), chunks(k), groups((k - 1 + strip_chunk_group - 1) / strip_chunk_group + 1) {}
  /// Group h's first chunk and chunk count, and their interiors.
  int chunks_of(std::int64_t h, std::int64_t& k0, Interior* in) const {
    const bool last = h + 1 == groups;
    k0 = last ? chunks - 1 : h * strip_chunk_group;
    const int G = last ? 1 : static_cast<int>(std::min<std::int64_t>(strip_chunk_group, chunks - 1 - k0));
    for (int c = 0; c < G; ++c) in[c] = chunk_interior(n, chunks, k0 + c);
    return G;
  }
};

template <bool Accumulate, bool Checked, class T, class ForEach>
void strip_partitioned(const Problem& p, const Operands<T>& ops, const PartitionWork<T>& w,
                       ForEach&& for_each) {
  constexpr int L = strip_partition_lanes;
  constexpr int GM = strip_chunk_group;
  const std::int64_t K = w.chunks, n = p.n;
  const std::int64_t e0 = p.batch_rank > 0 ? p.batch_extents[0] : 1;
  if (e0 == 0 || p.count == 0) return;
  const std::int64_t per_line = (e0 + L - 1) / L;
  const std::int64_t strips = (p.count / e0) * per_line;
  const StripGroups sg(n, K);
  // Strip st: its first system and its lanes.
  const auto strip = [&](std::int64_t st, std::int64_t& s0) {
    const std::int64_t j0 = (st % per_line) * L;
    s0 = (st / per_line) * e0 + j0;
    return static_cast<int>(std::min<std::int64_t>(L, e0 - j0));
  };
  for_each(strips * sg.groups, [&](std::int64_t task, int) {
    std::int64_t s0, k0;
    const int lanes = strip(task / sg.groups, s0);
    Interior in[GM];
    const int G = sg.chunks_of(task % sg.groups, k0, in);
    strip_relations<Checked>(StripRows<T>(p, ops, s0, lanes), in, G, w.relations + s0 * K + k0,
                             w.findings + s0 * K + k0, K);
  });
  for_each(p.count, [&](std::int64_t s, int t) {
    const int bad = solve_interfaces<Checked>(system_rows(p, ops, s), n, K, w.relations + s * K,
                                              w.findings + s * K, w.boundary + s * (K - 1),
                                              w.reduced + 2 * K * t);
    if constexpr (Checked) w.interface_bad[s] = bad;
  });
  for_each(strips * sg.groups, [&](std::int64_t task, int t) {
    std::int64_t s0, k0;
    const int lanes = strip(task / sg.groups, s0);
    Interior in[GM];
    const int G = sg.chunks_of(task % sg.groups, k0, in);
    T left[GM][L], right[GM][L];
    for (int c = 0; c < G; ++c) {
      const std::int64_t k = k0 + c;
      for (int j = 0; j < lanes; ++j) {
        const T* bound = w.boundary + (s0 + j) * (K - 1);
        left[c][j] = k > 0 ? bound[k - 1] : T(0);
        right[c][j] = k + 1 < K ? bound[k] : T(0);
      }
    }
    RowFindings found[GM][L];
    strip_interiors<Accumulate, Checked>(StripRows<T>(p, ops, s0, lanes), in, G, left, right,
                                         w.scratch + w.scratch_per_thread * t, found);
    if constexpr (Checked) {
      for (int c = 0; c < G; ++c) {
        for (int j = 0; j < lanes; ++j) {
          RowFindings& f = w.findings[(s0 + j) * K + k0 + c];
          const RowFindings& g = found[c][j];
          if (g.first_bad != 0 && (f.first_bad == 0 || g.first_bad < f.first_bad)) {
            f.first_bad = g.first_bad;
          }
          f.last_nonfinite = g.last_nonfinite;
        }
      }
    }
  });
  if constexpr (Checked) merge_partition_findings(p.count, K, w, ops.info, for_each);
}

}  // namespace triax::detail::cpu::TRIAX_CPU_ISA
