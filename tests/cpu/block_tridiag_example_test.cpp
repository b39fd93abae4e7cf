// The example of include/triax/block.hpp, compiled and run: a 32 x 16 grid with 5 unknowns per
// point, systems along y, block diagonally dominant blocks; the solution must satisfy the system.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "triax/block.hpp"

namespace {

TEST(BlockExample, HeaderExampleSolvesTheSystem) {
  const auto l = triax::BlockLayouts::array_of_blocks(5, {32, 16});
  std::vector<double> A(l.a.size(), 0.1), B(l.b.size(), 0.1), C(l.c.size(), 0.1),
      d(l.d.size(), 1.0);
  for (std::size_t p = 0; p < B.size(); p += 25)
    for (int r = 0; r < 5; ++r) B[p + r * 5 + r] = 4.0;  // each block's diagonal
  const std::vector<double> rhs = d;
  triax::BlockSolver<double> solver(triax::Backend::cpu, 5, l, /*axis=*/1);
  solver.solve_in_place(A.data(), B.data(), C.data(), d.data());  // d now holds u

  // Residual of the system at grid point (x, y), component r, from the layouts' offsets.
  double worst = 0;
  for (std::int64_t x = 0; x < 32; ++x) {
    for (std::int64_t y = 0; y < 16; ++y) {
      for (std::int64_t r = 0; r < 5; ++r) {
        double lhs = 0;
        for (std::int64_t c = 0; c < 5; ++c) {
          const std::int64_t e = l.a.offset_of(std::vector<std::int64_t>{r, c, x, y});
          auto u = [&](std::int64_t yy) {
            return d[l.d.offset_of(std::vector<std::int64_t>{c, x, yy})];
          };
          lhs += B[e] * u(y);
          if (y > 0) lhs += A[e] * u(y - 1);
          if (y < 15) lhs += C[e] * u(y + 1);
        }
        worst =
            std::max(worst, std::abs(lhs - rhs[l.d.offset_of(std::vector<std::int64_t>{r, x, y})]));
      }
    }
  }
  EXPECT_LT(worst, 1e-12);
  EXPECT_EQ(solver.system_count(), 32);
  EXPECT_EQ(solver.system_length(), 16);
  EXPECT_EQ(solver.algorithm(), triax::BlockAlgorithm::cpu_block_thomas);
}

}  // namespace
