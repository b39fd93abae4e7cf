// Host check (no GPU) of the CUDA long path's tile arithmetic (src/cuda/scalar/block/long_tile.hpp,
// used by hybrid_kernel.cuh): a tridiagonal system of tiles of 2G chunk-end equations, each tile
// reduced to two equations by solving it with its outer equations replaced by identities for
// three right-hand sides and substituting (tile_first_equation, tile_last_equation); the reduced
// system solved; each tile finished by one more solve with its end values known. The x that
// comes out must be the system's solution, as a direct Thomas solve gives it, including where a
// tile's equations are scaled by a large power of two (each tile equation carries its own
// scale) and where trailing tiles are identities (chunks past the end of the system). And how a
// block's warps take its tiles along axes >= 1 (warp_tile): each chunk exactly once; and which
// block the long path takes there (long_axes_block, long_block.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "cuda/scalar/block/long_block.hpp"
#include "cuda/scalar/block/long_tile.hpp"

namespace {

using triax::detail::cuda::long_path_reduced_rows;
using triax::detail::cuda::long_path_tile_chunks;
using triax::detail::cuda::tile_first_equation;
using triax::detail::cuda::tile_last_equation;

struct Eq {
  double sub, diag, sup, rhs;
};

/// Plain Thomas on equations (sub of the first and sup of the last must be 0).
std::vector<double> thomas(const std::vector<Eq>& eq) {
  const std::size_t n = eq.size();
  std::vector<double> cp(n), dp(n), x(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double prev_c = i > 0 ? cp[i - 1] : 0, prev_d = i > 0 ? dp[i - 1] : 0;
    const double m = eq[i].diag - eq[i].sub * prev_c;
    cp[i] = eq[i].sup / m;
    dp[i] = (eq[i].rhs - eq[i].sub * prev_d) / m;
  }
  for (std::size_t i = n; i-- > 0;) x[i] = dp[i] - (i + 1 < n ? cp[i] * x[i + 1] : 0);
  return x;
}

constexpr std::size_t rows_per_tile = 2 * long_path_tile_chunks;

/// Tile t of eq with its outer equations replaced by "unknown = y_first" and "unknown = y_last"
/// and its own right-hand side kept (own = true) or zeroed.
std::vector<Eq> bordered(const std::vector<Eq>& eq, std::size_t t, bool own, double y_first,
                         double y_last) {
  std::vector<Eq> b(eq.begin() + t * rows_per_tile, eq.begin() + (t + 1) * rows_per_tile);
  for (Eq& e : b) e.rhs = own ? e.rhs : 0;
  b.front() = {0, 1, 0, y_first};
  b.back() = {0, 1, 0, y_last};
  return b;
}

/// The two-level solve of the long path's tiles.
std::vector<double> tiled_solve(const std::vector<Eq>& eq) {
  const std::size_t tiles = eq.size() / rows_per_tile;
  std::vector<Eq> reduced;
  for (std::size_t t = 0; t < tiles; ++t) {
    const std::vector<double> v0 = thomas(bordered(eq, t, true, 0, 0));
    const std::vector<double> v1 = thomas(bordered(eq, t, false, 1, 0));
    const std::vector<double> v2 = thomas(bordered(eq, t, false, 0, 1));
    const double next[3] = {v0[1], v1[1], v2[1]};
    const std::size_t m = rows_per_tile - 2;
    const double prev[3] = {v0[m], v1[m], v2[m]};
    reduced.push_back(tile_first_equation(eq[t * rows_per_tile], next));
    reduced.push_back(tile_last_equation(eq[(t + 1) * rows_per_tile - 1], prev));
  }
  const std::vector<double> y = thomas(reduced);
  std::vector<double> x;
  for (std::size_t t = 0; t < tiles; ++t) {
    const std::vector<double> xt = thomas(bordered(eq, t, true, y[2 * t], y[2 * t + 1]));
    x.insert(x.end(), xt.begin(), xt.end());
  }
  return x;
}

/// Random diagonally dominant equations, tiles x 2G of them; the last `empty` tiles identities.
std::vector<Eq> random_system(std::size_t tiles, std::size_t empty, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1, 1), margin(0.5, 1.5);
  const std::size_t n = tiles * rows_per_tile, real = (tiles - empty) * rows_per_tile;
  std::vector<Eq> eq(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (i >= real) {
      eq[i] = {0, 1, 0, 0};
      continue;
    }
    const double a = i > 0 ? u(g) : 0, c = i + 1 < real ? u(g) : 0;
    eq[i] = {a, (u(g) < 0 ? -1 : 1) * (std::abs(a) + std::abs(c) + margin(g)), c, u(g)};
  }
  return eq;
}

