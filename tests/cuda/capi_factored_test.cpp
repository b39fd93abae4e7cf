// The factored plan's C API on the cuda backend (device pointers, the default stream), from
// C++: bit for bit the C++ triax::FactoredSolver's results on identical device inputs (every
// mode, solve_stencil fused and through the workspace, checked mode, breakdowns, scaled
// matrices, each cuda algorithm; support/capi_factored.hpp), and against the reference backend's
// solve and stencil.hpp's rule. SKIPPED without a device.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <vector>

#include "support/capi_factored.hpp"
#include "support/device_runner.hpp"
#include "support/device_test.hpp"
#include "support/scoped_env.hpp"

namespace triax::test {
namespace {

template <class T>
class CapiFactoredCuda : public NeedsDevice<> {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CapiFactoredCuda, Precisions);

// d, x and info copied to the device (padding and poison included), solved, copied back.
template <class T>
void device_memory(std::vector<T>& d, std::vector<T>& x, std::vector<int>& info,
                   const std::function<void(T*, T*, int*)>& solve) {
  DeviceBuffer<T> dd(d), dx(x);
  DeviceBuffer<int> di(info);
  ASSERT_TRUE(dd.get() && dx.get() && di.get()) << "cudaMalloc failed";
  solve(dd.get(), dx.get(), di.get());
  TRIAX_TEST_CUDA_OK(cudaDeviceSynchronize());
  TRIAX_TEST_CUDA_OK(cudaGetLastError());
  dd.download(d);
  dx.download(x);
  di.download(info);
}

TYPED_TEST(CapiFactoredCuda, BitForBitTheCppPlan) {
  using T = TypeParam;
  const ScopedEnv env("TRIAX_CUDA_FACTORED_ROUTE", nullptr);
  const std::vector<Options> unchecked_and_checked{Options{}, Options{.checked = true}};
  // n = 1 and the other small sizes: MatchesReference below; each size here runs ~1400 plan pairs.
  for (std::int64_t n : {2, 64, 129}) {
    check_capi_matches_cpp<T>(Backend::cuda, n,
                              {FactoredAlgorithm::automatic, FactoredAlgorithm::cuda_thread_thomas,
                               FactoredAlgorithm::cuda_block_cr_shared,
                               FactoredAlgorithm::cuda_block_cr_global,
                               FactoredAlgorithm::cuda_hybrid},
                              unchecked_and_checked, device_memory<T>);
  }
}

TYPED_TEST(CapiFactoredCuda, MatchesReference) {
  using T = TypeParam;
  const ScopedEnv env("TRIAX_CUDA_FACTORED_ROUTE", nullptr);
  for (std::int64_t n : {1, 3, 17, 64, 300}) {
    check_factored_against_reference<T>(n, capi_factored_runner<T>(Backend::cuda, device_memory<T>),
                                        true);
    check_stencil_against_reference<T>(n, random_stencil<T>(test_seed(n)),
                                       capi_stencil_runner<T>(Backend::cuda, device_memory<T>), true);
  }
}

// A plan of 64 dominant rows holds a chunk table: the C API says it fuses, as the C++ plan does.
TYPED_TEST(CapiFactoredCuda, FusesStencilAsTheCppPlan) {
  using T = TypeParam;
  const ScopedEnv env("TRIAX_CUDA_FACTORED_ROUTE", nullptr);
  const auto m = pade<T>(64);
  const auto l = Layout::packed({64, 32});
  CFactoredPlan<T> c(Backend::cuda, m.a.data(), m.b.data(), m.c.data(), 64, l, 0);
  FactoredSolver<T> cpp(Backend::cuda, m.a.data(), m.b.data(), m.c.data(), 64, l, 0);
  EXPECT_TRUE(cpp.fuses_stencil());
  EXPECT_EQ(c.fuses_stencil(), cpp.fuses_stencil());
  EXPECT_EQ(c.properties().backend, TRIAX_BACKEND_CUDA);
}

// Host pointers for d on the cuda backend: an error status naming d, nothing written.
TYPED_TEST(CapiFactoredCuda, RejectsHostPointers) {
  using T = TypeParam;
  const auto m = pade<T>(16);
  const auto l = Layout::packed({16, 4});
  CFactoredPlan<T> c(Backend::cuda, m.a.data(), m.b.data(), m.c.data(), 16, l, 0);
  std::vector<T> d(l.size(), T(1));
  std::vector<T> x_host(l.size(), T(-7.5));
  DeviceBuffer<T> x(x_host);
  try {
    c.solve(d.data(), x.get());
    ADD_FAILURE() << "a host d was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(" d "), std::string::npos) << e.what();
  }
  try {
    c.solve_stencil(random_stencil<T>(1), d.data(), x.get());
    ADD_FAILURE() << "a host f was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(" f "), std::string::npos) << e.what();
  }
  std::vector<T> after(l.size());
  x.download(after);
  EXPECT_EQ(after, x_host);
}

}  // namespace
}  // namespace triax::test
