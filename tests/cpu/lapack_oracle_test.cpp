// LAPACK ?gtsv (through LAPACKE) as an outside oracle: the same random systems, solved one by
// one by LAPACK's partial-pivoting tridiagonal solver, agree with every host solver of ours.
#include <gtest/gtest.h>

#include <type_traits>
#include <vector>

#if defined(TRIAX_TEST_HAS_LAPACKE)
#include <lapacke.h>
#endif

#include "cpu/host_solvers.hpp"

namespace triax::test {
namespace {

template <class T>
class LapackOracle : public ::testing::Test {
 protected:
  void SetUp() override {
#if !defined(TRIAX_TEST_HAS_LAPACKE)
    GTEST_SKIP() << "built without LAPACKE (pkg-config lapacke not found)";
#endif
  }
};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(LapackOracle, ValueTypes);

#if defined(TRIAX_TEST_HAS_LAPACKE)
// Solves system s of the batch with ?gtsv into `out` (laid out as d).
template <class T>
void gtsv(const Batch<T>& batch, int axis, std::int64_t s, std::vector<T>& out) {
  const Layout& l = batch.layouts.d;
  const std::int64_t n = l.extent(axis);
  std::vector<T> dl(n), dg(n), du(n), rhs(n);
  const std::vector<std::int64_t> rows = system_rows(l, axis, s);
  for (std::int64_t i = 0; i < n; ++i) {
    if (i > 0) dl[i - 1] = batch.a[rows[i]];
    dg[i] = batch.b[rows[i]];
    if (i + 1 < n) du[i] = batch.c[rows[i]];
    rhs[i] = batch.d[rows[i]];
  }
  lapack_int info;
  if constexpr (std::is_same_v<T, double>) {
    info = LAPACKE_dgtsv(LAPACK_COL_MAJOR, n, 1, dl.data(), dg.data(), du.data(), rhs.data(), n);
  } else {
    info = LAPACKE_sgtsv(LAPACK_COL_MAJOR, n, 1, dl.data(), dg.data(), du.data(), rhs.data(), n);
  }
  ASSERT_EQ(info, 0) << "system " << s;
  for (std::int64_t i = 0; i < n; ++i) out[rows[i]] = rhs[i];
}
#endif

TYPED_TEST(LapackOracle, GtsvAgreesWithEveryHostSolver) {
#if defined(TRIAX_TEST_HAS_LAPACKE)
  using T = TypeParam;
  for (std::int64_t n : {1, 2, 33, 300}) {
    constexpr std::int64_t systems = 12;
    for (int axis = 0; axis < 2; ++axis) {
      const Layout layout = systems_along(axis, n, systems);
      Batch<T> batch{OperandLayouts(layout)};
      const std::uint64_t seed = test_seed(n * 2 + axis);
      batch.fill_random(seed);
      std::vector<T> lapack = batch.d;
      for (std::int64_t s = 0; s < systems; ++s) gtsv(batch, axis, s, lapack);
      for (const HostSolver& h : host_solvers) {
        Batch<T> ours = batch;
        Solver<T>(h.backend, layout, axis, {.algorithm = h.algorithm})
            .solve_in_place(ours.a.data(), ours.b.data(), ours.c.data(), ours.d.data());
        EXPECT_TRUE(outputs_match(layout, ours.d, lapack, batch.condition))
            << h.name() << ", n " << n << ", axis " << axis << ", seed " << seed;
      }
    }
  }
#endif
}

}  // namespace
}  // namespace triax::test
