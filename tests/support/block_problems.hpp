#pragma once
// Block tridiagonal test problems: buffers laid out by triax::BlockLayouts, random systems of two
// kinds (block diagonally dominant; and non-dominant ones built from a known block LU whose
// pivot blocks need no pivoting), and the tests' oracle: the whole nM x nM system of one block
// row solved by dense Gaussian elimination with partial pivoting in long double, with its
// condition number (infinity norm, from the explicit inverse) for the tolerances.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "support/problems.hpp"
#include "triax/block.hpp"

namespace triax::test {

using Wide = long double;

enum class BlockKind {
  dominant,  ///< every scalar row of the nM x nM matrix strictly diagonally dominant
  factored,  ///< A = L U with well-conditioned pivot blocks S[i] = l u (no pivoting needed),
             ///< but rows of the matrix not diagonally dominant
};

inline const char* to_string(BlockKind k) {
  return k == BlockKind::dominant ? "dominant" : "factored";
}

/// Where the entries of one batch lie: the grid (extents, axis) and each operand's layout.
struct BlockGeometry {
  int m;
  std::vector<std::int64_t> grid;
  int axis;
  BlockLayouts layouts;

  std::int64_t n() const { return grid[axis]; }
  std::int64_t systems() const {
    std::int64_t s = 1;
    for (std::size_t k = 0; k < grid.size(); ++k)
      if (static_cast<int>(k) != axis) s *= grid[k];
    return s;
  }
  /// Offset of entry (r, c) of block row i of system s (c ignored for vectors). Systems number
  /// the other grid dimensions in mixed radix, the fastest first, as checked mode's info does.
  std::int64_t offset(const Layout& l, bool block, std::int64_t s, std::int64_t i, int r,
                      int c = 0) const {
    std::vector<std::int64_t> idx;
    idx.push_back(r);
    if (block) idx.push_back(c);
    for (std::size_t k = 0; k < grid.size(); ++k) {
      if (static_cast<int>(k) == axis) {
        idx.push_back(i);
      } else {
        idx.push_back(s % grid[k]);
        s /= grid[k];
      }
    }
    return l.offset_of(idx);
  }
};

/// The buffers of a batch (each operand its own allocation, NaN everywhere outside the layouts)
/// and the long double oracle's solution and condition number of each system.
template <class T>
struct BlockBatch {
  BlockGeometry g;
  std::vector<T> a, b, c, d, x;

  explicit BlockBatch(const BlockGeometry& geometry)
      : g(geometry),
        a(buffer_size(g.layouts.a), nan()),
        b(buffer_size(g.layouts.b), nan()),
        c(buffer_size(g.layouts.c), nan()),
        d(buffer_size(g.layouts.d), nan()),
        x(buffer_size(g.layouts.x), nan()) {}

  static T nan() { return std::numeric_limits<T>::quiet_NaN(); }

  T& at(std::vector<T>& buf, const Layout& l, bool block, std::int64_t s, std::int64_t i, int r,
        int col = 0) {
    return buf[g.offset(l, block, s, i, r, col)];
  }
  T& A(std::int64_t s, std::int64_t i, int r, int col) {
    return at(a, g.layouts.a, true, s, i, r, col);
  }
  T& B(std::int64_t s, std::int64_t i, int r, int col) {
    return at(b, g.layouts.b, true, s, i, r, col);
  }
  T& C(std::int64_t s, std::int64_t i, int r, int col) {
    return at(c, g.layouts.c, true, s, i, r, col);
  }
  T& D(std::int64_t s, std::int64_t i, int r) { return at(d, g.layouts.d, false, s, i, r); }
  T& X(std::int64_t s, std::int64_t i, int r) { return at(x, g.layouts.x, false, s, i, r); }

