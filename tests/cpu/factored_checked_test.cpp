// triax::FactoredSolver's checked mode, breakdowns, the floating-point range and bad arguments,
// on the cpu and reference backends.
#include <gtest/gtest.h>

#include <cmath>

#include "support/factored_cases.hpp"

namespace triax::test {
namespace {

template <class T>
class FactoredChecked : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FactoredChecked, Precisions);

constexpr Backend host_backends[] = {Backend::reference, Backend::cpu};

TYPED_TEST(FactoredChecked, ReportsNonFiniteRightHandSidesPerSystem) {
  using T = TypeParam;
  const std::int64_t n = 16, count = 40;
  auto m = pade<T>(n);
  for (int axis : {0, 1}) {
    const auto l = axis == 0 ? Layout::packed({n, count}) : Layout::packed({count, n});
    FactoredGrid g{"2d", axis == 0 ? std::vector<std::int64_t>{n, count} : std::vector<std::int64_t>{count, n},
                   axis, FactoredLayouts(l)};
    std::vector<T> d0(l.size(), T(1));
    d0[row_of(l, axis, 3, 5)] = std::numeric_limits<T>::quiet_NaN();   // info 6: d'[5] NaN
    d0[row_of(l, axis, 7, 0)] = std::numeric_limits<T>::infinity();    // info 1
    d0[row_of(l, axis, 39, n - 1)] = std::numeric_limits<T>::max();    // finite: overflow? no
    for (Backend be : host_backends) {
      for (Mode mode : {Mode::in_place, Mode::separate, Mode::increment}) {
        SCOPED_TRACE(std::string(to_string(be)) + " axis " + std::to_string(axis) + " " + to_string(mode));
        std::vector<T> d = d0, x(l.size(), T(0));
        std::vector<int> info(count, -1);
        run_factored_host(be, m, g, mode, d, x, {.checked = true}, info.data());
        for (std::int64_t s = 0; s < count; ++s) {
          const int want = s == 3 ? 6 : s == 7 ? 1 : -2;
          if (want != -2) {
            EXPECT_EQ(info[s], want) << "system " << s;
          } else if (s != 39) {
            EXPECT_EQ(info[s], 0) << "system " << s;
          }
        }
      }
    }
  }
}

TYPED_TEST(FactoredChecked, InfoAgreesWithReferenceOnFaults) {
  using T = TypeParam;
  const std::int64_t n = 33, count = 24;
  auto m = toeplitz<T>("fast", n, 0.25, 1.0, 0.25, 3);
  const auto l = Layout::packed({count, n});
  FactoredGrid g{"2d", {count, n}, 1, FactoredLayouts(l)};
  std::vector<T> d0(l.size(), T(0.5));
  const T faults[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                      -std::numeric_limits<T>::infinity(), std::numeric_limits<T>::max()};
  for (std::int64_t s = 0; s < count; s += 2) {
    d0[row_of(l, 1, s, (s * 5) % n)] = faults[(s / 2) % 4];
  }
  std::vector<int> ref(count), cpu(count);
  std::vector<T> dr = d0, dc = d0, xr(l.size()), xc(l.size());
  run_factored_host(Backend::reference, m, g, Mode::separate, dr, xr, {.checked = true}, ref.data());
  run_factored_host(Backend::cpu, m, g, Mode::separate, dc, xc, {.checked = true}, cpu.data());
  for (std::int64_t s = 0; s < count; ++s) {
    if (s % 2 == 1) EXPECT_EQ(cpu[s], 0);
    if (s % 2 == 0 && (s / 2) % 4 != 3) EXPECT_NE(cpu[s], 0) << "system " << s;
    // max is finite: the reference (long double) solves it; T may or may not overflow.
    if ((s / 2) % 4 != 3) EXPECT_EQ(cpu[s], ref[s]) << "system " << s;
  }
}

TYPED_TEST(FactoredChecked, BreakdownMakesEveryOutputNaNAndEveryInfoTheRow) {
  using T = TypeParam;
  // The Pade matrix with its closures is singular at n = 3 (pivot of row 2 is 0), and a zero
  // b[0] breaks down at row 0.
  auto singular = pade<T>(3);
  auto zero = toeplitz<T>("zero_b0", 5, 0.25, 1.0, 0.25, 3);
  zero.b[0] = T(0);
  // Pivots spanning more than T's exponent range (b[0] = -max, the others near 1): no one power
  // of two scales them all into range, so row 1's reciprocal overflows and the plan reports it.
  auto span = toeplitz<T>("span", 5, 0.25, 1.0, 0.25, 3);
  span.b[0] = -std::numeric_limits<T>::max();
  for (const auto& [m, row] : {std::pair{singular, 3}, std::pair{zero, 1}, std::pair{span, 2}}) {
    const std::int64_t n = static_cast<std::int64_t>(m.b.size());
    const auto l = Layout::packed({n, 9});
    FactoredGrid g{"2d", {n, 9}, 0, FactoredLayouts(l)};
    for (Backend be : host_backends) {
      FactoredSolver<T> s(be, m.a.data(), m.b.data(), m.c.data(), n, l, 0);
      EXPECT_EQ(s.factor_info(), row);
      for (bool checked : {false, true}) {
        for (Mode mode : {Mode::in_place, Mode::separate, Mode::increment}) {
          SCOPED_TRACE(m.name + " " + std::string(to_string(be)) + " " + to_string(mode) + (checked ? " checked" : ""));
          std::vector<T> d(l.size(), T(1)), x(l.size(), T(2));
          std::vector<int> info(9, -1);
          run_factored_host(be, m, g, mode, d, x, {.checked = checked}, checked ? info.data() : nullptr);
          const auto& out = mode == Mode::in_place ? d : x;
          for (T v : out) EXPECT_TRUE(std::isnan(v));
          if (checked) {
            for (int i : info) EXPECT_EQ(i, row);
          }
        }
      }
    }
  }
}

TYPED_TEST(FactoredChecked, ScaledMatrixSolvedAsUnscaled) {
  using T = TypeParam;
  // A matrix and right-hand side scaled by 2^k down into the subnormal range and up near the top
  // of the range: the same x, bit for bit (the plan solves (s A) x = s d with s a power of two,
  // and powers of two commute with rounding in the normal range).
  const std::int64_t n = 50, count = 5;
  auto m = pade<T>(n);
  const auto l = Layout::packed({count, n});
  FactoredGrid g{"2d", {count, n}, 1, FactoredLayouts(l)};
  std::vector<T> d(l.size());
  std::mt19937_64 gen(test_seed());
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& v : d) v = T(std::ldexp(std::round(u(gen) * 16) / 16, 0));  // 5 bits: scaling is exact
  std::vector<T> x0(l.size()), dd = d;
  run_factored_host(Backend::cpu, m, g, Mode::separate, dd, x0);
  const int lo = std::is_same_v<T, float> ? -135 : -1060;
  const int hi = std::is_same_v<T, float> ? 120 : 1015;
  for (int k : {lo, hi}) {
    SCOPED_TRACE("2^" + std::to_string(k));
    auto ms = m;
    for (std::int64_t i = 0; i < n; ++i) {
      if (i > 0) ms.a[i] = std::ldexp(m.a[i], k);
      ms.b[i] = std::ldexp(m.b[i], k);
      if (i + 1 < n) ms.c[i] = std::ldexp(m.c[i], k);
    }
    std::vector<T> ds(l.size()), x(l.size());
    for (std::size_t o = 0; o < d.size(); ++o) ds[o] = std::ldexp(d[o], k);
    FactoredSolver<T> s(Backend::cpu, ms.a.data(), ms.b.data(), ms.c.data(), n, l, 1);
    if (k == lo) EXPECT_TRUE(s.scaled());
    s.solve(ds.data(), x.data());
    ASSERT_TRUE(outputs_match(l, x, x0, 4.0));
    EXPECT_EQ(x, x0);
  }
}

