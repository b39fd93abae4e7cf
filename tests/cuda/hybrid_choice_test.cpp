// Which configuration of the Thomas-PCR hybrid a problem gets (hybrid_choose): the staged kernel
// along axes >= 1 where docs/algorithms.md says, and the switch that turns it off. A tuning run
// times whatever was chosen, so a rule that silently never applies would go unnoticed there.
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/normalize.hpp"
#include "cuda/block/hybrid.hpp"
#include "support/device_runner.hpp"

namespace triax::test {
namespace {

using detail::cuda::HybridConfig;
using detail::cuda::HybridFamily;
using detail::cuda::Mapping;

template <class T>
HybridConfig choice(const OperandLayouts& layouts, int axis,
                    HybridFamily family = HybridFamily::block) {
  HybridConfig cfg;
  EXPECT_TRUE(detail::cuda::hybrid_choose<T>(detail::normalize(layouts, axis), family, cfg));
  return cfg;
}

TEST(HybridChoice, StagedAlongAxesAboveZeroForLongSystems) {
  if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  ASSERT_EQ(std::getenv("TRIAX_CUDA_HYBRID_STAGED"), nullptr);
  ASSERT_EQ(std::getenv("TRIAX_CUDA_HYBRID"), nullptr);
  // The systems per block below are the H100's (227 KiB of shared memory per block); a device
  // with less gets fewer, which only the rule's other parts are checked against.
  int device = 0, optin = 0;
  TRIAX_TEST_CUDA_OK(cudaGetDevice(&device));
  TRIAX_TEST_CUDA_OK(
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const bool hopper_shared = optin >= 227 * 1024;
  struct Case {
    std::int64_t n;
    int S_float, S_double;  // the staged systems per block, 0: the register kernel
  };
  for (const Case& c : {Case{256, 0, 0}, Case{300, 16, 0}, Case{512, 16, 0}, Case{513, 0, 0},
                        Case{1024, 0, 0}, Case{1025, 8, 0}, Case{2048, 8, 0}, Case{4096, 4, 0}}) {
    SCOPED_TRACE("n " + std::to_string(c.n));
    const OperandLayouts layouts(Layout::packed({64, c.n, 3}));
    for (const auto& [cfg, S] : {std::pair{choice<float>(layouts, 1), c.S_float},
                                 std::pair{choice<double>(layouts, 1), c.S_double}}) {
      EXPECT_EQ(cfg.map == Mapping::system_staged, S != 0);
      if (S != 0) {
        if (hopper_shared) EXPECT_EQ(cfg.S, S);
        EXPECT_EQ(cfg.C, 1);
        EXPECT_GE(std::int64_t(cfg.M) * cfg.P, c.n);
      }
    }
    // Along axis 0, and for the warp family, never.
    EXPECT_NE(choice<float>(OperandLayouts(Layout::packed({c.n, 64})), 0).map,
              Mapping::system_staged);
  }
  EXPECT_NE(choice<float>(OperandLayouts(Layout::packed({64, 512})), 1, HybridFamily::warp).map,
            Mapping::system_staged);
  // a, b, c one value each (an ADI step): the register kernel reads them once per thread.
  const auto dense = Layout::packed({64, 1024});
  const auto everywhere = Layout::strided({64, 1024}, {0, 0});
  EXPECT_EQ(choice<float>(OperandLayouts(everywhere, everywhere, everywhere, dense, dense), 1).map,
            Mapping::system_fastest);
  // TRIAX_CUDA_HYBRID_STAGED=0 keeps the register kernel; =1 stages wherever a configuration
  // exists (n = 256, double), with blocks of up to 1024 threads.
  const OperandLayouts n512(Layout::packed({64, 512}));
  setenv("TRIAX_CUDA_HYBRID_STAGED", "0", 1);
  EXPECT_EQ(choice<float>(n512, 1).map, Mapping::system_fastest);
  setenv("TRIAX_CUDA_HYBRID_STAGED", "1", 1);
  EXPECT_EQ(choice<float>(OperandLayouts(Layout::packed({64, 256})), 1).map,
            Mapping::system_staged);
  const HybridConfig forced = choice<double>(n512, 1);
  EXPECT_EQ(forced.map, Mapping::system_staged);
  EXPECT_EQ(forced.S * forced.P, 1024);
  unsetenv("TRIAX_CUDA_HYBRID_STAGED");
}

}  // namespace
}  // namespace triax::test