double max_abs_difference(const std::vector<double>& x, const std::vector<double>& y) {
  double m = 0;
  for (std::size_t i = 0; i < x.size(); ++i) m = std::max(m, std::abs(x[i] - y[i]));
  return m;
}

TEST(LongPathTiles, TwoLevelSolveMatchesThomas) {
  for (std::size_t tiles : {1, 2, 3, 7}) {
    const std::vector<Eq> eq = random_system(tiles, 0, 11 + tiles);
    const std::vector<double> want = thomas(eq), got = tiled_solve(eq);
    EXPECT_LE(max_abs_difference(got, want), 1e-13) << tiles << " tiles";
  }
}

TEST(LongPathTiles, IdentityTilesPastTheEndStayZero) {
  const std::vector<Eq> eq = random_system(5, 2, 29);
  const std::vector<double> want = thomas(eq), got = tiled_solve(eq);
  EXPECT_LE(max_abs_difference(got, want), 1e-13);
  for (std::size_t i = 3 * rows_per_tile; i < got.size(); ++i) ASSERT_EQ(got[i], 0.0) << i;
}

// Each tile equation keeps the scale of the equation it came from: tiles whose equations are
// scaled by 2^k (the kernel's chunks scale theirs towards 1) give the same x.
TEST(LongPathTiles, ScaledTilesGiveTheSameSolution) {
  const std::vector<Eq> eq = random_system(4, 0, 41);
  const std::vector<double> want = thomas(eq);
  for (int k : {-300, -60, 60, 300}) {
    std::vector<Eq> s = eq;
    for (std::size_t i = rows_per_tile; i < 3 * rows_per_tile; ++i) {
      Eq& e = s[i];
      e = {std::ldexp(e.sub, k), std::ldexp(e.diag, k), std::ldexp(e.sup, k), std::ldexp(e.rhs, k)};
    }
    EXPECT_LE(max_abs_difference(tiled_solve(s), want), 1e-13) << "2^" << k;
  }
}

TEST(LongPathTiles, ReducedRows) {
  // Float, 10^8 rows: 6 250 112 chunks of 16 rows (a multiple of 128) in 195 316 tiles.
  EXPECT_EQ(long_path_reduced_rows(6250112, true), 390632);
  EXPECT_EQ(long_path_reduced_rows(6250112, false), 12500224);
  EXPECT_EQ(long_path_reduced_rows(128, true), 8);
}

// Along axes >= 1 the kernel's warps take the block's tiles through shared memory (warp_tile):
// for every block shape the long path may have (S systems, P chunk threads, P a multiple of 32),
// the S P / 32 warps' lanes cover each (system, chunk) of the block exactly once, and each warp's
// 32 lanes are 32 consecutive chunks of one system starting at a multiple of 32 (a tile).
TEST(LongPathTiles, WarpsCoverTheBlocksTilesAlongHigherAxes) {
  using triax::detail::cuda::warp_tile;
  for (int S : {1, 2, 4, 8, 16}) {
    for (int P : {32, 64, 96, 128, 256, 512}) {
      if (S * P > 512) continue;  // no such block (long_block_valid)
      const int warps = S * P / long_path_tile_chunks;
      std::vector<int> seen(static_cast<std::size_t>(S * P), 0);
      for (int w = 0; w < warps; ++w) {
        const auto t = warp_tile(w, P);
        ASSERT_GE(t.system, 0);
        ASSERT_LT(t.system, S) << "S " << S << ", P " << P << ", warp " << w;
        ASSERT_EQ(t.first_chunk % long_path_tile_chunks, 0);
        for (int lane = 0; lane < long_path_tile_chunks; ++lane) {
          const int chunk = t.first_chunk + lane;
          ASSERT_LT(chunk, P);
          ++seen[static_cast<std::size_t>(t.system * P + chunk)];
        }
      }
      for (std::size_t i = 0; i < seen.size(); ++i) {
        ASSERT_EQ(seen[i], 1) << "S " << S << ", P " << P << ", system " << i / P << ", chunk "
                              << i % P;
      }
    }
  }
}