  /// Random systems of a kind; A[0] and C[n-1] stay NaN (they must never be read).
  void fill(BlockKind kind, std::uint64_t seed) {
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> u(-1, 1), margin(0.5, 1.5), mag(1, 2);
    const int m = g.m;
    const std::int64_t n = g.n();
    for (std::int64_t s = 0; s < g.systems(); ++s) {
      for (std::int64_t i = 0; i < n; ++i)
        for (int r = 0; r < m; ++r) D(s, i, r) = static_cast<T>(u(gen));
      if (kind == BlockKind::dominant) {
        for (std::int64_t i = 0; i < n; ++i) {
          for (int r = 0; r < m; ++r) {
            double off = 0;
            for (int col = 0; col < m; ++col) {
              if (i > 0) off += std::abs(double(A(s, i, r, col) = static_cast<T>(u(gen))));
              if (i + 1 < n) off += std::abs(double(C(s, i, r, col) = static_cast<T>(u(gen))));
              if (col != r) off += std::abs(double(B(s, i, r, col) = static_cast<T>(u(gen))));
            }
            B(s, i, r, r) = static_cast<T>((u(gen) < 0 ? -1 : 1) * (off + margin(gen)));
          }
        }
      } else {
        // S[i] = l u: l unit lower with entries in [-1, 1], u upper with |diagonal| in [1, 2].
        // Off-diagonal factors L[i] (A[i] = L[i] S[i-1]) and C[i] scaled by 1 / (2m) keep the
        // block LU factors' inverses bounded, so the condition stays moderate for any n.
        std::vector<Wide> S(static_cast<std::size_t>(n) * m * m), L(m * m), l(m * m), uu(m * m);
        for (std::int64_t i = 0; i < n; ++i) {
          for (int r = 0; r < m; ++r) {
            for (int col = 0; col < m; ++col) {
              l[r * m + col] = col < r ? u(gen) : col == r ? 1 : 0;
              uu[r * m + col] = col > r ? u(gen) : col == r ? (u(gen) < 0 ? -1 : 1) * mag(gen) : 0;
            }
          }
          Wide* Si = &S[i * m * m];
          for (int r = 0; r < m; ++r)
            for (int col = 0; col < m; ++col) {
              Wide v = 0;
              for (int q = 0; q < m; ++q) v += l[r * m + q] * uu[q * m + col];
              Si[r * m + col] = v;
            }
          if (i + 1 < n)
            for (int r = 0; r < m; ++r)
              for (int col = 0; col < m; ++col) C(s, i, r, col) = static_cast<T>(u(gen) / (2 * m));
          for (int r = 0; r < m; ++r)
            for (int col = 0; col < m; ++col) {
              Wide v = Si[r * m + col];
              if (i > 0) {
                for (int q = 0; q < m; ++q) v += L[r * m + q] * Wide(C(s, i - 1, q, col));
              }
              B(s, i, r, col) = static_cast<T>(v);
            }
          if (i > 0) {
            const Wide* Sp = &S[(i - 1) * m * m];
            for (int r = 0; r < m; ++r)
              for (int col = 0; col < m; ++col) {
                Wide v = 0;
                for (int q = 0; q < m; ++q) v += L[r * m + q] * Sp[q * m + col];
                A(s, i, r, col) = static_cast<T>(v);
              }
          }
          // L of the next row.
          for (int e = 0; e < m * m; ++e) L[e] = u(gen) / (2 * m);
        }
      }
    }
  }
};

/// The dense nM x nM matrix and right-hand side of system s, read from the batch (A[0] and
/// C[n-1] left out).
template <class T>
void dense_system(BlockBatch<T>& batch, std::int64_t s, std::vector<Wide>& mat,
                  std::vector<Wide>& rhs) {
  const int m = batch.g.m;
  const std::int64_t n = batch.g.n(), size = n * m;
  mat.assign(static_cast<std::size_t>(size * size), 0);
  rhs.assign(static_cast<std::size_t>(size), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    for (int r = 0; r < m; ++r) {
      const std::int64_t row = i * m + r;
      for (int col = 0; col < m; ++col) {
        if (i > 0) mat[row * size + (i - 1) * m + col] = batch.A(s, i, r, col);
        mat[row * size + i * m + col] = batch.B(s, i, r, col);
        if (i + 1 < n) mat[row * size + (i + 1) * m + col] = batch.C(s, i, r, col);
      }
      rhs[row] = batch.D(s, i, r);
    }
  }
}

/// Dense LU with partial pivoting in long double; solves mat * X = rhs for `k` right-hand sides
/// (rhs row-major size x k, replaced by X). Returns false for a singular matrix.
inline bool dense_solve(std::vector<Wide> mat, std::vector<Wide>& rhs, std::int64_t size, int k) {
  for (std::int64_t col = 0; col < size; ++col) {
    std::int64_t p = col;
    for (std::int64_t r = col + 1; r < size; ++r)
      if (std::fabs(mat[r * size + col]) > std::fabs(mat[p * size + col])) p = r;
    if (mat[p * size + col] == 0 || !std::isfinite(mat[p * size + col])) return false;
    if (p != col) {
      for (std::int64_t j = 0; j < size; ++j) std::swap(mat[col * size + j], mat[p * size + j]);
      for (int j = 0; j < k; ++j) std::swap(rhs[col * k + j], rhs[p * k + j]);
    }
    for (std::int64_t r = col + 1; r < size; ++r) {
      const Wide f = mat[r * size + col] / mat[col * size + col];
      if (f == 0) continue;
      for (std::int64_t j = col + 1; j < size; ++j) mat[r * size + j] -= f * mat[col * size + j];
      for (int j = 0; j < k; ++j) rhs[r * k + j] -= f * rhs[col * k + j];
    }
  }
  for (std::int64_t r = size - 1; r >= 0; --r) {
    for (int j = 0; j < k; ++j) {
      Wide v = rhs[r * k + j];
      for (std::int64_t q = r + 1; q < size; ++q) v -= mat[r * size + q] * rhs[q * k + j];
      rhs[r * k + j] = v / mat[r * size + r];
    }
  }
  return true;
}

/// The oracle's answer for one system: the solution and the infinity-norm condition number.
struct DenseAnswer {
  std::vector<Wide> x;
  double condition = 0;
  bool row_dominant = true;  ///< every scalar row strictly diagonally dominant
};

template <class T>
DenseAnswer dense_answer(BlockBatch<T>& batch, std::int64_t s) {
  std::vector<Wide> mat, rhs;
  dense_system(batch, s, mat, rhs);
  const std::int64_t size = static_cast<std::int64_t>(rhs.size());
  DenseAnswer ans;
  ans.x = rhs;
  EXPECT_TRUE(dense_solve(mat, ans.x, size, 1)) << "system " << s << " is singular";
  std::vector<Wide> inv(static_cast<std::size_t>(size * size), 0);
  for (std::int64_t r = 0; r < size; ++r) inv[r * size + r] = 1;
  dense_solve(mat, inv, size, static_cast<int>(size));
  Wide norm = 0, inv_norm = 0;
  for (std::int64_t r = 0; r < size; ++r) {
    Wide row = 0, inv_row = 0;
    for (std::int64_t j = 0; j < size; ++j) {
      row += std::fabs(mat[r * size + j]);
      inv_row += std::fabs(inv[r * size + j]);
    }
    norm = std::max(norm, row);
    inv_norm = std::max(inv_norm, inv_row);
    if (2 * std::fabs(mat[r * size + r]) <= row) ans.row_dominant = false;
  }
  ans.condition = static_cast<double>(norm * inv_norm);
  return ans;
}

/// Tolerance of a block solve in precision T against the oracle: epsilon times the condition
/// number times the size of the answer, times a small multiple of M for the block arithmetic.
template <class T>
double block_tolerance(double condition, double scale, int m) {
  return 8.0 * m * condition * std::numeric_limits<T>::epsilon() * std::max(scale, 1.0);
}

}  // namespace triax::test
