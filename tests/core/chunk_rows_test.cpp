// StencilRows (src/core/factored/chunk_rows.hpp), the fused chunk table kernels' right-hand side,
// run on the host chunk by chunk as the kernels run it: the chunk's rows of f in u, the two rows
// either side in lo and hi (NaN where they leave the line: they must not be read), the line for
// the edge rows. Every row must equal stencil_row's (the same sums, so bit for bit), for every n
// the chunk tables take at their boundaries, with every chunk partition the table uses.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "core/factored/chunk_rows.hpp"
#include "core/factored/chunk_table.hpp"
#include "support/factored_stencil.hpp"

namespace triax::test {
namespace {

template <class T, int M>
void check_partition(int n, const Stencil<T>& B, const std::vector<T>& f) {
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const auto line = [&](int r) { return f[r]; };
  const detail::StencilRows<T> rows{B};
  const int P = (n + M - 1) / M;
  for (int j = 0; j < P; ++j) {
    const int first = j * M, held = std::min(M, n - first);
    T u[M];
    for (int k = 0; k < M; ++k) u[k] = k < held ? f[first + k] : T(0);
    const auto at = [&](int r) { return r >= 0 && r < n ? f[r] : nan; };
    const T lo[2] = {at(first - 2), at(first - 1)};
    const T hi[2] = {at(first + M), at(first + M + 1)};
    rows(u, lo, hi, first, held, n, line);
    for (int k = 0; k < held; ++k) {
      const int i = first + k;
      const T want = detail::stencil_row(B, i, n, [&](int o) { return f[i + o]; }, line);
      ASSERT_EQ(u[k], want) << "n=" << n << " M=" << M << " row " << i;
    }
  }
}

template <class T>
void check_size(int n, std::mt19937_64& g) {
  std::uniform_real_distribution<double> u(-1, 1);
  const Stencil<T> B = random_stencil<T>(g());
  std::vector<T> f(n);
  for (T& v : f) v = T(u(g));
  // The partition the chunk table takes for n (chunk_table.hpp), and 32-row chunks.
  switch (detail::chunk_rows_for(n)) {
    case 8: check_partition<T, 8>(n, B, f); break;
    case 16: check_partition<T, 16>(n, B, f); break;
    default: check_partition<T, 32>(n, B, f); break;
  }
  check_partition<T, 32>(n, B, f);
}

TEST(ChunkRows, StencilRowsMatchStencilRowEveryChunk) {
  std::mt19937_64 g(2026);
  std::vector<int> sizes;
  for (int n = 1; n <= 70; ++n) sizes.push_back(n);
  for (int n : {127, 128, 129, 255, 256, 257, 511, 512, 513, 1023, 1024}) sizes.push_back(n);
  for (int n : sizes) {
    check_size<float>(n, g);
    check_size<double>(n, g);
  }
}

}  // namespace
}  // namespace triax::test
