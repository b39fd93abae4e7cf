#pragma once
// The factors of one tridiagonal matrix (Thomas' LU without pivoting) as every backend of
// triax::FactoredSolver reads them, compressed where the matrix is near-Toeplitz.
//
// Row i holds three values: the subdiagonal s a[i] (0 on row 0), the reciprocal pivot
// 1 / (s m[i]) and c'[i] = c[i] / m[i] (0 on row n - 1), where s is a power of two (`scale`, 1
// unless the pivots or their reciprocals leave T's normal range). The solve is of (s A) x = s d:
//   d'[i] = (s d[i] - s a[i] d'[i-1]) r[i],   x[n-1] = d'[n-1],   x[i] = d'[i] - c'[i] x[i+1],
// where every product with s is exact, so a matrix scaled by 2^k is solved bit for bit as the
// unscaled one.
//
// Compression: rows [0, head) are stored, then one row for [head, n - tail) (the limit the
// factors converged to, bit for bit), then rows [n - tail, n). Uncompressed: head = n, tail = 0
// and the limit row is an unused copy of row n - 1. Lossless either way: row(i) returns exactly
// the factors of row i.

#include <cstdint>
#include <vector>

#include "core/problem.hpp"

namespace triax::detail {

/// What a kernel needs to read the factors: the stored rows (3 values each) and the map.
template <class T>
struct FactorView {
  const T* rows = nullptr;  // (head + 1 + tail) x 3 values: s a, 1 / (s m), c'
  std::int64_t n = 0;
  std::int64_t head = 0;
  std::int64_t tail = 0;
  bool scaled = false;  // s != 1: the solve multiplies d by scale[0] and then scale[1]
  T scale[2] = {T(1), T(1)};  // s = scale[0] scale[1], each a power of two normal in T
  int breakdown = 0;  // 0, or k + 1 for the first row k whose pivot broke down
  // One matrix per group of systems in one table (groups.hpp, unify_tables): system s reads the
  // rows of group s / group_systems, group_stride values after the first group's. 0: one matrix.
  std::int64_t group_systems = 0;
  std::int64_t group_stride = 0;

  /// The first stored row of system s's matrix.
  TRIAX_HOST_DEVICE const T* rows_for(std::int64_t s) const {
    return group_systems > 0 ? rows + group_stride * (s / group_systems) : rows;
  }
  /// The stored row that holds row i's factors.
  TRIAX_HOST_DEVICE std::int64_t index(std::int64_t i) const {
    if (i < head) return i;
    if (i >= n - tail) return head + 1 + (i - (n - tail));
    return head;
  }
  TRIAX_HOST_DEVICE std::int64_t stored() const { return head + 1 + tail; }
};

/// The factors of one matrix, owned on the host.
template <class T>
struct FactorTable {
  std::vector<T> rows;  // stored rows x 3
  std::int64_t n = 0, head = 0, tail = 0;
  bool scaled = false;
  T scale[2] = {T(1), T(1)};
  bool compressed = false;
  int breakdown = 0;
  std::int64_t group_systems = 0, group_stride = 0;  // as FactorView's

  FactorView<T> view() const {
    return {rows.data(), n,         head, tail, scaled, {scale[0], scale[1]}, breakdown,
            group_systems, group_stride};
  }
};

/// Factors the matrix a, b, c of n rows (a[0] and c[n-1] unread) in long double, rounds to T and
/// compresses (factor_table.cpp states the rules).
template <class T>
FactorTable<T> factor_matrix(const T* a, const T* b, const T* c, std::int64_t n);

}  // namespace triax::detail
