// The factored plan's C API on the host backends, from C++: bit for bit the C++
// triax::FactoredSolver's results (every mode, solve_stencil, checked mode, breakdowns, scaled
// matrices, cpu_thomas and cpu_cr; support/capi_factored.hpp), against the reference backend's
// solve and B f by stencil.hpp's rule (the suites' own oracles), and one matrix per group.
// tests/capi/capi_factored_test.c exercises the same API from C, with its argument checks.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "support/capi_factored.hpp"

namespace triax::test {
namespace {

template <class T>
class CapiFactoredHost : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CapiFactoredHost, Precisions);

TYPED_TEST(CapiFactoredHost, BitForBitTheCppPlan) {
  using T = TypeParam;
  const std::vector<Options> unchecked_and_checked{Options{}, Options{.checked = true}};
  for (std::int64_t n : {1, 2, 5, 64, 129}) {
    check_capi_matches_cpp<T>(Backend::cpu, n,
                              {FactoredAlgorithm::cpu_thomas, FactoredAlgorithm::cpu_cr},
                              unchecked_and_checked, host_memory<T>);
    check_capi_matches_cpp<T>(Backend::reference, n, {FactoredAlgorithm::automatic},
                              unchecked_and_checked, host_memory<T>);
  }
}

TYPED_TEST(CapiFactoredHost, MatchesReference) {
  using T = TypeParam;
  for (Backend backend : {Backend::cpu, Backend::reference}) {
    for (std::int64_t n : {1, 3, 17, 300}) {
      SCOPED_TRACE(std::string(to_string(backend)));
      check_factored_against_reference<T>(n, capi_factored_runner<T>(backend, host_memory<T>), true);
      check_stencil_against_reference<T>(n, random_stencil<T>(test_seed(n)),
                                         capi_stencil_runner<T>(backend, host_memory<T>), true);
    }
  }
}

// Four species along dimension 2, each its own matrix (the Pade matrix times 1..4), shared along
// dimension 1: the C API's grouped plan against the C++ one, bit for bit, and x of species s is
// the one-matrix solve divided by s + 1 (exact: powers of two for s = 0, 1, 3).
TYPED_TEST(CapiFactoredHost, GroupsMatchTheCppPlan) {
  using T = TypeParam;
  const std::int64_t n = 48;
  const auto m = pade<T>(n);
  std::vector<T> a(4 * n), b(4 * n), c(4 * n);
  for (int s = 0; s < 4; ++s) {
    for (std::int64_t i = 0; i < n; ++i) {
      a[i + n * s] = T(s + 1) * m.a[i], b[i + n * s] = T(s + 1) * m.b[i], c[i + n * s] = T(s + 1) * m.c[i];
    }
  }
  const auto coefficients = Layout::strided({n, 3, 4}, {1, 0, n});
  const auto l = Layout::packed({n, 3, 4});
  std::vector<T> d(l.size());
  for (std::size_t k = 0; k < d.size(); ++k) d[k] = T(std::sin(0.37 * double(k)));
  std::vector<T> x_cpp(l.size(), std::numeric_limits<T>::quiet_NaN()), x_c = x_cpp;
  for (Backend backend : {Backend::cpu, Backend::reference}) {
    FactoredSolver<T> cpp(backend, a.data(), b.data(), c.data(), coefficients, l, 0);
    CFactoredPlan<T> capi(backend, a.data(), b.data(), c.data(), 0, l, 0, {},
                          FactoredAlgorithm::automatic, &coefficients);
    EXPECT_EQ(capi.properties().group_count, 4);
    cpp.solve(d.data(), x_cpp.data());
    capi.solve(d.data(), x_c.data());
    EXPECT_EQ(std::memcmp(x_cpp.data(), x_c.data(), x_c.size() * sizeof(T)), 0);
  }
}

// The example of README's C section is compiled and run by tests/capi (readme_c_example); here
// the C API's stencil struct is checked to be stencil.hpp's, weight for weight.
TEST(CapiFactoredHost, StencilStructsMirrorTheCppStencil) {
  static_assert(sizeof(triax_stencil_d) == sizeof(Stencil<double>));
  static_assert(sizeof(triax_stencil_f) == sizeof(Stencil<float>));
  static_assert(offsetof(triax_stencil_d, first) == offsetof(Stencil<double>, first));
  static_assert(offsetof(triax_stencil_d, last) == offsetof(Stencil<double>, last));
  static_assert(offsetof(triax_stencil_f, last) == offsetof(Stencil<float>, last));
}

}  // namespace
}  // namespace triax::test
