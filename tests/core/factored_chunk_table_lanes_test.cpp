// The chunk table built lane by lane in double (src/core/factored/chunk_table_lanes.hpp, the
// form a warp runs on the device) against chunk_matrix (long double, the factored plan's), on
// the host: the same layout, every value within double's rounding of the long double one, the
// table applied by chunk_apply_host within Thomas' backward-error bound, rows read with a stride
// giving the same bits, and a matrix chunk_matrix refuses refused too.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/factored/chunk_table.hpp"
#include "core/factored/chunk_table_lanes.hpp"
#include "core/factored/route.hpp"
#include "support/factored_cases.hpp"

namespace triax::test {
namespace {

template <class T>
class ChunkTableLanes : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ChunkTableLanes, Precisions);

std::vector<std::int64_t> lane_sizes() {
  std::vector<std::int64_t> sizes;
  for (std::int64_t n = 1; n <= 80; ++n) sizes.push_back(n);
  for (std::int64_t n : {127, 255, 256, 257, 300, 383, 511, 512, 513, 777, 1000, 1023, 1024}) {
    sizes.push_back(n);
  }
  return sizes;
}

/// Whether two table values agree to the rounding that separates double from long double,
/// rounded to T: a few units in T's last place (double: 1e-12 relative, the PCR's multipliers
/// compound the factors' rounding).
template <class T>
bool close(T x, T y) {
  if (x == y) return true;
  const double tol = std::is_same_v<T, float> ? 4 * std::numeric_limits<float>::epsilon() : 1e-12;
  return std::fabs(double(x) - double(y)) <= tol * std::fmax(std::fabs(double(x)), std::fabs(double(y)));
}

/// The table of m by lanes, with a, b, c `stride` apart.
template <class T>
std::vector<T> lanes_table(const FactoredMatrixCase<T>& m, std::int64_t stride, bool& ok,
                           detail::ChunkView<T>& view) {
  const std::int64_t n = static_cast<std::int64_t>(m.b.size());
  std::vector<T> a(n * stride, T(0)), b(n * stride, T(0)), c(n * stride, T(0));
  for (std::int64_t i = 0; i < n; ++i) {
    a[i * stride] = m.a[i];
    b[i * stride] = m.b[i];
    c[i * stride] = m.c[i];
  }
  view = detail::chunk_lanes_layout<T>(static_cast<int>(n));
  std::vector<T> values(detail::chunk_lanes_values(view), std::numeric_limits<T>::quiet_NaN());
  const detail::MatrixRows<T> rows{a.data(), b.data(), c.data(), stride, stride, stride};
  ok = detail::chunk_lanes_build(view, rows, values.data());
  view.rows = values.data();
  view.reduced = values.data() + std::int64_t(detail::chunk_fields) * view.M * view.tables;
  return values;
}

TYPED_TEST(ChunkTableLanes, MatchesTheLongDoubleTable) {
  using T = TypeParam;
  using View = detail::ChunkView<T>;
  for (std::int64_t n : lane_sizes()) {
    for (const auto& m : factored_matrices<T>(n)) {
      // The matrices the route gives a table (rows 1 .. n-2 read: a[0], c[n-1] are NaN here).
      if (!detail::interior_dominant(m.a.data(), m.b.data(), m.c.data(), n)) continue;
      SCOPED_TRACE(m.name + " n=" + std::to_string(n));
      const auto host = detail::chunk_matrix(m.a.data(), m.b.data(), m.c.data(), n);
      ASSERT_TRUE(host.ok);
      bool ok = false;
      View lanes;
      const std::vector<T> values = lanes_table(m, 1, ok, lanes);
      ASSERT_TRUE(ok);
      const View ref = host.view();
      ASSERT_EQ(lanes.M, ref.M);
      ASSERT_EQ(lanes.P, ref.P);
      ASSERT_EQ(lanes.W, ref.W);
      ASSERT_EQ(lanes.levels, ref.levels);
      int bad = 0;
      for (int f = 0; f < detail::chunk_fields; ++f) {
        for (int k = 0; k < ref.M; ++k) {
          for (int j = 0; j < ref.P; ++j) {
            const T x = lanes.row(f, k, lanes.table_of(j)), y = ref.row(f, k, ref.table_of(j));
            if (!close(x, y) && bad++ < 5) {
              ADD_FAILURE() << "field " << f << " row " << k << " chunk " << j << ": " << x
                            << " against " << y;
            }
          }
        }
      }
      for (int f = 0; f < View::reduced_fields(); ++f) {
        for (int j = 0; j < detail::chunk_lanes; ++j) {
          const T x = lanes.red(f, j), y = ref.red(f, j);
          if (!close(x, y) && bad++ < 5) {
            ADD_FAILURE() << "reduced field " << f << " lane " << j << ": " << x << " against "
                          << y;
          }
        }
      }
      EXPECT_EQ(bad, 0);
      // Applied as the kernel applies it: within Thomas' bound, as chunk_matrix's table is.
      std::mt19937_64 g(11 + n);
      std::uniform_real_distribution<double> u(-1, 1);
      std::vector<T> d(n), x(n, std::numeric_limits<T>::quiet_NaN());
      for (auto& v : d) v = T(u(g));
      detail::chunk_apply_host(lanes, d.data(), x.data());
      const Layout l = Layout::packed({n});
      EXPECT_LE(backward_error_eps(m, l, d, l, x, 0), 64.0);
    }
  }
}

// Rows read `stride` apart (a coefficient layout's row stride) give the same bits.
TYPED_TEST(ChunkTableLanes, RowStrideGivesTheSameTable) {
  using T = TypeParam;
  for (std::int64_t n : {5, 100, 777}) {
    for (const auto& m : factored_matrices<T>(n, true)) {
      SCOPED_TRACE(m.name + " n=" + std::to_string(n));
      bool ok1 = false, ok3 = false;
      detail::ChunkView<T> v1, v3;
      const std::vector<T> t1 = lanes_table(m, 1, ok1, v1), t3 = lanes_table(m, 3, ok3, v3);
      EXPECT_EQ(ok1, ok3);
      ASSERT_EQ(t1.size(), t3.size());
      for (std::size_t i = 0; i < t1.size(); ++i) {
        const bool same = t1[i] == t3[i] || (std::isnan(t1[i]) && std::isnan(t3[i]));
        EXPECT_TRUE(same) << "value " << i;
      }
    }
  }
}

// A zero pivot inside a chunk (b = 0 in an interior row whose a c is 0 too) is refused, as
// chunk_matrix refuses it; a separator's zero diagonal is not a pivot of the interiors.
TYPED_TEST(ChunkTableLanes, ZeroPivotIsRefused) {
  using T = TypeParam;
  for (std::int64_t n : {1, 9, 300}) {
    FactoredMatrixCase<T> m = factored_matrices<T>(n, true).front();
    const std::int64_t row = n / 2;  // not a separator (rows 7, and 15, 31, ... of n = 300)
    m.b[row] = 0;
    m.a[row] = 0;
    if (row > 0) m.c[row - 1] = 0;
    SCOPED_TRACE("n=" + std::to_string(n) + ", row " + std::to_string(row));
    const auto host = detail::chunk_matrix(m.a.data(), m.b.data(), m.c.data(), n);
    bool ok = true;
    detail::ChunkView<T> v;
    lanes_table(m, 1, ok, v);
    EXPECT_FALSE(host.ok);
    EXPECT_FALSE(ok);
  }
}

// A layout of more rows a chunk than n needs (chunk_lanes_layout's rows_per_chunk): fewer
// chunks, the same solve within Thomas' bound.
TYPED_TEST(ChunkTableLanes, MoreRowsAChunk) {
  using T = TypeParam;
  for (std::int64_t n : {5, 100, 255, 300, 512}) {
    for (const int M : {16, 32}) {
      for (const auto& m : factored_matrices<T>(n, true)) {
        if (!detail::interior_dominant(m.a.data(), m.b.data(), m.c.data(), n)) continue;
        SCOPED_TRACE(m.name + " n=" + std::to_string(n) + " M=" + std::to_string(M));
        detail::ChunkView<T> v = detail::chunk_lanes_layout<T>(static_cast<int>(n), M);
        ASSERT_EQ(v.M, M);
        ASSERT_EQ(v.P, (n + M - 1) / M);
        std::vector<T> values(detail::chunk_lanes_values(v), std::numeric_limits<T>::quiet_NaN());
        const detail::MatrixRows<T> rows{m.a.data(), m.b.data(), m.c.data(), 1, 1, 1};
        ASSERT_TRUE(detail::chunk_lanes_build(v, rows, values.data()));
        v.rows = values.data();
        v.reduced = values.data() + std::int64_t(detail::chunk_fields) * v.M * v.tables;
        std::mt19937_64 g(3 + n);
        std::uniform_real_distribution<double> u(-1, 1);
        std::vector<T> d(n), x(n, std::numeric_limits<T>::quiet_NaN());
        for (auto& e : d) e = T(u(g));
        detail::chunk_apply_host(v, d.data(), x.data());
        const Layout l = Layout::packed({n});
        EXPECT_LE(backward_error_eps(m, l, d, l, x, 0), 64.0);
      }
    }
  }
}

// The device build's dominance check, lane by lane, agrees with interior_dominant (which the
// factored plan checks on the host) on every matrix of the factored suites.
TYPED_TEST(ChunkTableLanes, LanesJudgeDominanceAsTheHost) {
  using T = TypeParam;
  int dominant = 0, not_dominant = 0;
  const auto judge = [&](const FactoredMatrixCase<T>& m, std::int64_t n) {
    const detail::ChunkView<T> v = detail::chunk_lanes_layout<T>(static_cast<int>(n));
    const detail::MatrixRows<T> rows{m.a.data(), m.b.data(), m.c.data(), 1, 1, 1};
    bool lanes = true;
    for (int j = 0; j < detail::chunk_lanes; ++j) {
      lanes = lanes && detail::chunk_lanes_dominant(v, rows, j);
    }
    const bool host = detail::interior_dominant(m.a.data(), m.b.data(), m.c.data(), n);
    EXPECT_EQ(lanes, host);
    ++(host ? dominant : not_dominant);
  };
  for (std::int64_t n : lane_sizes()) {
    for (const auto& m : factored_matrices<T>(n)) {
      SCOPED_TRACE(m.name + " n=" + std::to_string(n));
      judge(m, n);
      // The same matrix with one interior row no longer dominant: the first, a middle one, the
      // last (lanes 0, P / 2 and P - 1 judge them).
      for (const std::int64_t row : {std::int64_t(1), n / 2, n - 2}) {
        if (row < 1 || row + 1 >= n) continue;
        SCOPED_TRACE("row " + std::to_string(row));
        FactoredMatrixCase<T> weak = m;
        weak.a[row] = T(1);
        weak.c[row] = T(1);
        weak.b[row] = T(1.5);
        judge(weak, n);
      }
    }
  }
  // Both verdicts occur, so the comparison has weight either way.
  EXPECT_GT(dominant, 0);
  EXPECT_GT(not_dominant, 0);
}

// Thomas' factors of the whole matrix (what a refused table falls back to) solve every matrix
// of the factored suites within Thomas' backward-error bound, applied as the fallback kernels
// apply them; a and c read at stride 0 (one value for every row) give the factors of the
// matrix with those values.
TYPED_TEST(ChunkTableLanes, ThomasFactorsSolve) {
  using T = TypeParam;
  int checked = 0;
  for (std::int64_t n : {1, 2, 3, 17, 100, 777, 1024}) {
    for (const auto& m : factored_matrices<T>(n)) {
      // Thomas' bound holds for dominant matrices; the others only need to be solved somehow.
      if (!detail::interior_dominant(m.a.data(), m.b.data(), m.c.data(), n)) continue;
      SCOPED_TRACE(m.name + " n=" + std::to_string(n));
      std::vector<T> l(n), rinv(n), e(n);
      const detail::MatrixRows<T> rows{m.a.data(), m.b.data(), m.c.data(), 1, 1, 1};
      detail::chunk_lanes_thomas_factors(rows, static_cast<int>(n), l.data(), rinv.data(),
                                         e.data());
      EXPECT_EQ(l[0], T(0));
      EXPECT_EQ(e[n - 1], T(0));
      std::mt19937_64 g(5 + n);
      std::uniform_real_distribution<double> u(-1, 1);
      std::vector<T> d(n), x(n);
      for (auto& v : d) v = T(u(g));
      T y = 0;
      for (std::int64_t i = 0; i < n; ++i) x[i] = y = d[i] - l[i] * y;
      T after = 0;
      for (std::int64_t i = n - 1; i >= 0; --i) x[i] = after = rinv[i] * x[i] - e[i] * after;
      const Layout layout = Layout::packed({n});
      EXPECT_LE(backward_error_eps(m, layout, d, layout, x, 0), 64.0);
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
  // Stride 0: a = -1 and c = -1 for every row, b = 3.
  const T minus_one = -1, three = 3;
  std::vector<T> l(5), rinv(5), e(5);
  detail::chunk_lanes_thomas_factors(detail::MatrixRows<T>{&minus_one, &three, &minus_one, 0, 0, 0},
                                     5, l.data(), rinv.data(), e.data());
  EXPECT_EQ(rinv[0], T(1) / T(3));
  EXPECT_EQ(e[0], T(-1) / T(3));
  EXPECT_EQ(l[1], T(-1) / T(3));
}

// When triax::Solver's cuda plan takes the shared-matrix route (route.hpp).
TEST(SharedMatrixRouteRule, WhereTheRouteRuns) {
  using detail::SharedMatrixSwitch;
  detail::SharedMatrixFacts f;
  f.n = 512;
  f.count = 100000;
  f.shared = true;
  f.single = true;
  f.contiguous = false;
  const auto route = [&](SharedMatrixSwitch sw) { return detail::shared_matrix_route(f, sw); };
  EXPECT_TRUE(route(SharedMatrixSwitch::automatic));  // float along a strided axis past 256
  EXPECT_FALSE(route(SharedMatrixSwitch::off));
  f.n = 256;  // float at 256 rows and fewer: the hybrid measured faster
  EXPECT_FALSE(route(SharedMatrixSwitch::automatic));
  EXPECT_TRUE(route(SharedMatrixSwitch::on));
  f.n = 1000;  // float up to the table's 1024 rows
  EXPECT_TRUE(route(SharedMatrixSwitch::automatic));
  f.n = 512;
  f.contiguous = true;  // float along x: the hybrid measured faster
  EXPECT_FALSE(route(SharedMatrixSwitch::automatic));
  EXPECT_TRUE(route(SharedMatrixSwitch::on));
  f.single = false;  // double along x up to 512 rows
  EXPECT_TRUE(route(SharedMatrixSwitch::automatic));
  f.n = 513;
  EXPECT_FALSE(route(SharedMatrixSwitch::automatic));
  f.contiguous = false;  // double along strided axes up to 1024
  f.n = 1024;
  EXPECT_TRUE(route(SharedMatrixSwitch::automatic));
  f.n = 63;  // short systems keep the hybrid
  EXPECT_FALSE(route(SharedMatrixSwitch::automatic));
  EXPECT_TRUE(route(SharedMatrixSwitch::on));
  f.n = 512;
  f.count = 16383;  // a small batch: too few blocks of the strided kernel
  EXPECT_FALSE(route(SharedMatrixSwitch::automatic));
  EXPECT_TRUE(route(SharedMatrixSwitch::on));
  f.count = 16384;  // enough systems, but double wants 12 Mi rows in all
  EXPECT_FALSE(route(SharedMatrixSwitch::automatic));
  f.count = detail::shared_matrix_min_double_rows / 512;
  EXPECT_TRUE(route(SharedMatrixSwitch::automatic));
  f.count = 16384;
  f.single = true;  // float: 16384 systems are enough
  EXPECT_TRUE(route(SharedMatrixSwitch::automatic));
  f.count = 100000;
  f.n = 1025;  // past the table
  EXPECT_FALSE(route(SharedMatrixSwitch::on));
  f.n = 512;
  f.checked = true;  // no info from the table
  EXPECT_FALSE(route(SharedMatrixSwitch::on));
  f.checked = false;
  f.shared = false;  // systems with matrices of their own
  EXPECT_FALSE(route(SharedMatrixSwitch::on));
}

}  // namespace
}  // namespace triax::test
