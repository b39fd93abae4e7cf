// The one-thread block kernel's pivot-block LU without pivoting (pivot_block_lu.cuh), run on the
// host (no device needed): for every M = 1..8 and both precisions, factor() and lu_solve()
// against a long double elimination with partial pivoting (tests/support/block_problems.hpp) on
// diagonally dominant blocks; and checked mode's breakdown row for a zero and a NaN pivot.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "cuda/block_tridiag/pivot_block_lu.cuh"
#include "support/block_problems.hpp"

namespace triax::test {
namespace {

using detail::cuda::block_thread::factor;
using detail::cuda::block_thread::lu_solve;

/// A random block whose every row is strictly diagonally dominant (entries in [-1, 1), the
/// diagonal M + 0.5 .. M + 1.5 in magnitude), and a right-hand side, as T and as long double.
template <class T, int M>
void expect_solves_like_long_double(std::uint64_t seed) {
  SCOPED_TRACE("M " + std::to_string(M) + (sizeof(T) == 4 ? ", float" : ", double"));
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  T lu[M][M];
  T y[M];
  std::vector<Wide> mat(M * M), x(M);
  for (int r = 0; r < M; ++r) {
    for (int c = 0; c < M; ++c) {
      const double v = r == c ? (u(gen) < 0 ? -1 : 1) * (M + 1 + 0.5 * u(gen)) : u(gen);
      lu[r][c] = static_cast<T>(v);
      mat[r * M + c] = lu[r][c];
    }
    y[r] = static_cast<T>(u(gen));
    x[r] = y[r];
  }
  ASSERT_TRUE(dense_solve(mat, x, M, 1));
  int breakdown = 0;
  factor<T, M, true>(lu, 4, breakdown);
  EXPECT_EQ(breakdown, 0);
  lu_solve<T, M>(lu, y);
  double scale = 1;
  for (Wide v : x) scale = std::max(scale, std::abs(double(v)));
  // Dominant rows keep the condition number below about 3 (M + 1 against M - 1 off-diagonal).
  const double tol = block_tolerance<T>(3.0, scale, M);
  for (int r = 0; r < M; ++r) EXPECT_NEAR(double(y[r]), double(x[r]), tol) << "component " << r;
}

template <class T, int... Ms>
void every_block_size(std::integer_sequence<int, Ms...>) {
  (expect_solves_like_long_double<T, Ms + 1>(test_seed(Ms)), ...);
}

TEST(BlockPivotLu, EveryBlockSizeMatchesLongDoubleElimination) {
  every_block_size<float>(std::make_integer_sequence<int, 8>{});
  every_block_size<double>(std::make_integer_sequence<int, 8>{});
}

TEST(BlockPivotLu, FirstUnusablePivotIsReportedAtItsRow) {
  // Row 1 is twice row 0 in its first two entries: the second pivot is exactly 4 - 2 * 2 = 0.
  double singular[3][3] = {{1, 2, 3}, {2, 4, 7}, {0, 1, 5}};
  int breakdown = 0;
  factor<double, 3, true>(singular, 6, breakdown);
  EXPECT_EQ(breakdown, 7);
  // A NaN pivot at a later row does not replace the first breakdown; on its own it is reported.
  float with_nan[2][2] = {{std::numeric_limits<float>::quiet_NaN(), 1}, {1, 2}};
  factor<float, 2, true>(with_nan, 9, breakdown);
  EXPECT_EQ(breakdown, 7);
  float again[2][2] = {{std::numeric_limits<float>::quiet_NaN(), 1}, {1, 2}};
  breakdown = 0;
  factor<float, 2, true>(again, 9, breakdown);
  EXPECT_EQ(breakdown, 10);
  // Unchecked, the same factorisation records nothing.
  double unchecked[3][3] = {{1, 2, 3}, {2, 4, 7}, {0, 1, 5}};
  breakdown = 0;
  factor<double, 3, false>(unchecked, 6, breakdown);
  EXPECT_EQ(breakdown, 0);
}

}  // namespace
}  // namespace triax::test