TYPED_TEST(FactoredChecked, BadArgumentsRejectedWithNothingWritten) {
  using T = TypeParam;
  const std::int64_t n = 8;
  auto m = toeplitz<T>("fast", n, 0.25, 1.0, 0.25, 3);
  const auto l = Layout::packed({n, 4});
  EXPECT_THROW(FactoredSolver<T>(Backend::cpu, m.a.data(), m.b.data(), m.c.data(), n + 1, l, 0),
               invalid_argument);
  EXPECT_THROW(FactoredSolver<T>(Backend::cpu, m.a.data(), nullptr, m.c.data(), n, l, 0),
               invalid_argument);
  EXPECT_THROW(FactoredSolver<T>(Backend::cpu, nullptr, m.b.data(), m.c.data(), n, l, 0),
               invalid_argument);
  EXPECT_THROW(FactoredSolver<T>(Backend::cpu, m.a.data(), m.b.data(), nullptr, n, l, 0),
               invalid_argument);
  EXPECT_THROW(FactoredSolver<T>(Backend::cpu, m.a.data(), m.b.data(), m.c.data(), n, l, 2),
               invalid_argument);
  EXPECT_THROW(FactoredSolver<T>(Backend::cpu, m.a.data(), m.b.data(), m.c.data(), n, l, 0,
                                 {.algorithm = Algorithm::cpu_thomas}),
               invalid_argument);
  EXPECT_THROW(FactoredSolver<T>(Backend::cpu, m.a.data(), m.b.data(), m.c.data(), n, l, 0,
                                 {.num_threads = -1}),
               invalid_argument);
  // x of another rank; x writing one element twice.
  EXPECT_THROW(FactoredSolver<T>(Backend::cpu, m.a.data(), m.b.data(), m.c.data(), n,
                                 FactoredLayouts(l, Layout::packed({n, 4, 1, 2})), 0),
               invalid_argument);
  EXPECT_THROW(FactoredSolver<T>(Backend::cpu, m.a.data(), m.b.data(), m.c.data(), n,
                                 FactoredLayouts(l, Layout::strided({n, 4}, {1, 0})), 0),
               invalid_argument);
  // One row: a and c are never read, so null ones are fine.
  EXPECT_NO_THROW(FactoredSolver<T>(Backend::cpu, nullptr, m.b.data(), nullptr, 1,
                                    Layout::packed({1, 4}), 0));
  if (!backend_compiled(Backend::cuda)) {
    EXPECT_THROW(FactoredSolver<T>(Backend::cuda, m.a.data(), m.b.data(), m.c.data(), n, l, 0),
                 not_compiled);
  }

  FactoredSolver<T> s(Backend::cpu, m.a.data(), m.b.data(), m.c.data(), n, l, 0);
  FactoredSolver<T> checked(Backend::cpu, m.a.data(), m.b.data(), m.c.data(), n, l, 0, {.checked = true});
  std::vector<T> buf(2 * l.size() + 1, T(3));
  const std::vector<T> before = buf;
  // Output overlapping d; u overlapping d; null pointers; misaligned x; checked without info;
  // info over x.
  EXPECT_THROW(s.solve(buf.data(), buf.data() + 1), invalid_argument);
  EXPECT_THROW(s.solve_increment(buf.data(), buf.data() + 3), invalid_argument);
  EXPECT_THROW(s.solve(nullptr, buf.data()), invalid_argument);
  EXPECT_THROW(s.solve(buf.data(), nullptr), invalid_argument);
  EXPECT_THROW(s.solve_in_place(nullptr), invalid_argument);
  EXPECT_THROW(s.solve(buf.data(), reinterpret_cast<T*>(reinterpret_cast<char*>(buf.data() + l.size()) + 1)),
               invalid_argument);
  EXPECT_THROW(checked.solve(buf.data(), buf.data() + l.size()), invalid_argument);
  EXPECT_THROW(checked.solve(buf.data(), buf.data() + l.size(), reinterpret_cast<int*>(buf.data() + l.size())),
               invalid_argument);
  EXPECT_EQ(buf, before);
  // A moved-from plan refuses.
  FactoredSolver<T> moved = std::move(s);
  EXPECT_THROW(s.solve_in_place(buf.data()), invalid_argument);  // NOLINT(bugprone-use-after-move)
  EXPECT_NO_THROW(moved.solve_in_place(buf.data()));
}

