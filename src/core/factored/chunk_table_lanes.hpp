#pragma once
// The chunk table of one matrix (chunk_table.hpp: partition, fields, formulas) built lane by lane,
// one lane per chunk, in double: the form a warp can run on the device at each solve, for a
// triax::Solver whose systems all share one matrix that lives in device memory (the factored
// plan builds its table on the host, in long double, once: chunk_matrix). The phases below are
// separated where one lane reads what another wrote (a __syncwarp on the device, the end of a
// loop over the lanes on the host); between them each lane's work is its own.
//
//   1. factor: lane j < P factors its chunk's interior (m, r, e), solves for its coupling
//      columns g and h, and writes its table (tables = P, uncompressed); it leaves g and h at
//      the interior's two ends for the reduced system.
//   2. reduce: lane j < P - 1 forms separator j's row of the Schur complement from its own ends
//      and lane j + 1's.
//   3. one PCR level at a time, each lane from its neighbours 2^l away (double buffered), and
//      finally the reciprocal pivots.
// The values agree with chunk_matrix's to the rounding of double against long double; a zero or
// non-finite pivot, or a value T cannot hold, clears `ok` as chunk_matrix refuses the matrix.
#include <cmath>
#include <cstdint>

#include "core/factored/chunk_table.hpp"
#include "core/problem.hpp"

