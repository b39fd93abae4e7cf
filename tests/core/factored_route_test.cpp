// The route of a cuda factored plan of one matrix (src/core/factored/route.hpp): which plans may
// run triax::Solver's hybrid, the TRIAX_CUDA_FACTORED_ROUTE switch, and the refusals of the
// cuda_hybrid algorithm that need no device. The solves themselves are checked against the
// reference backend on a GPU (tests/cuda/factored_hybrid_test.cpp).
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "core/factored/route.hpp"
#include "support/scoped_env.hpp"
#include "triax/factored.hpp"

namespace triax::test {
namespace {

using detail::FactoredRoute;
using detail::HybridRouteFacts;
using detail::route_to_hybrid;

HybridRouteFacts eligible(std::int64_t n) {
  HybridRouteFacts f;
  f.cuda = true;
  f.automatic = true;
  f.groups = 1;
  f.n = n;
  f.dominant = true;
  return f;
}

TEST(FactoredRoute, ParsesTheSwitch) {
  EXPECT_EQ(detail::parse_factored_route(nullptr), FactoredRoute::automatic);
  EXPECT_EQ(detail::parse_factored_route(""), FactoredRoute::automatic);
  EXPECT_EQ(detail::parse_factored_route("auto"), FactoredRoute::automatic);
  EXPECT_EQ(detail::parse_factored_route("thomas"), FactoredRoute::thomas);
  EXPECT_EQ(detail::parse_factored_route("hybrid"), FactoredRoute::hybrid);
  try {
    detail::parse_factored_route("Hybrid");
    FAIL() << "no exception";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("TRIAX_CUDA_FACTORED_ROUTE = \"Hybrid\""), std::string::npos)
        << e.what();
  }
}

TEST(FactoredRoute, AutomaticTakesLongDominantSystems) {
  EXPECT_FALSE(route_to_hybrid(eligible(1), FactoredRoute::automatic));
  EXPECT_FALSE(route_to_hybrid(eligible(63), FactoredRoute::automatic));
  EXPECT_TRUE(route_to_hybrid(eligible(64), FactoredRoute::automatic));
  EXPECT_TRUE(route_to_hybrid(eligible(1024), FactoredRoute::automatic));
  EXPECT_FALSE(route_to_hybrid(eligible(1025), FactoredRoute::automatic));  // route.hpp: accuracy
  auto weak = eligible(512);
  weak.dominant = false;
  EXPECT_FALSE(route_to_hybrid(weak, FactoredRoute::automatic));
  // The switch: thomas never, hybrid at any n and for any matrix.
  EXPECT_FALSE(route_to_hybrid(eligible(512), FactoredRoute::thomas));
  EXPECT_TRUE(route_to_hybrid(eligible(1), FactoredRoute::hybrid));
  EXPECT_TRUE(route_to_hybrid(weak, FactoredRoute::hybrid));
}

TEST(FactoredRoute, KeepsWhatOnlyTheFactoredKernelsImplement) {
  for (FactoredRoute route : {FactoredRoute::automatic, FactoredRoute::hybrid}) {
    auto f = eligible(256);
    f.cuda = false;
    EXPECT_FALSE(route_to_hybrid(f, route));
    f = eligible(256);
    f.automatic = false;  // an algorithm the caller named is kept
    EXPECT_FALSE(route_to_hybrid(f, route));
    f = eligible(256);
    f.groups = 2;
    EXPECT_FALSE(route_to_hybrid(f, route));
    f = eligible(256);
    f.checked = true;
    EXPECT_FALSE(route_to_hybrid(f, route));
    f = eligible(256);
    f.breakdown = true;
    EXPECT_FALSE(route_to_hybrid(f, route));
    f = eligible(256);
    f.scaled = true;
    EXPECT_FALSE(route_to_hybrid(f, route));
  }
}

TEST(FactoredRoute, InteriorDominance) {
  // Rows 1 .. n-2 count; the boundary rows (and a[0], c[n-1], outside the matrix) do not.
  std::vector<double> a{100, 0.5, 0.5, 0.5}, b{1, 1, -1, 1}, c{0.5, 0.5, 0.5, 100};
  EXPECT_TRUE(detail::interior_dominant(a.data(), b.data(), c.data(), 4));
  c[2] = 0.51;  // row 2: 0.5 + 0.51 > 1
  EXPECT_FALSE(detail::interior_dominant(a.data(), b.data(), c.data(), 4));
  // The Pade closures (c[0] = 2, a[n-1] = 2 against b = 1) are boundary rows: allowed.
  std::vector<double> pa{0, 0.25, 0.25, 2}, pb{1, 1, 1, 1}, pc{2, 0.25, 0.25, 0};
  EXPECT_TRUE(detail::interior_dominant(pa.data(), pb.data(), pc.data(), 4));
  pc[1] = 0.8;  // an interior row that is not
  EXPECT_FALSE(detail::interior_dominant(pa.data(), pb.data(), pc.data(), 4));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> na{0, 0.25, 0.25}, nb{1, nan, 1}, nc{0.25, 0.25, 0};
  EXPECT_FALSE(detail::interior_dominant(na.data(), nb.data(), nc.data(), 3));
  EXPECT_TRUE(detail::interior_dominant<double>(nullptr, nullptr, nullptr, 0));
  EXPECT_TRUE(detail::interior_dominant(na.data(), nb.data(), nc.data(), 2));  // no interior
}

TEST(FactoredRoute, CudaHybridRefusals) {
  const std::int64_t n = 8;
  std::vector<double> a(n, 0.25), b(n, 1.0), c(n, 0.25);
  const auto l = Layout::packed({n, 6});
  // Not a cpu algorithm.
  EXPECT_THROW(FactoredSolver<double>(Backend::cpu, a.data(), b.data(), c.data(), n, l, 0, {},
                                      FactoredAlgorithm::cuda_hybrid),
               invalid_argument);
  // One matrix only: coefficients per column give 6 groups (refused before any device work).
  std::vector<double> ga(n * 6, 0.25), gb(n * 6, 1.0), gc(n * 6, 0.25);
  try {
    FactoredSolver<double>(Backend::cuda, ga.data(), gb.data(), gc.data(),
                           Layout::packed({n, 6}), l, 0, {}, FactoredAlgorithm::cuda_hybrid);
    FAIL() << "no exception";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("cuda_hybrid"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("6 groups"), std::string::npos) << e.what();
  }
  EXPECT_EQ(to_string(FactoredAlgorithm::cuda_hybrid), "cuda_hybrid");
}

TEST(FactoredRoute, BadSwitchValueRefusedAtPlanTime) {
  const std::int64_t n = 80;
  std::vector<double> a(n, 0.25), b(n, 1.0), c(n, 0.25);
  const auto l = Layout::packed({n, 4});
  const ScopedEnv env("TRIAX_CUDA_FACTORED_ROUTE", "fastest");
  // Read for an automatic cuda plan only (before any device work, so also without CUDA)...
  EXPECT_THROW(FactoredSolver<double>(Backend::cuda, a.data(), b.data(), c.data(), n, l, 0),
               invalid_argument);
  // ...the cpu backend never routes.
  FactoredSolver<double> cpu(Backend::cpu, a.data(), b.data(), c.data(), n, l, 0);
  EXPECT_EQ(cpu.algorithm(), FactoredAlgorithm::cpu_thomas);
}

}  // namespace
}  // namespace triax::test
