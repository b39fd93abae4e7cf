// triax::FactoredSolver::solve_stencil on the cuda backend against stencil.hpp's rule applied
// on the host and the reference backend's solve (support/factored_stencil.hpp): the fused chunk
// table kernels (cuda_hybrid plans: the warp kernel along axis 0, the strided one elsewhere),
// and the workspace route (the general hybrid, Thomas' kernels, checked mode), every axis of
// 2-D..4-D grids with ghost layers, n = 1, 2, 3, 4, 5, 7, 64, 129, 512, 1024, float and double,
// f's padding NaN (a read beyond a line shows), x's padding untouched, f untouched on the
// device. SKIPPED without a device.
#include <algorithm>
#include <cstring>
#include <string>
#include <optional>

#include <gtest/gtest.h>

#include "support/device_runner.hpp"
#include "support/device_test.hpp"
#include "support/quick_mode.hpp"
#include "support/factored_stencil.hpp"
#include "support/scoped_env.hpp"

namespace triax::test {
namespace {

template <class T>
class FactoredStencilCuda : public NeedsDevice<> {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FactoredStencilCuda, Precisions);

/// solve_stencil on device copies of f and x; `fused`, where given, is what fuses_stencil() must
/// say; checked mode through a device info array that must come back all 0.
template <class T>
StencilRunner<T> cuda_stencil_runner(FactoredAlgorithm algorithm, std::optional<bool> fused,
                                     bool checked = false) {
  return [=](const FactoredMatrixCase<T>& m, const FactoredGrid& g, const Stencil<T>& B,
             const std::vector<T>& f, std::vector<T>& x) {
    cudaStream_t stream;
    TRIAX_TEST_CUDA_OK(cudaStreamCreate(&stream));
    DeviceBuffer<T> df(f), dx(x);
    ASSERT_TRUE(df.get() && dx.get()) << "cudaMalloc failed";
    const std::int64_t count = g.layouts.d.size() / std::max<std::int64_t>(1, g.layouts.d.extent(g.axis));
    DeviceBuffer<int> info(std::vector<int>(std::max<std::int64_t>(1, count), -1));
    FactoredSolver<T> s(Backend::cuda, m.a.data(), m.b.data(), m.c.data(),
                        static_cast<std::int64_t>(m.b.size()), g.layouts, g.axis,
                        {.checked = checked, .stream = stream}, algorithm);
    if (fused) EXPECT_EQ(s.fuses_stencil(), *fused);
    s.solve_stencil(B, df.get(), dx.get(), checked ? info.get() : nullptr);
    TRIAX_TEST_CUDA_OK(cudaStreamSynchronize(stream));
    TRIAX_TEST_CUDA_OK(cudaGetLastError());
    dx.download(x);
    std::vector<T> f_after(f.size());
    df.download(f_after);
    ASSERT_EQ(std::memcmp(f_after.data(), f.data(), f.size() * sizeof(T)), 0) << "f changed";
    if (checked) {
      std::vector<int> got(std::max<std::int64_t>(1, count));
      info.download(got);
      for (std::int64_t k = 0; k < count; ++k) ASSERT_EQ(got[k], 0) << "info of system " << k;
    }
    TRIAX_TEST_CUDA_OK(cudaStreamDestroy(stream));
  };
}

template <class T>
void check_every_size(const StencilRunner<T>& run, std::int64_t min_n = 1) {
  for (std::int64_t n : stencil_test_sizes(quick_mode())) {
    if (n < min_n) continue;
    check_stencil_against_reference<T>(n, random_stencil<T>(test_seed(n)), run, quick_mode());
    const double h = 1.0 / double(std::max<std::int64_t>(1, n - 1));
    check_stencil_against_reference<T>(n, stencil_as<T>(stencil_hpp_example(h)), run, true);
  }
}

TYPED_TEST(FactoredStencilCuda, FusedTableMatchesReference) {
  // cuda_hybrid plans of dominant matrices of n <= 1024 hold a chunk table: one pass.
  const ScopedEnv env("TRIAX_CUDA_FACTORED_ROUTE", nullptr);
  check_every_size<TypeParam>(cuda_stencil_runner<TypeParam>(FactoredAlgorithm::cuda_hybrid, true));
}

TYPED_TEST(FactoredStencilCuda, FusedTableThroughTheCacheMatchesReference) {
  // The strided kernel reading the table through the read-only cache, not from a copy in each
  // block's shared memory (TRIAX_CUDA_TABLE_SHARED=0; the default copies), at both block sizes.
  const ScopedEnv env("TRIAX_CUDA_FACTORED_ROUTE", nullptr);
  const ScopedEnv shared("TRIAX_CUDA_TABLE_SHARED", "0");
  for (const char* threads : {"512", "256"}) {
    SCOPED_TRACE(std::string("threads ") + threads);
    const ScopedEnv blocks("TRIAX_CUDA_TABLE_THREADS", threads);
    check_every_size<TypeParam>(
        cuda_stencil_runner<TypeParam>(FactoredAlgorithm::cuda_hybrid, true));
  }
}

TYPED_TEST(FactoredStencilCuda, AutomaticMatchesReference) {
  // The automatic plan: Thomas' kernels below 64 rows (workspace), the table from 64 on (fused).
  const ScopedEnv env("TRIAX_CUDA_FACTORED_ROUTE", nullptr);
  for (std::int64_t n : stencil_test_sizes(quick_mode())) {
    const auto run = cuda_stencil_runner<TypeParam>(FactoredAlgorithm::automatic, n >= 64);
    check_stencil_against_reference<TypeParam>(n, random_stencil<TypeParam>(test_seed(n)), run,
                                               true);
  }
}

TYPED_TEST(FactoredStencilCuda, WorkspaceRoutesMatchReference) {
  using T = TypeParam;
  {
    // The general hybrid (no table) and Thomas' kernels: B f by the workspace kernel.
    const ScopedEnv env("TRIAX_CUDA_FACTORED_ROUTE", "hybrid");
    check_every_size<T>(cuda_stencil_runner<T>(FactoredAlgorithm::cuda_hybrid, false), 64);
  }
  const ScopedEnv env("TRIAX_CUDA_FACTORED_ROUTE", nullptr);
  check_every_size<T>(cuda_stencil_runner<T>(FactoredAlgorithm::cuda_thread_thomas, false));
  // Checked mode never fuses (info comes from the stored factors' solve).
  check_every_size<T>(cuda_stencil_runner<T>(FactoredAlgorithm::automatic, false, true));
}

TYPED_TEST(FactoredStencilCuda, RejectsOverlapNamingF) {
  using T = TypeParam;
  const auto m = pade<T>(256);
  const auto l = Layout::packed({8, 256});  // along axis 1: the strided kernel
  FactoredSolver<T> s(Backend::cuda, m.a.data(), m.b.data(), m.c.data(), 256, l, 1);
  ASSERT_TRUE(s.fuses_stencil());
  DeviceBuffer<T> buf(std::vector<T>(2 * l.size(), T(1)));
  try {
    s.solve_stencil(random_stencil<T>(5), buf.get(), buf.get() + 3);
    FAIL() << "x over f was accepted";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("x shares elements with f"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace triax::test
