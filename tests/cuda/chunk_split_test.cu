// How the hybrid cuts a system into its chunk threads' chunks (chunk_split.cuh), on the host:
// every cut covers the n rows once, in order, with no chunk longer than a thread holds, and the
// cut in whole vectors (split_vectors) starts every chunk on a vector and says no exactly where
// it cannot. The solves see a cut only through the lengths the shapes happen to use; a wrong
// one here would read past a system or leave rows unsolved. No device needed.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "cuda/scalar/block/chunk_split.cuh"

namespace triax::test {
namespace {

using detail::cuda::chunk_start;
using detail::cuda::HybridShape;

/// The chunks of sh over n rows and P threads: contiguous from row 0 to n, active ones of 1 to
/// `most` rows (at least 2 unless n == 1), the rest empty.
void expect_cut_covers(const HybridShape& sh, std::int64_t n, int P, int most) {
  ASSERT_GE(sh.active, 1);
  ASSERT_LE(sh.active, P);
  EXPECT_EQ(chunk_start(sh, n, 0), 0);
  for (int j = 0; j < P; ++j) {
    const int L = chunk_start(sh, n, j + 1) - chunk_start(sh, n, j);
    if (j < sh.active) {
      EXPECT_GE(L, n == 1 ? 1 : 2) << "chunk " << j;
      EXPECT_LE(L, most) << "chunk " << j;
    } else {
      EXPECT_EQ(L, 0) << "chunk " << j;
    }
  }
  EXPECT_EQ(chunk_start(sh, n, P), n);
}

template <class T>
void check_every_length(int M) {
  constexpr int V = 16 / sizeof(T);
  for (int P = 1; P <= 256; P *= 2) {
    for (std::int64_t n = 1; n <= std::int64_t(M) * P; ++n) {
      SCOPED_TRACE("n " + std::to_string(n) + ", P " + std::to_string(P) + ", M " +
                   std::to_string(M));
      const HybridShape even = detail::cuda::split_rows(n, P, P, 1);
      expect_cut_covers(even, n, P, M);
      HybridShape v = even;
      const std::int64_t wanted = ((n + P - 1) / P + V - 1) / V * V;
      const bool possible = n % V == 0 && wanted <= M;
      ASSERT_EQ(detail::cuda::split_vectors<T>(n, M, P, v), possible);
      if (!possible) {
        EXPECT_EQ(v.q, even.q);  // left alone
        EXPECT_EQ(v.rem, even.rem);
        EXPECT_EQ(v.active, even.active);
        continue;
      }
      expect_cut_covers(v, n, P, M);
      for (int j = 0; j <= P; ++j) EXPECT_EQ(chunk_start(v, n, j) % V, 0) << "chunk " << j;
    }
  }
}

TEST(ChunkSplit, EveryLengthFloat) {
  check_every_length<float>(8);
  check_every_length<float>(16);
}

TEST(ChunkSplit, EveryLengthDouble) { check_every_length<double>(8); }

// The cuts the notes and docs/algorithms.md name.
TEST(ChunkSplit, NamedCases) {
  HybridShape sh = detail::cuda::split_rows(300, 32, 32, 8);
  ASSERT_TRUE(detail::cuda::split_vectors<float>(300, 16, 32, sh));
  EXPECT_EQ(sh.q, 12);
  EXPECT_EQ(sh.active, 25);
  sh = detail::cuda::split_rows(166, 32, 32, 8);
  ASSERT_TRUE(detail::cuda::split_vectors<double>(166, 8, 32, sh));
  EXPECT_EQ(sh.q, 6);
  EXPECT_EQ(sh.active, 28);
  EXPECT_EQ(166 - chunk_start(sh, 166, 27), 4);  // the last chunk
  // n = 1000 over 64 threads needs 16 rows a chunk: more than 8 double rows.
  sh = detail::cuda::split_rows(1000, 64, 64, 4);
  EXPECT_FALSE(detail::cuda::split_vectors<double>(1000, 8, 64, sh));
  EXPECT_FALSE(detail::cuda::split_vectors<float>(257, 16, 32, sh));
}

}  // namespace
}  // namespace triax::test
