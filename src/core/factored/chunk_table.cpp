// Building the chunk table of one matrix (chunk_table.hpp states the partition and formulas),
// and its host application for the tests.
#include "core/factored/chunk_table.hpp"

#include <cmath>
#include <cstring>

namespace triax::detail {
namespace {

using Wide = long double;

bool finite(Wide v) { return std::isfinite(v); }

// Thomas factors of one chunk interior (rows r0 .. r0 + L - 1) and the solve with them.
struct Interior {
  std::vector<Wide> m, r, e;  // forward multiplier, 1 / pivot, c / pivot
  bool ok = true;
  std::vector<Wide> solve(std::vector<Wide> v) const {
    const std::size_t L = r.size();
    for (std::size_t k = 1; k < L; ++k) v[k] -= m[k] * v[k - 1];
    for (std::size_t k = L; k-- > 0;) v[k] = r[k] * v[k] - (k + 1 < L ? e[k] * v[k + 1] : 0);
    return v;
  }
};

template <class T>
Interior factor_interior(const T* a, const T* b, const T* c, std::int64_t r0, int L) {
  Interior f;
  f.m.assign(L, 0);
  f.r.assign(L, 0);
  f.e.assign(L, 0);
  Wide pivot = b[r0];
  for (int k = 0; k < L; ++k) {
    const std::int64_t i = r0 + k;
    if (k > 0) {
      f.m[k] = Wide(a[i]) / pivot;
      pivot = Wide(b[i]) - f.m[k] * Wide(c[i - 1]);
    }
    if (pivot == 0 || !finite(pivot)) f.ok = false;
    f.r[k] = 1 / pivot;
    f.e[k] = k + 1 < L ? Wide(c[i]) * f.r[k] : 0;
  }
  return f;
}

template <class T>
bool representable(Wide v) {
  return finite(v) && std::isfinite(static_cast<T>(v));
}

}  // namespace

template <class T>
ChunkTable<T> chunk_matrix(const T* a, const T* b, const T* c, std::int64_t n) {
  ChunkTable<T> t;
  const int M = chunk_rows_for(n);
  if (n < 1 || M == 0) return t;
  ChunkView<T>& v = t.layout;
  v.n = static_cast<int>(n);
  v.M = M;
  v.P = static_cast<int>((n + M - 1) / M);
  v.W = 1;
  while (v.W < v.P) v.W *= 2;
  const int P = v.P;

  // Each chunk's interior factors and its two coupling columns g, h.
  std::vector<Interior> f(P);
  std::vector<std::vector<Wide>> g(P), h(P);
  for (int j = 0; j < P; ++j) {
    const std::int64_t r0 = std::int64_t(j) * M;
    const int L = v.interior(j);
    f[j] = factor_interior(a, b, c, r0, L);
    if (!f[j].ok) return t;
    std::vector<Wide> unit(L, 0);
    if (j > 0) unit[0] = -Wide(a[r0]);
    g[j] = f[j].solve(unit);
    unit.assign(L, 0);
    if (j < P - 1) unit[L - 1] = -Wide(c[r0 + L - 1]);
    h[j] = f[j].solve(unit);
  }

  // Chunk rows as T: [field][k][chunk] with every chunk stored; compressed below if the
  // interior chunks agree bit for bit.
  auto full = [&](int field, int k, int j) -> Wide {
    if (k >= v.interior(j)) return 0;
    switch (field) {
      case chunk_m: return f[j].m[k];
      case chunk_r: return f[j].r[k];
      case chunk_e: return f[j].e[k];
      case chunk_g: return g[j][k];
      default: return h[j][k];
    }
  };
  std::vector<T> per_chunk(std::size_t(chunk_fields) * M * P);
  for (int field = 0; field < chunk_fields; ++field) {
    for (int k = 0; k < M; ++k) {
      for (int j = 0; j < P; ++j) {
        const Wide w = full(field, k, j);
        if (!representable<T>(w)) return t;
        per_chunk[(std::size_t(field) * M + k) * P + j] = static_cast<T>(w);
      }
    }
  }
  bool same = P >= 4;  // at least two interior chunks, else nothing to share
  for (int j = 2; same && j < P - 1; ++j) {
    for (int field = 0; same && field < chunk_fields; ++field) {
      for (int k = 0; same && k < M; ++k) {
        const T* x = &per_chunk[(std::size_t(field) * M + k) * P + j];
        const T* y = &per_chunk[(std::size_t(field) * M + k) * P + 1];
        same = std::memcmp(x, y, sizeof(T)) == 0;
      }
    }
  }
  v.compressed = same;
  v.tables = same ? 3 : P;
  t.values.assign(t.row_values() + std::size_t(ChunkView<T>::reduced_fields()) * chunk_lanes,
                  T(0));
  for (int field = 0; field < chunk_fields; ++field) {
    for (int k = 0; k < M; ++k) {
      for (int s = 0; s < v.tables; ++s) {
        const int j = same ? (s == 0 ? 0 : (s == 1 ? 1 : P - 1)) : s;
        t.values[(std::size_t(field) * M + k) * v.tables + s] =
            per_chunk[(std::size_t(field) * M + k) * P + j];
      }
    }
  }

  // The reduced system of the P - 1 separators and its PCR multipliers.
  const int R = P - 1;
  std::vector<Wide> sub(R), diag(R), sup(R);
  T* red = t.values.data() + t.row_values();
  auto put = [&](int field, int lane, Wide w) {
    if (!representable<T>(w)) return false;
    red[field * chunk_lanes + lane] = static_cast<T>(w);
    return true;
  };
  for (int j = 0; j < R; ++j) {
    const std::int64_t s = std::int64_t(j + 1) * M - 1;
    const int L = v.interior(j);
    const Wide as = a[s], bs = b[s], cs = c[s];
    sub[j] = as * g[j][L - 1];
    diag[j] = bs + as * h[j][L - 1] + cs * g[j + 1][0];
    sup[j] = cs * h[j + 1][0];
    if (!put(ChunkView<T>::red_a(), j, as) || !put(ChunkView<T>::red_c(), j, cs)) return t;
  }
  int level = 0;
  for (int stride = 1; stride < R; stride *= 2, ++level) {
    std::vector<Wide> ns(R), nd(R), nu(R);
    for (int i = 0; i < R; ++i) {
      const Wide alpha = i - stride >= 0 ? sub[i] / diag[i - stride] : 0;
      const Wide gamma = i + stride < R ? sup[i] / diag[i + stride] : 0;
      nd[i] = diag[i] - (i - stride >= 0 ? alpha * sup[i - stride] : 0) -
              (i + stride < R ? gamma * sub[i + stride] : 0);
      ns[i] = i - stride >= 0 ? -alpha * sub[i - stride] : 0;
      nu[i] = i + stride < R ? -gamma * sup[i + stride] : 0;
      if (!put(ChunkView<T>::red_alpha(level), i, alpha) ||
          !put(ChunkView<T>::red_gamma(level), i, gamma)) {
        return t;
      }
    }
    sub.swap(ns);
    diag.swap(nd);
    sup.swap(nu);
  }
  v.levels = level;
  for (int i = 0; i < R; ++i) {
    if (diag[i] == 0 || !put(ChunkView<T>::red_rinv(), i, 1 / diag[i])) return t;
  }
  t.ok = true;
  return t;
}

template <class T>
void chunk_apply_host(const ChunkView<T>& v, const T* d, T* x) {
  const int M = v.M, P = v.P;
  std::vector<T> rows(std::size_t(P) * M, T(0));
  std::vector<T> rhs(chunk_lanes, T(0));
  // Per chunk (a lane): load, forward, backward, the separator's right-hand side.
  for (int j = 0; j < P; ++j) {
    T* u = rows.data() + std::size_t(j) * M;
    const int held = v.chunk_rows(j), L = v.interior(j), t = v.table_of(j);
    for (int k = 0; k < held; ++k) u[k] = d[j * M + k];
    for (int k = 1; k < L; ++k) u[k] = u[k] - v.row(chunk_m, k, t) * u[k - 1];
    T next = 0;
    for (int k = L - 1; k >= 0; --k) {
      u[k] = v.row(chunk_r, k, t) * u[k] - v.row(chunk_e, k, t) * next;
      next = u[k];
    }
  }
  for (int j = 0; j + 1 < P; ++j) {
    const T* u = rows.data() + std::size_t(j) * M;
    const T next_first = rows[std::size_t(j + 1) * M];
    rhs[j] = u[M - 1] - v.red(ChunkView<T>::red_a(), j) * u[M - 2] -
             v.red(ChunkView<T>::red_c(), j) * next_first;
  }
  for (int l = 0; l < v.levels; ++l) {
    const int s = 1 << l;
    std::vector<T> old = rhs;
    for (int j = 0; j < v.W; ++j) {
      const T lo = j >= s && j < P - 1 ? v.red(ChunkView<T>::red_alpha(l), j) * old[j - s] : T(0);
      const T hi = j + s < P - 1 ? v.red(ChunkView<T>::red_gamma(l), j) * old[j + s] : T(0);
      rhs[j] = old[j] - lo - hi;
    }
  }
  std::vector<T> sep(chunk_lanes, T(0));
  for (int j = 0; j < v.W; ++j) sep[j] = rhs[j] * v.red(ChunkView<T>::red_rinv(), j);
  for (int j = 0; j < P; ++j) {
    T* u = rows.data() + std::size_t(j) * M;
    const int L = v.interior(j), t = v.table_of(j);
    const T left = j > 0 ? sep[j - 1] : T(0), right = sep[j];
    for (int k = 0; k < L; ++k) {
      u[k] = u[k] + v.row(chunk_g, k, t) * left + v.row(chunk_h, k, t) * right;
    }
    if (j < P - 1) u[M - 1] = right;
    for (int k = 0; k < v.chunk_rows(j); ++k) x[j * M + k] = u[k];
  }
}

template ChunkTable<float> chunk_matrix(const float*, const float*, const float*, std::int64_t);
template ChunkTable<double> chunk_matrix(const double*, const double*, const double*, std::int64_t);
template void chunk_apply_host(const ChunkView<float>&, const float*, float*);
template void chunk_apply_host(const ChunkView<double>&, const double*, double*);

}  // namespace triax::detail