namespace triax::detail {

/// One matrix's diagonals: row i of a at i * stride_a, of b at i * stride_b, of c at i *
/// stride_c (a stride 0: one value for every row; a[0], c[n-1] unread).
template <class T>
struct MatrixRows {
  const T* a;
  const T* b;
  const T* c;
  std::int64_t stride_a;
  std::int64_t stride_b;
  std::int64_t stride_c;
  TRIAX_HOST_DEVICE double a_at(std::int64_t i) const { return double(a[i * stride_a]); }
  TRIAX_HOST_DEVICE double b_at(std::int64_t i) const { return double(b[i * stride_b]); }
  TRIAX_HOST_DEVICE double c_at(std::int64_t i) const { return double(c[i * stride_c]); }
};

/// What the lanes share between phases (shared memory on the device).
struct ChunkLanesShared {
  double g_first[chunk_lanes], g_last[chunk_lanes], h_first[chunk_lanes], h_last[chunk_lanes];
  double sub[2][chunk_lanes], diag[2][chunk_lanes], sup[2][chunk_lanes];
  int ok[chunk_lanes];
};

/// The layout of n rows' table (rows_per_chunk rows a chunk, 8, 16 or 32 with n <= 32 of them;
/// 0: chunk_rows_for(n), the fewest; every chunk its own table); levels from P. n must be 1 ..
/// chunk_table_max_n.
template <class T>
TRIAX_HOST_DEVICE ChunkView<T> chunk_lanes_layout(int n, int rows_per_chunk = 0) {
  ChunkView<T> v;
  v.n = n;
  v.M = rows_per_chunk > 0 ? rows_per_chunk : chunk_rows_for(n);
  v.P = (n + v.M - 1) / v.M;
  v.W = 1;
  while (v.W < v.P) v.W *= 2;
  v.tables = v.P;
  v.compressed = false;
  v.levels = 0;
  for (int stride = 1; stride < v.P - 1; stride *= 2) ++v.levels;
  return v;
}

/// Values of the table laid out by v: rows then reduced (ChunkTable::values).
template <class T>
TRIAX_HOST_DEVICE std::int64_t chunk_lanes_values(const ChunkView<T>& v) {
  return std::int64_t(chunk_fields) * v.M * v.tables +
         std::int64_t(ChunkView<T>::reduced_fields()) * chunk_lanes;
}

template <class T>
TRIAX_HOST_DEVICE bool chunk_lanes_representable(double w) {
  return std::isfinite(w) && std::isfinite(static_cast<T>(w));
}

/// Phase 1, lane j (every lane 0 .. 31 runs it; lanes past P write zeros).
template <class T>
TRIAX_HOST_DEVICE void chunk_lanes_factor(const ChunkView<T>& v, const MatrixRows<T>& mat, int j,
                                          T* values, ChunkLanesShared& sh) {
  const int M = v.M;
  const int L = v.interior(j);
  const std::int64_t r0 = std::int64_t(j) * M;
  double m[32], r[32], e[32], g[32], h[32];
  bool ok = true;
  double pivot = L > 0 ? mat.b_at(r0) : 1;
  for (int k = 0; k < L; ++k) {
    const std::int64_t i = r0 + k;
    m[k] = 0;
    if (k > 0) {
      m[k] = mat.a_at(i) / pivot;
      pivot = mat.b_at(i) - m[k] * mat.c_at(i - 1);
    }
    if (pivot == 0 || !std::isfinite(pivot)) ok = false;
    r[k] = 1 / pivot;
    e[k] = k + 1 < L ? mat.c_at(i) * r[k] : 0;
  }
  // g = A_I^-1 (-a[r0] e_first) (none for the first chunk), h = A_I^-1 (-c[last] e_last) (none
  // for the last): the interior's forward and backward sweeps on the two unit columns.
  for (int k = 0; k < L; ++k) {
    g[k] = k == 0 && j > 0 ? -mat.a_at(r0) : 0;
    h[k] = k == L - 1 && j < v.P - 1 ? -mat.c_at(r0 + L - 1) : 0;
  }
  for (int k = 1; k < L; ++k) {
    g[k] -= m[k] * g[k - 1];
    h[k] -= m[k] * h[k - 1];
  }
  for (int k = L - 1; k >= 0; --k) {
    g[k] = r[k] * g[k] - (k + 1 < L ? e[k] * g[k + 1] : 0);
    h[k] = r[k] * h[k] - (k + 1 < L ? e[k] * h[k + 1] : 0);
  }
  if (j < v.tables) {
    for (int k = 0; k < M; ++k) {
      const bool in = k < L;
      const double field[chunk_fields] = {in ? m[k] : 0, in ? r[k] : 0, in ? e[k] : 0,
                                          in ? g[k] : 0, in ? h[k] : 0};
      for (int f = 0; f < chunk_fields; ++f) {
        ok = ok && chunk_lanes_representable<T>(field[f]);
        values[(std::int64_t(f) * M + k) * v.tables + j] = static_cast<T>(field[f]);
      }
    }
  }
  sh.g_first[j] = L > 0 ? g[0] : 0;
  sh.h_first[j] = L > 0 ? h[0] : 0;
  sh.g_last[j] = L > 0 ? g[L - 1] : 0;
  sh.h_last[j] = L > 0 ? h[L - 1] : 0;
  sh.ok[j] = ok;
}

/// Phase 2, lane j: separator j's Schur row (j < P - 1), a_s and c_s into the reduced values.
template <class T>
TRIAX_HOST_DEVICE void chunk_lanes_reduce(const ChunkView<T>& v, const MatrixRows<T>& mat, int j,
                                          T* values, ChunkLanesShared& sh) {
  T* red = values + std::int64_t(chunk_fields) * v.M * v.tables;
  const int R = v.P - 1;
  double as = 0, cs = 0, sub = 0, diag = 0, sup = 0;
  if (j < R) {
    const std::int64_t s = std::int64_t(j + 1) * v.M - 1;
    as = mat.a_at(s);
    cs = mat.c_at(s);
    sub = as * sh.g_last[j];
    diag = mat.b_at(s) + as * sh.h_last[j] + cs * sh.g_first[j + 1];
    sup = cs * sh.h_first[j + 1];
  }
  bool ok = sh.ok[j] != 0 && chunk_lanes_representable<T>(as) && chunk_lanes_representable<T>(cs);
  red[ChunkView<T>::red_a() * chunk_lanes + j] = static_cast<T>(as);
  red[ChunkView<T>::red_c() * chunk_lanes + j] = static_cast<T>(cs);
  sh.sub[0][j] = sub;
  sh.diag[0][j] = diag;
  sh.sup[0][j] = sup;
  sh.ok[j] = ok;
}

/// Phase 3, lane j, PCR level `level` (stride 2^level): alpha and gamma into the reduced values,
/// the next level's row into the other buffer. Levels past v.levels write zeros.
template <class T>
TRIAX_HOST_DEVICE void chunk_lanes_level(const ChunkView<T>& v, int level, int j, T* values,
                                         ChunkLanesShared& sh) {
  T* red = values + std::int64_t(chunk_fields) * v.M * v.tables;
  const int R = v.P - 1, stride = 1 << level, from = level & 1, to = from ^ 1;
  double alpha = 0, gamma = 0;
  if (level < v.levels && j < R) {
    const bool lo = j - stride >= 0, hi = j + stride < R;
    alpha = lo ? sh.sub[from][j] / sh.diag[from][j - stride] : 0;
    gamma = hi ? sh.sup[from][j] / sh.diag[from][j + stride] : 0;
    sh.diag[to][j] = sh.diag[from][j] - (lo ? alpha * sh.sup[from][j - stride] : 0) -
                     (hi ? gamma * sh.sub[from][j + stride] : 0);
    sh.sub[to][j] = lo ? -alpha * sh.sub[from][j - stride] : 0;
    sh.sup[to][j] = hi ? -gamma * sh.sup[from][j + stride] : 0;
    sh.ok[j] = sh.ok[j] && chunk_lanes_representable<T>(alpha) &&
               chunk_lanes_representable<T>(gamma);
  }
  red[ChunkView<T>::red_alpha(level) * chunk_lanes + j] = static_cast<T>(alpha);
  red[ChunkView<T>::red_gamma(level) * chunk_lanes + j] = static_cast<T>(gamma);
}

/// Phase 4, lane j: the reciprocal pivots of the reduced system (after every level).
template <class T>
TRIAX_HOST_DEVICE void chunk_lanes_finish(const ChunkView<T>& v, int j, T* values,
                                          ChunkLanesShared& sh) {
  T* red = values + std::int64_t(chunk_fields) * v.M * v.tables;
  double rinv = 0;
  if (j < v.P - 1) {
    const double diag = sh.diag[v.levels & 1][j];
    rinv = 1 / diag;
    sh.ok[j] = sh.ok[j] && diag != 0 && chunk_lanes_representable<T>(rinv);
  }
  red[ChunkView<T>::red_rinv() * chunk_lanes + j] = static_cast<T>(rinv);
}

/// Whether the interior rows (1 .. n-2) among chunk j's rows have |b| >= |a| + |c|: route.hpp's
/// interior_dominant lane by lane, in double (the table's PCR needs no pivoting for such
/// matrices; a device build must refuse the others as the factored plan does on the host).
template <class T>
TRIAX_HOST_DEVICE bool chunk_lanes_dominant(const ChunkView<T>& v, const MatrixRows<T>& mat,
                                            int j) {
  bool dominant = true;
  const std::int64_t first = std::int64_t(j) * v.M;
  for (int k = 0; k < v.M; ++k) {
    const std::int64_t i = first + k;
    if (i >= 1 && i + 1 < v.n) {
      const double off = std::fabs(mat.a_at(i)) + std::fabs(mat.c_at(i));
      dominant = dominant && std::fabs(mat.b_at(i)) >= off;
    }
  }
  return dominant;
}

/// Thomas' factors of the whole matrix (n rows), in double, stored as T: multipliers l (l[0] =
/// 0), reciprocal pivots rinv and e = c rinv (e[n-1] = 0), so that y_i = d_i - l_i y_{i-1},
/// x_i = rinv_i y_i - e_i x_{i+1}. What a solve falls back to where the table was refused (one
/// lane computes them, serially; a zero pivot gives inf, as unchecked Thomas does).
template <class T>
TRIAX_HOST_DEVICE void chunk_lanes_thomas_factors(const MatrixRows<T>& mat, int n, T* l, T* rinv,
                                                  T* e) {
  double pivot = n > 0 ? mat.b_at(0) : 1;
  for (int i = 0; i < n; ++i) {
    double m = 0;
    if (i > 0) {
      m = mat.a_at(i) / pivot;
      pivot = mat.b_at(i) - m * mat.c_at(i - 1);
    }
    const double r = 1 / pivot;
    l[i] = static_cast<T>(m);
    rinv[i] = static_cast<T>(r);
    e[i] = static_cast<T>(i + 1 < n ? mat.c_at(i) * r : 0);
  }
}

/// The phases one after another, the lanes in turn (the host's form; the tests compare it with
/// chunk_matrix). Returns whether every lane stayed ok.
template <class T>
bool chunk_lanes_build(const ChunkView<T>& v, const MatrixRows<T>& mat, T* values) {
  ChunkLanesShared sh{};
  for (int j = 0; j < chunk_lanes; ++j) chunk_lanes_factor(v, mat, j, values, sh);
  for (int j = 0; j < chunk_lanes; ++j) chunk_lanes_reduce(v, mat, j, values, sh);
  for (int level = 0; level < chunk_max_levels; ++level) {
    for (int j = 0; j < chunk_lanes; ++j) chunk_lanes_level(v, level, j, values, sh);
  }
  for (int j = 0; j < chunk_lanes; ++j) chunk_lanes_finish(v, j, values, sh);
  bool ok = true;
  for (int j = 0; j < chunk_lanes; ++j) ok = ok && sh.ok[j] != 0;
  return ok;
}

}  // namespace triax::detail
