// The CPU factored kernel's memory paths (src/cpu/factored: register_lanes.hpp along axis 0,
// streamed x and prefetched rows along the others) against the reference backend, under each of
// the plan's switches: the default, streamed stores everywhere, plain stores, no prefetch, a prefetch distance of one row,
// the previous round's kernel, and the instruction sets the machine has. Grids with enough
// systems along the lanes for whole register groups (16 floats / 8 doubles) and a ragged rest,
// ghost layers and odd strides (unaligned runs), every axis of 3-D arrays, n around the group
// size and past it; every matrix family (fast, slow and never converging factors).
#include <gtest/gtest.h>

#include "support/factored_cases.hpp"
#include "support/scoped_env.hpp"

namespace triax::test {
namespace {

template <class T>
class FactoredLanes : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FactoredLanes, Precisions);

/// 3-D grids with n rows along each axis and `many` systems along the lanes' dimension: d with
/// ghost layers of 1-2 points (odd system strides), x packed or with one extra point before each
/// system (another misalignment), so that the 64-byte runs of x are aligned for some systems only.
std::vector<FactoredGrid> lane_grids(std::int64_t n, std::int64_t many) {
  std::vector<FactoredGrid> grids;
  for (int axis = 0; axis < 3; ++axis) {
    for (bool pad_x : {false, true}) {
      std::vector<std::int64_t> shape(3);
      for (int k = 0, r = 0; k < 3; ++k) shape[k] = k == axis ? n : (r++ == 0 ? many : 3);
      std::vector<std::int64_t> alloc_d(shape), begin_d(3, 1), alloc_x(shape), begin_x(3, 0);
      for (int k = 0; k < 3; ++k) {
        alloc_d[k] += 2 + k % 2;
        if (pad_x && k == axis) {
          alloc_x[k] += 1;
          begin_x[k] = 1;
        }
      }
      FactoredLayouts l(Layout::padded(shape, alloc_d, begin_d),
                        Layout::padded(shape, alloc_x, begin_x));
      grids.push_back({"axis" + std::to_string(axis) + (pad_x ? "_xpadded" : "_xpacked"), shape,
                       axis, l});
    }
  }
  return grids;
}

template <class T>
FactoredRunner<T> cpu_runner(int threads) {
  return per_call_runner<T>([=](const FactoredMatrixCase<T>& m, const FactoredGrid& g, Mode mode,
                                std::vector<T>& d, std::vector<T>& x) {
    run_factored_host(Backend::cpu, m, g, mode, d, x, {.num_threads = threads});
  });
}

struct Switch {
  const char* name;
  const char* value;
};

constexpr Switch switches[] = {
    {nullptr, nullptr},                        // the default kernel
    {"TRIAX_CPU_FACTORED_STREAM", "1"},        // streamed x on every axis
    {"TRIAX_CPU_FACTORED_STREAM", "0"},        // plain stores, d' in x's rows
    {"TRIAX_CPU_FACTORED_AHEAD", "0"},         // no prefetch
    {"TRIAX_CPU_FACTORED_AHEAD", "1"},         // the shortest distance
    {"TRIAX_CPU_FACTORED_ROUND", "1"},         // the kernel of two rounds back
    {"TRIAX_CPU_FACTORED_ROUND", "2"},         // the previous round's (fdcpu) kernel
    {"TRIAX_CPU_FACTORED_LLC", "1"},           // every solve beyond the cache: wide strips, streamed
    {"TRIAX_CPU_FACTORED_BUDGET", "16"},       // narrow strips (16 KiB)
};

TYPED_TEST(FactoredLanes, MatchesReferenceUnderEverySwitch) {
  using T = TypeParam;
  for (const Switch& sw : switches) {
    const ScopedEnv env(sw.name, sw.value);
    SCOPED_TRACE(std::string(sw.name ? sw.name : "default") + "=" + (sw.value ? sw.value : ""));
    for (std::int64_t n : {1, 2, 7, 8, 9, 15, 16, 17, 33, 100}) {
      check_factored_on_grids<T>(n, lane_grids(n, 37), cpu_runner<T>(2), true);
    }
  }
}

TYPED_TEST(FactoredLanes, ManyAndFewSystemsLongRows) {
  using T = TypeParam;
  for (std::int64_t many : {1, 8, 16, 70}) {
    SCOPED_TRACE("systems along the lanes " + std::to_string(many));
    for (std::int64_t n : {257, 1024}) {
      check_factored_on_grids<T>(n, lane_grids(n, many), cpu_runner<T>(3), true);
    }
  }
}

/// Along x the register groups multiply d by the table's power-of-two scale: a matrix scaled
/// near the bottom of T's range gives the unscaled x bit for bit, every register group and the
/// ragged rest (37 systems), with line-aligned runs (n = 48) and not (n = 41).
template <class T>
void scaled_matches_unscaled_along_x() {
  for (std::int64_t n : {41, 48, 100}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const auto m = pade<T>(n);
    const auto ms = scaled_matrix(m, low_exponent<T>());
    const auto l = Layout::packed({n, 37, 3});
    FactoredGrid g{"3d", {n, 37, 3}, 0, FactoredLayouts(l)};
    std::vector<T> d0, ds;
    scaled_rhs_pair<T>(l.size(), low_exponent<T>(), d0, ds);
    std::vector<T> x0(l.size()), x(l.size()), xr(l.size());
    std::vector<T> d0r = d0;
    run_factored_host(Backend::reference, m, g, Mode::separate, d0r, xr);
    run_factored_host(Backend::cpu, m, g, Mode::separate, d0, x0);
    ASSERT_TRUE(outputs_match(l, x0, xr, m.condition));
    FactoredSolver<T> s(Backend::cpu, ms.a.data(), ms.b.data(), ms.c.data(), n, l, 0);
    ASSERT_TRUE(s.scaled());
    s.solve(ds.data(), x.data());
    EXPECT_EQ(x, x0);
  }
}

TYPED_TEST(FactoredLanes, ScaledMatrixSolvedAsUnscaledAlongX) { scaled_matches_unscaled_along_x<TypeParam>(); }

/// The narrower copies (AVX2: 8 floats / 4 doubles a register, SSE2: 4 / 2), whose register
/// groups read each line of a system in 2 or 4 squares: every row count around the line (16
/// floats / 8 doubles) and past it, the partial blocks before and after the whole ones, groups
/// and a ragged rest, the previous round's kernel against the new one.
TYPED_TEST(FactoredLanes, EveryInstructionSet) {
  using T = TypeParam;
  for (const char* isa : {"baseline", "avx2"}) {
    const ScopedEnv env("TRIAX_CPU_ISA", isa);
    for (const char* round : {"0", "2"}) {
      const ScopedEnv previous("TRIAX_CPU_FACTORED_ROUND", round);
      SCOPED_TRACE(std::string(isa) + " round " + round);
      for (std::int64_t n : {7, 9, 16, 17, 24, 33, 100}) {
        check_factored_on_grids<T>(n, lane_grids(n, 37), cpu_runner<T>(1), true);
      }
      for (std::int64_t many : {8, 70}) {
        check_factored_on_grids<T>(257, lane_grids(257, many), cpu_runner<T>(2), true);
      }
    }
  }
}

/// The benchmark's bound (TRIAX_CPU_FACTORED_BOUND=1: the plan's passes with no arithmetic) is
/// x = d bit for bit, the padding around x untouched and d unchanged: every element goes through
/// the loads and stores the solve uses (register groups with whole and partial blocks, streamed
/// and plain strips, d' in x or in the scratch), so a bound that dropped or doubled a path fails.
template <class T>
void bound_copies(std::int64_t n, std::int64_t many) {
  for (const FactoredGrid& g : lane_grids(n, many)) {
    SCOPED_TRACE(g.name + " n=" + std::to_string(n));
    const Layout &ld = g.layouts.d, &lx = g.layouts.x;
    std::vector<T> d(buffer_size(ld), T(-7.5)), x(buffer_size(lx), T(-7.5));
    std::mt19937_64 gen(test_seed(n));
    std::uniform_real_distribution<double> u(-1, 1);
    for_each_offset(ld, [&](std::int64_t o) { d[o] = T(u(gen)); });
    for_each_offset(lx, [&](std::int64_t o) { x[o] = std::numeric_limits<T>::quiet_NaN(); });
    const std::vector<T> d0 = d;
    const auto m = factored_matrices<T>(n, true).front();
    FactoredSolver<T> s = [&] {
      const ScopedEnv bound("TRIAX_CPU_FACTORED_BOUND", "1");
      return FactoredSolver<T>(Backend::cpu, m.a.data(), m.b.data(), m.c.data(), n, g.layouts,
                               g.axis, {.num_threads = 2});
    }();
    s.solve(d.data(), x.data());
    ASSERT_EQ(d, d0);
    std::int64_t systems = 1;
    for (std::int64_t e : g.shape) systems *= e;
    systems /= n;
    for (std::int64_t k = 0; k < systems; ++k) {
      for (std::int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(x[row_of(lx, g.axis, k, i)], d[row_of(ld, g.axis, k, i)])
            << "system " << k << " row " << i;
      }
    }
    const auto in_x = covered(lx, x.size());
    for (std::size_t o = 0; o < x.size(); ++o) {
      if (!in_x[o]) ASSERT_EQ(x[o], T(-7.5)) << "padding at " << o << " written";
    }
  }
}

TYPED_TEST(FactoredLanes, BoundCopiesThroughEveryPath) {
  using T = TypeParam;
  for (const char* isa : {static_cast<const char*>(nullptr), "avx2", "baseline"}) {
    const ScopedEnv env(isa ? "TRIAX_CPU_ISA" : nullptr, isa);
    for (const Switch& sw : switches) {
      const ScopedEnv other(sw.name, sw.value);
      SCOPED_TRACE(std::string(isa ? isa : "widest") + " " + (sw.name ? sw.name : "default") + "=" +
                   (sw.value ? sw.value : ""));
      for (std::int64_t n : {1, 7, 16, 17, 33, 100}) bound_copies<T>(n, 37);
      bound_copies<T>(257, 70);
    }
  }
}

TYPED_TEST(FactoredLanes, ScaledMatrixSolvedAsUnscaledInEveryInstructionSet) {
  using T = TypeParam;
  for (const char* isa : {"baseline", "avx2"}) {
    const ScopedEnv env("TRIAX_CPU_ISA", isa);
    SCOPED_TRACE(isa);
    scaled_matches_unscaled_along_x<T>();
  }
}

}  // namespace
}  // namespace triax::test
