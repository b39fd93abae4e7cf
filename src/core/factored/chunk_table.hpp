#pragma once
// The precomputed chunk table of one matrix (issue 32, branch factcoef): what the cuda table
// kernel (src/cuda/factored/chunk_table_kernel.cuh) applies to d, so that a solve costs per row
// one load of d, five multiply-adds with table constants and one store of x.
//
// Partition. A system of n rows is cut into P chunks of M rows (the last one takes the rest,
// 1..M rows); P <= 32, so one group of W lanes (W the power of two >= P) holds a system and the
// reduced system never leaves the warp. The last row of every chunk but the last is a separator
// row s_j = (j + 1) M - 1; the other rows of chunk j are its interior I_j (M - 1 rows, or the
// last chunk's n - (P - 1) M). Given the separators, each interior is an independent system:
//
//   x_I = y + s_{j-1} g + s_j h,   y = A_I^{-1} d_I,
//   g = A_I^{-1} (-a[first row] e_first)   (0 for the first chunk),
//   h = A_I^{-1} (-c[last row] e_last)     (0 for the last chunk).
//
// The separator rows then form a tridiagonal system of P - 1 rows (the Schur complement, which
// is diagonally dominant where the matrix is):
//
//   a_s g^j_last s_{j-1} + (b_s + a_s h^j_last + c_s g^{j+1}_first) s_j + c_s h^{j+1}_first s_{j+1}
//     = d_s - a_s y^j_last - c_s y^{j+1}_first,
//
// solved by parallel cyclic reduction across the lanes with its multipliers precomputed: level
// l (stride 2^l) does rhs_i -= alpha_i rhs_{i-2^l} + gamma_i rhs_{i+2^l}; then s_i = rhs_i rinv_i.
// None of this depends on d: every multiplier below is computed once, in long double.
//
// Per interior row k (Thomas on A_I): forward d'_k = d_k - m_k d'_{k-1}; backward
// y_k = r_k d'_k - e_k y_{k+1}; then x_k = y_k + g_k s_{j-1} + h_k s_j.
//
// Near-Toeplitz compression (paper 004's idea applied to chunks): A_I of chunk j reads rows of
// chunk j only, so where every chunk 1 .. P-2 yields bit-identical rows they are stored once:
// three chunk tables (first, interior, last) instead of P. The reduced system's per-lane values
// are always stored (at most 32 lanes).
#include <cstdint>
#include <vector>

#include "core/problem.hpp"

namespace triax::detail {

/// Fields of a chunk table row.
enum ChunkField : int { chunk_m = 0, chunk_r, chunk_e, chunk_g, chunk_h, chunk_fields };

/// Lanes of the reduced system's per-lane values.
inline constexpr int chunk_lanes = 32;
/// PCR levels of a reduced system of up to 31 rows.
inline constexpr int chunk_max_levels = 5;

/// What a kernel needs, by value: sizes and pointers into one array of T.
template <class T>
struct ChunkView {
  const T* rows = nullptr;     // [chunk_fields][M][tables]
  const T* reduced = nullptr;  // [reduced_fields()][chunk_lanes]
  int n = 0;
  int M = 0;       // rows per chunk (8, 16 or 32)
  int P = 0;       // chunks
  int W = 0;       // lanes per system: the power of two >= P
  int tables = 0;  // stored chunk tables: 3 where compressed, else P
  int levels = 0;  // PCR levels of the reduced system (strides 1, 2, .. < P - 1)
  bool compressed = false;

  /// Reduced fields: a_s, c_s, (alpha, gamma) per level, rinv.
  TRIAX_HOST_DEVICE static constexpr int reduced_fields() { return 3 + 2 * chunk_max_levels; }
  TRIAX_HOST_DEVICE static constexpr int red_a() { return 0; }
  TRIAX_HOST_DEVICE static constexpr int red_c() { return 1; }
  TRIAX_HOST_DEVICE static constexpr int red_alpha(int l) { return 2 + 2 * l; }
  TRIAX_HOST_DEVICE static constexpr int red_gamma(int l) { return 3 + 2 * l; }
  TRIAX_HOST_DEVICE static constexpr int red_rinv() { return 2 + 2 * chunk_max_levels; }

  /// Interior rows of chunk j (0 for j >= P).
  TRIAX_HOST_DEVICE int interior(int j) const {
    return j < P - 1 ? M - 1 : (j == P - 1 ? n - (P - 1) * M : 0);
  }
  /// Rows of chunk j held and written (interior and separator).
  TRIAX_HOST_DEVICE int chunk_rows(int j) const { return j < P - 1 ? M : interior(j); }
  /// The stored table of chunk j.
  TRIAX_HOST_DEVICE int table_of(int j) const {
    if (!compressed) return j < P ? j : 0;
    return j == 0 ? 0 : (j >= P - 1 ? 2 : 1);
  }
  TRIAX_HOST_DEVICE T row(int field, int k, int table) const {
    return rows[(field * M + k) * tables + table];
  }
  TRIAX_HOST_DEVICE T red(int field, int lane) const { return reduced[field * chunk_lanes + lane]; }
};

/// Where a solve's table may have been refused on the device (triax::Solver's shared-matrix
/// route builds the table at each solve, cuda/factored/shared_matrix_route.cu): a device flag
/// that the build cleared, and Thomas' factors of the whole matrix (chunk_lanes_thomas_factors)
/// that the table kernels then solve with instead, one chunk after another. ok == nullptr: the
/// table is always valid (the factored plan's, built and checked on the host).
template <class T>
struct ChunkFallback {
  const int* ok = nullptr;
  const T* l = nullptr;
  const T* rinv = nullptr;
  const T* e = nullptr;
};

/// The table of one matrix, owned on the host. ok is false where the construction met a zero or
/// non-finite pivot or value (the caller then keeps another kernel).
template <class T>
struct ChunkTable {
  bool ok = false;
  std::vector<T> values;  // rows, then reduced
  ChunkView<T> layout;    // pointers null; view() sets them
  std::size_t row_values() const {
    return std::size_t(chunk_fields) * layout.M * layout.tables;
  }
  ChunkView<T> view_at(const T* base) const {
    ChunkView<T> v = layout;
    v.rows = base;
    v.reduced = base + row_values();
    return v;
  }
  ChunkView<T> view() const { return view_at(values.data()); }
};

/// Longest system a chunk table covers: 32 chunks of 32 rows.
inline constexpr std::int64_t chunk_table_max_n = 1024;

/// Rows per chunk for n rows: the fewest of 8, 16, 32 that need at most 32 chunks (0: n too long).
TRIAX_HOST_DEVICE inline int chunk_rows_for(std::int64_t n) {
  for (int M = 8; M <= 32; M *= 2) {
    if (n <= std::int64_t(32) * M) return M;
  }
  return 0;
}

/// Builds the table of the matrix a, b, c of n rows (a[0], c[n-1] unread); 1 <= n <= 1024.
template <class T>
ChunkTable<T> chunk_matrix(const T* a, const T* b, const T* c, std::int64_t n);

/// The solve the kernel does, on the host, for one system with contiguous rows (tests; the same
/// operations in the same order, the reduced system's lanes one after another).
template <class T>
void chunk_apply_host(const ChunkView<T>& v, const T* d, T* x);

}  // namespace triax::detail