TYPED_TEST(FactoredChecked, EmptyBatchesAndZeroRows) {
  using T = TypeParam;
  auto m = toeplitz<T>("fast", 4, 0.25, 1.0, 0.25, 3);
  FactoredSolver<T> none(Backend::cpu, m.a.data(), m.b.data(), m.c.data(), 4,
                         Layout::packed({4, 0}), 0, {.checked = true});
  EXPECT_EQ(none.system_count(), 0);
  EXPECT_NO_THROW(none.solve_in_place(nullptr, nullptr));
  FactoredSolver<T> zero(Backend::cpu, nullptr, nullptr, nullptr, 0, Layout::packed({0, 3}), 0,
                         {.checked = true});
  std::vector<int> info(3, -1);
  zero.solve_in_place(nullptr, info.data());
  EXPECT_EQ(info, std::vector<int>(3, 0));
}


TYPED_TEST(FactoredChecked, NaNInOneSolveDoesNotReachTheNext) {
  // The plan's scratch keeps what a solve left: a NaN system followed by a clean solve on the
  // same plan (and x poisoned with NaN, which an in-x sweep reads as its d' rows) must come out
  // clean: row 0 reads no previous d'.
  using T = TypeParam;
  const std::int64_t n = 20;
  auto m = pade<T>(n);
  for (int axis : {0, 1}) {
    const auto l = axis == 0 ? Layout::packed({n, 16}) : Layout::packed({16, n});
    for (Backend be : host_backends) {
      FactoredSolver<T> s(be, m.a.data(), m.b.data(), m.c.data(), n, l, axis);
      std::vector<T> d(l.size(), std::numeric_limits<T>::quiet_NaN());
      std::vector<T> x(l.size(), std::numeric_limits<T>::quiet_NaN());
      s.solve(d.data(), x.data());
      std::fill(d.begin(), d.end(), T(1));
      s.solve(d.data(), x.data());
      for (T v : x) ASSERT_TRUE(std::isfinite(v)) << to_string(be) << " axis " << axis;
      s.solve_in_place(d.data());
      for (T v : d) ASSERT_TRUE(std::isfinite(v)) << to_string(be) << " axis " << axis;
    }
  }
}

}  // namespace
}  // namespace triax::test
