// The chunk table of a factored cuda plan (src/core/factored/chunk_table.hpp), on the host: the
// table applied to random right-hand sides by chunk_apply_host (the kernel's operations, lane by
// lane) against the backward-error bound of Thomas in long double, for every matrix of
// support/factored_cases.hpp, n = 1..300 and sampled sizes up to the kernel's 1024 rows; the
// near-Toeplitz compression; what makes the construction refuse; and the route's table rules
// (route.hpp). The kernel itself is checked against the reference backend on a GPU
// (tests/cuda/factored_table_test.cpp).
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/factored/chunk_table.hpp"
#include "core/factored/route.hpp"
#include "support/factored_cases.hpp"

namespace triax::test {
namespace {

template <class T>
class FactoredChunkTable : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FactoredChunkTable, Precisions);

// x of one system by the table; its backward error in eps (support's |L||U| bound).
template <class T>
double table_error(const FactoredMatrixCase<T>& m, std::uint64_t seed, bool* compressed = nullptr) {
  const std::int64_t n = static_cast<std::int64_t>(m.b.size());
  // The table never reads a[0] or c[n-1] (NaN in the cases).
  const auto table = detail::chunk_matrix(m.a.data(), m.b.data(), m.c.data(), n);
  EXPECT_TRUE(table.ok) << m.name << " n=" << n;
  if (!table.ok) return INFINITY;
  if (compressed != nullptr) *compressed = table.layout.compressed;
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> d(n), x(n, std::numeric_limits<T>::quiet_NaN());
  for (auto& v : d) v = T(u(g));
  detail::chunk_apply_host(table.view(), d.data(), x.data());
  const Layout l = Layout::packed({n});
  return backward_error_eps(m, l, d, l, x, 0);
}

std::vector<std::int64_t> table_sizes() {
  std::vector<std::int64_t> sizes;
  for (std::int64_t n = 1; n <= 300; ++n) sizes.push_back(n);
  for (std::int64_t n : {301, 383, 384, 385, 511, 512, 513, 640, 777, 1000, 1023, 1024}) {
    sizes.push_back(n);
  }
  return sizes;
}

TYPED_TEST(FactoredChunkTable, MatchesThomasBound) {
  using T = TypeParam;
  for (std::int64_t n : table_sizes()) {
    for (const auto& m : factored_matrices<T>(n)) {
      // Only matrices the route gives the table: interior rows diagonally dominant.
      std::vector<T> a = m.a, c = m.c;
      a[0] = 0;
      c[n - 1] = 0;
      if (!detail::interior_dominant(a.data(), m.b.data(), c.data(), n)) continue;
      SCOPED_TRACE(m.name + " n=" + std::to_string(n));
      EXPECT_LE(table_error(m, 7 + n), 64.0);
    }
  }
}

TYPED_TEST(FactoredChunkTable, NearToeplitzIsCompressed) {
  using T = TypeParam;
  // Toeplitz and Pade closures: the interior chunks share one table (3 stored); rows that
  // differ deep inside a system keep a table per chunk.
  for (std::int64_t n : {64, 255, 256, 300, 512, 1000, 1024}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    bool compressed = false;
    EXPECT_LE(table_error(toeplitz<T>("fast", n, 0.25, 1.0, 0.25, 3.0), 1, &compressed), 64.0);
    EXPECT_TRUE(compressed);
    EXPECT_LE(table_error(pade<T>(n), 2, &compressed), 64.0);
    EXPECT_TRUE(compressed);
    auto bump = toeplitz<T>("bump", n, 0.25, 1.0, 0.25, 3.0);
    bump.b[42] = T(1.5);  // inside chunk 1 or 5 (M = 32, 16 or 8), not a separator row
    EXPECT_LE(table_error(bump, 3, &compressed), 64.0);
    EXPECT_FALSE(compressed);
    // Separator rows live in the reduced system's per-lane values, not in the chunk tables.
    auto at_separator = toeplitz<T>("separator", n, 0.25, 1.0, 0.25, 3.0);
    const int M = detail::chunk_rows_for(n);
    at_separator.b[2 * M - 1] = T(1.5);
    EXPECT_LE(table_error(at_separator, 5, &compressed), 64.0);
    EXPECT_TRUE(compressed);
    EXPECT_LE(table_error(varying<T>(n, 99), 4, &compressed), 64.0);
    EXPECT_FALSE(compressed);
  }
  const auto t = toeplitz<T>("fast", 512, 0.25, 1.0, 0.25, 3.0);
  const auto table = detail::chunk_matrix(t.a.data(), t.b.data(), t.c.data(), 512);
  ASSERT_TRUE(table.ok);
  EXPECT_EQ(table.layout.M, 16);
  EXPECT_EQ(table.layout.P, 32);
  EXPECT_EQ(table.layout.tables, 3);
  EXPECT_EQ(table.layout.levels, 5);
  EXPECT_EQ(table.values.size(),
            std::size_t(detail::chunk_fields) * 16 * 3 +
                std::size_t(detail::ChunkView<T>::reduced_fields()) * detail::chunk_lanes);
}

TYPED_TEST(FactoredChunkTable, ManyRightHandSidesOneTable) {
  using T = TypeParam;
  const std::int64_t n = 257;
  const auto m = pade<T>(n);
  for (std::uint64_t s = 0; s < 50; ++s) EXPECT_LE(table_error(m, 1000 + s), 64.0) << s;
}

TYPED_TEST(FactoredChunkTable, RefusesWhatItCannotHold) {
  using T = TypeParam;
  // Longer than 32 chunks of 32 rows.
  auto longer = toeplitz<T>("fast", 1025, 0.25, 1.0, 0.25, 3.0);
  EXPECT_FALSE(detail::chunk_matrix(longer.a.data(), longer.b.data(), longer.c.data(), 1025).ok);
  EXPECT_EQ(detail::chunk_rows_for(1025), 0);
  EXPECT_EQ(detail::chunk_rows_for(256), 8);
  EXPECT_EQ(detail::chunk_rows_for(257), 16);
  EXPECT_EQ(detail::chunk_rows_for(1024), 32);
  // A zero pivot inside a chunk, and one in the reduced system.
  auto zero = toeplitz<T>("zero", 100, 0.25, 1.0, 0.25, 3.0);
  zero.b[40] = 0;
  zero.a[40] = 0;
  zero.c[40] = 0;
  EXPECT_FALSE(detail::chunk_matrix(zero.a.data(), zero.b.data(), zero.c.data(), 100).ok);
  auto sep = toeplitz<T>("separator", 100, 0.25, 1.0, 0.25, 3.0);
  sep.a[7] = sep.b[7] = sep.c[7] = 0;  // row 7 is the first separator (M = 8)
  EXPECT_FALSE(detail::chunk_matrix(sep.a.data(), sep.b.data(), sep.c.data(), 100).ok);
  // Values beyond T's range.
  auto huge = toeplitz<T>("huge", 100, 0.25, 1.0, 0.25, 3.0);
  huge.b[50] = std::numeric_limits<T>::infinity();
  EXPECT_FALSE(detail::chunk_matrix(huge.a.data(), huge.b.data(), huge.c.data(), 100).ok);
}

TEST(FactoredChunkTableRoute, Rules) {
  using detail::FactoredRoute;
  EXPECT_EQ(detail::parse_factored_route("table"), FactoredRoute::table);
  detail::HybridRouteFacts h;
  h.cuda = h.automatic = true;
  h.n = 8;
  EXPECT_TRUE(detail::route_to_hybrid(h, FactoredRoute::table));  // as `hybrid` up to 1024 rows
  h.n = 1025;  // past the table: the factored kernels (the hybrid's backward error, route.hpp)
  EXPECT_FALSE(detail::route_to_hybrid(h, FactoredRoute::table));
  EXPECT_FALSE(detail::route_to_hybrid(h, FactoredRoute::automatic));
  EXPECT_TRUE(detail::route_to_hybrid(h, FactoredRoute::hybrid));
  h.n = 8;
  h.checked = true;
  EXPECT_FALSE(detail::route_to_hybrid(h, FactoredRoute::table));

  detail::TableRouteFacts f;
  f.n = 512;
  f.dominant = f.table_ok = true;
  EXPECT_TRUE(detail::table_applies(f, FactoredRoute::automatic));
  EXPECT_TRUE(detail::table_applies(f, FactoredRoute::table));
  EXPECT_FALSE(detail::table_applies(f, FactoredRoute::hybrid));
  EXPECT_FALSE(detail::table_applies(f, FactoredRoute::thomas));
  f.dominant = false;
  EXPECT_FALSE(detail::table_applies(f, FactoredRoute::table));
  EXPECT_FALSE(detail::table_applies(f, FactoredRoute::automatic));
  f.dominant = true;
  f.table_ok = false;
  EXPECT_FALSE(detail::table_applies(f, FactoredRoute::table));
  f.table_ok = true;
  f.n = 1025;
  EXPECT_FALSE(detail::table_applies(f, FactoredRoute::automatic));
  f.n = 1024;
  EXPECT_TRUE(detail::table_applies(f, FactoredRoute::automatic));
  // Float: `auto` takes the table along strided axes past 256 rows only (where it measured faster
  // than the general hybrid); `table` everywhere.
  f.single = true;
  f.contiguous = false;
  EXPECT_TRUE(detail::table_applies(f, FactoredRoute::automatic));
  f.n = 256;
  EXPECT_FALSE(detail::table_applies(f, FactoredRoute::automatic));
  EXPECT_TRUE(detail::table_applies(f, FactoredRoute::table));
  f.n = 512;
  f.contiguous = true;
  EXPECT_FALSE(detail::table_applies(f, FactoredRoute::automatic));
  EXPECT_TRUE(detail::table_applies(f, FactoredRoute::table));
  f.single = false;
  EXPECT_TRUE(detail::table_applies(f, FactoredRoute::automatic));
}

}  // namespace
}  // namespace triax::test