// The long path's block along axes >= 1 (long_axes_block, long_block.hpp; hybrid.cu takes it):
// float rows in whole 32-byte sectors per block (S 4 bytes >= 32) in blocks of 256 threads, double
// round 1's block (P = 128, S = 4: 32-byte runs already); the switch's block where the tiles take
// it; round 1's where the grid's y cannot hold the tiles of the default or the switch's block.
// Whatever comes out, each warp takes one whole tile (warp_tile, checked above for these shapes).
TEST(LongPathTiles, BlockAlongHigherAxes) {
  using triax::detail::cuda::long_axes_block;
  using triax::detail::cuda::long_block_fits;
  using triax::detail::cuda::long_block_round1;
  using triax::detail::cuda::long_block_valid;
  using triax::detail::cuda::LongBlock;
  const LongBlock none{0, 0};
  // Float, 16-row chunks: the default up to 65535 x 32 x 16 rows, then round 1's.
  for (std::int64_t n : {4097LL, 1000000LL, 4000000LL, 65535LL * 512}) {
    const LongBlock b = long_axes_block(4, n, 16, none);
    EXPECT_EQ(b.P, 32) << n;
    EXPECT_EQ(b.S, 8) << n;
    EXPECT_GE(b.S * 4, 32) << "float rows in whole 32-byte sectors, n " << n;
    EXPECT_LE(b.S * b.P, 256) << "two blocks per SM at up to 128 registers, n " << n;
  }
  for (std::int64_t n : {65535LL * 512 + 1, 100000000LL}) {
    const LongBlock b = long_axes_block(4, n, 16, none);
    EXPECT_EQ(b.P, long_block_round1.P) << n;
    EXPECT_EQ(b.S, long_block_round1.S) << n;
  }
  EXPECT_TRUE(long_block_fits(long_block_round1, 65535LL * 2048, 16));
  EXPECT_FALSE(long_block_fits(long_block_round1, 65535LL * 2048 + 1, 16));
  // Double, 8-row chunks: round 1's block.
  for (std::int64_t n : {2049LL, 1000000LL}) {
    const LongBlock b = long_axes_block(8, n, 8, none);
    EXPECT_EQ(b.P, 128);
    EXPECT_EQ(b.S, 4);
  }
  // The switch: taken where valid and within the grid, in either precision.
  for (const LongBlock w : {LongBlock{128, 4}, LongBlock{64, 8}, LongBlock{32, 16},
                            LongBlock{32, 4}, LongBlock{512, 1}}) {
    ASSERT_TRUE(long_block_valid(w)) << w.P << "," << w.S;
    for (int bytes : {4, 8}) {
      const LongBlock b = long_axes_block(bytes, 1000000, bytes == 4 ? 16 : 8, w);
      EXPECT_EQ(b.P, w.P);
      EXPECT_EQ(b.S, w.S);
    }
  }
  // ... and round 1's where its tiles would not fit along y.
  const LongBlock far = long_axes_block(4, 65535LL * 1024 + 1, 16, LongBlock{64, 8});
  EXPECT_EQ(far.P, 128);
  EXPECT_EQ(far.S, 4);
  // Blocks the tiles cannot take: ignored (the default rule).
  for (const LongBlock w : {LongBlock{16, 32}, LongBlock{48, 8}, LongBlock{64, 16},
                            LongBlock{32, 0}, LongBlock{-32, 8}}) {
    EXPECT_FALSE(long_block_valid(w)) << w.P << "," << w.S;
    const LongBlock b = long_axes_block(4, 1000000, 16, w);
    EXPECT_EQ(b.P, 32);
    EXPECT_EQ(b.S, 8);
  }
}

}  // namespace
