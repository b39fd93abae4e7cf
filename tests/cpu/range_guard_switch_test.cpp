// TRIAX_CPU_RANGE_GUARD=0 (cpu_plan.cpp; for measurement only, bench/ab_range) must really select
// the kernel copy without the pivot scale, and only where it is set: on systems in the normal
// range both copies give the same bits (the scale is an exact power of two there), and on a
// system scaled by 2^-140 (float) or 2^-1060 (double), whose pivots are subnormal, the guarded
// copy solves it while the plain reciprocal 1/m overflows and leaves x non-finite. Unset (getexp in
// the AVX-512 copy, scaled in the others), or set to 1, "scaled" or "getexp" (cpu/range_guard.hpp),
// the plan keeps a guard; the partitioned kernels keep it always. The tests run in whichever copy
// TRIAX_CPU_ISA forces.
#include <gtest/gtest.h>

#include <triax/triax.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "support/scoped_env.hpp"

namespace triax::test {
namespace {

constexpr const char* guard_variable = "TRIAX_CPU_RANGE_GUARD";

// A 3-D packed grid whose every axis holds enough systems for the transpose kernel's tile (32)
// and whose first extent is not a multiple of the strip's cache line (partial strips).
constexpr std::int64_t ex = 37, ey = 40, ez = 33, total = ex * ey * ez;

/// Diagonally dominant systems of values with 5 significant bits (multiples of 1/8 below 4), so
/// that scaling them by 2^-140 (float) or 2^-1060 (double) is exact.
template <class T>
struct Arrays {
  std::vector<T> a, b, c, d;
  explicit Arrays(std::uint64_t seed) : a(total), b(total), c(total), d(total) {
    std::mt19937_64 g(seed);
    std::uniform_int_distribution<int> ac(-8, 8), dd(-8, 8), margin(4, 12), sign(0, 1);
    for (std::int64_t i = 0; i < total; ++i) {
      a[i] = T(ac(g)) / 8;
      c[i] = T(ac(g)) / 8;
      d[i] = T(dd(g)) / 8;
      const int m = 16 + margin(g);
      b[i] = T(sign(g) ? m : -m) / 8;
    }
  }
  void scale(int k) {
    for (auto* v : {&a, &b, &c, &d}) {
      for (T& x : *v) x = std::ldexp(x, k);
    }
  }
};

/// x from a plan made while the variable holds `value` (nullopt: unset); the output starts as NaN.
template <class T>
std::vector<T> solve(const Arrays<T>& in, int axis, Algorithm algorithm,
                     std::optional<std::string> value) {
  std::optional<Solver<T>> solver;
  {
    const ScopedEnv scoped(guard_variable, value ? value->c_str() : nullptr);
    Options o;
    o.algorithm = algorithm;
    o.num_threads = 2;
    solver.emplace(Backend::cpu, Layout::packed({ex, ey, ez}), axis, o);
  }
  // Made with the variable set, solved after it is gone: the plan alone decides.
  std::vector<T> x(total, std::numeric_limits<T>::quiet_NaN());
  solver->solve(in.a.data(), in.b.data(), in.c.data(), in.d.data(), x.data());
  return x;
}

/// Checked mode and solve_increment (u starts at 1) under the variable's value: x, u and info.
template <class T>
struct Modes {
  std::vector<T> x, u;
  std::vector<int> info;
};
template <class T>
Modes<T> solve_modes(const Arrays<T>& in, int axis, Algorithm algorithm, const char* value) {
  const ScopedEnv scoped(guard_variable, value);
  Options o;
  o.algorithm = algorithm;
  o.num_threads = 2;
  o.checked = true;
  Solver<T> solver(Backend::cpu, Layout::packed({ex, ey, ez}), axis, o);
  Modes<T> r{std::vector<T>(total, std::numeric_limits<T>::quiet_NaN()), std::vector<T>(total, T(1)),
             std::vector<int>(total / (axis == 0 ? ex : axis == 1 ? ey : ez), -1)};
  solver.solve(in.a.data(), in.b.data(), in.c.data(), in.d.data(), r.x.data(), r.info.data());
  std::vector<int> increment_info(r.info.size(), -1);
  solver.solve_increment(in.a.data(), in.b.data(), in.c.data(), in.d.data(), r.u.data(),
                         increment_info.data());
  EXPECT_EQ(increment_info, r.info);
  return r;
}

template <class T>
bool bitwise_equal(const std::vector<T>& p, const std::vector<T>& q) {
  return p.size() == q.size() && std::memcmp(p.data(), q.data(), p.size() * sizeof(T)) == 0;
}

template <class T>
std::int64_t non_finite(const std::vector<T>& x) {
  std::int64_t count = 0;
  for (const T v : x) count += !std::isfinite(v);
  return count;
}

/// The largest |x - y| over the largest |y|.
template <class T>
double relative_difference(const std::vector<T>& x, const std::vector<T>& y) {
  double diff = 0, size = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    diff = std::max(diff, std::fabs(double(x[i]) - double(y[i])));
    size = std::max(size, std::fabs(double(y[i])));
  }
  return diff / size;
}

/// The exponent that makes every pivot subnormal while the inputs stay exact.
template <class T>
constexpr int tiny_scale = sizeof(T) == 4 ? -140 : -1060;

/// The guard's forms (cpu/range_guard.hpp): each must solve subnormal pivots and give the plain
/// reciprocal's bits in the normal range (every scaling exact).
const char* const candidates[] = {"1", "scaled", "getexp"};

constexpr Algorithm switched[] = {Algorithm::automatic, Algorithm::cpu_thomas,
                                  Algorithm::cpu_thomas_transpose};

template <class T>
class RangeGuardSwitch : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(RangeGuardSwitch, ValueTypes);

TYPED_TEST(RangeGuardSwitch, NormalRangeBitwiseEqual) {
  using T = TypeParam;
  const Arrays<T> in(11);
  for (const Algorithm alg : switched) {
    for (int axis = 0; axis < 3; ++axis) {
      SCOPED_TRACE(std::string(to_string(alg)) + " axis " + std::to_string(axis));
      const auto guarded = solve(in, axis, alg, std::nullopt);
      const auto plain = solve(in, axis, alg, std::string("0"));
      EXPECT_EQ(non_finite(guarded), 0);
      EXPECT_TRUE(bitwise_equal(guarded, plain));
      for (const char* value : candidates) {
        EXPECT_TRUE(bitwise_equal(solve(in, axis, alg, std::string(value)), plain)) << value;
      }
    }
  }
}

// Every solve kind takes the same guard (solve_batch.inc): checked and accumulating solves give
// the plain reciprocal's bits in the normal range under every form, and where pivots break down
// (b = 0 on row 0, NaN in d further on, in every 7th element) the same info and bits as scaled.
TYPED_TEST(RangeGuardSwitch, CheckedAndIncrementSameUnderEveryForm) {
  using T = TypeParam;
  const Arrays<T> in(14);
  Arrays<T> faulty = in;
  for (std::int64_t i = 0; i < total; i += 7) faulty.b[i] = T(0);
  for (std::int64_t i = 3; i < total; i += 11) faulty.d[i] = std::numeric_limits<T>::quiet_NaN();
  for (const Algorithm alg : switched) {
    for (int axis = 0; axis < 3; ++axis) {
      SCOPED_TRACE(std::string(to_string(alg)) + " axis " + std::to_string(axis));
      const Modes<T> plain = solve_modes(in, axis, alg, "0");
      const Modes<T> scaled = solve_modes(faulty, axis, alg, "scaled");
      EXPECT_EQ(std::count(plain.info.begin(), plain.info.end(), 0), std::int64_t(plain.info.size()));
      EXPECT_GT(std::count_if(scaled.info.begin(), scaled.info.end(), [](int v) { return v > 0; }), 0);
      for (const char* value : {static_cast<const char*>(nullptr), "1", "scaled", "getexp"}) {
        SCOPED_TRACE(value != nullptr ? value : "unset");
        const Modes<T> m = solve_modes(in, axis, alg, value);
        EXPECT_TRUE(bitwise_equal(m.x, plain.x));
        EXPECT_TRUE(bitwise_equal(m.u, plain.u));
        EXPECT_EQ(m.info, plain.info);
        const Modes<T> f = solve_modes(faulty, axis, alg, value);
        EXPECT_EQ(f.info, scaled.info);
        EXPECT_EQ(non_finite(f.x), non_finite(scaled.x));
        EXPECT_EQ(non_finite(f.u), non_finite(scaled.u));
      }
    }
  }
}

TYPED_TEST(RangeGuardSwitch, SubnormalPivotsShowWhichCopyRuns) {
  using T = TypeParam;
  const Arrays<T> unscaled(12);
  Arrays<T> tiny = unscaled;
  tiny.scale(tiny_scale<T>);
  for (const Algorithm alg : switched) {
    for (int axis = 0; axis < 3; ++axis) {
      SCOPED_TRACE(std::string(to_string(alg)) + " axis " + std::to_string(axis));
      const auto reference = solve(unscaled, axis, alg, std::nullopt);
      // Unset, and set to every form of the guard: a guarded copy, which solves the scaled system
      // (to within the absolute rounding of subnormal products, about 2^-9 of a pivot in float).
      std::vector<std::optional<std::string>> values{std::nullopt};
      for (const char* value : candidates) values.emplace_back(value);
      for (const auto& value : values) {
        const auto x = solve(tiny, axis, alg, value);
        EXPECT_EQ(non_finite(x), 0) << "variable " << value.value_or("unset");
        EXPECT_LT(relative_difference(x, reference), 0.05)
            << "variable " << value.value_or("unset");
      }
      // "0": the plain reciprocal 1/m, inf for every subnormal pivot.
      const auto plain = solve(tiny, axis, alg, std::string("0"));
      EXPECT_EQ(non_finite(plain), total);
    }
  }
}

TYPED_TEST(RangeGuardSwitch, UnknownNameRefused) {
  using T = TypeParam;
  const ScopedEnv scoped(guard_variable, "scaledd");
  EXPECT_THROW(Solver<T>(Backend::cpu, Layout::packed({ex, ey, ez}), 0), invalid_argument);
}

TYPED_TEST(RangeGuardSwitch, PartitionedKernelStaysGuarded) {
  using T = TypeParam;
  const Arrays<T> unscaled(13);
  Arrays<T> tiny = unscaled;
  tiny.scale(tiny_scale<T>);
  for (int axis = 0; axis < 3; ++axis) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    const auto reference = solve(unscaled, axis, Algorithm::cpu_thomas_partitioned, std::nullopt);
    const auto x = solve(tiny, axis, Algorithm::cpu_thomas_partitioned, std::string("0"));
    EXPECT_EQ(non_finite(x), 0);
    EXPECT_LT(relative_difference(x, reference), 0.05);
  }
}

}  // namespace
}  // namespace triax::test
