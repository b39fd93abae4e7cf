// Which configuration of the Thomas-PCR hybrid a problem gets (hybrid_choose): the staged kernel
// and thread-block clusters along axes >= 1 where docs/algorithms.md says, and the switches that
// turn them off or on. A tuning run
// times whatever was chosen, so a rule that silently never applies would go unnoticed there.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/normalize.hpp"
#include "cuda/scalar/block/hybrid.hpp"
#include "support/device_runner.hpp"
#include "support/scoped_env.hpp"

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

/// What a configuration is expected to be: the arrangement, systems per block (0: not checked)
/// and blocks per cluster.
struct Expected {
  Mapping map;
  int S, C;
};

void expect_config(const HybridConfig& cfg, const Expected& e, bool hopper_shared) {
  EXPECT_EQ(cfg.map, e.map);
  if (e.S != 0 && hopper_shared) EXPECT_EQ(cfg.S, e.S);
  EXPECT_EQ(cfg.C, e.C);
}

TEST(HybridChoice, StagedAndClusteredAlongAxesAboveZeroForLongSystems) {
  TRIAX_NEED_DEVICE();
  for (const char* v : {"TRIAX_CUDA_HYBRID_STAGED", "TRIAX_CUDA_HYBRID_CLUSTER",
                        "TRIAX_CUDA_HYBRID_PIPELINED", "TRIAX_CUDA_HYBRID"})
    ASSERT_EQ(std::getenv(v), nullptr) << v;
  // The systems per block below are the H100's (227 KiB of shared memory per block); a device
  // with less gets fewer, which only the rule's other parts are checked against.
  int device = 0, optin = 0, clusters = 0;
  TRIAX_TEST_CUDA_OK(cudaGetDevice(&device));
  TRIAX_TEST_CUDA_OK(
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  TRIAX_TEST_CUDA_OK(cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, device));
  if (clusters == 0) GTEST_SKIP() << "the rule below is the one for devices with clusters";
  const bool hopper_shared = optin >= 227 * 1024;
  constexpr Mapping reg = Mapping::system_fastest, staged = Mapping::system_staged,
                    pipe = Mapping::system_pipelined;
  struct Case {
    std::int64_t n;
    Expected f, d;            // float, double: the default rule
    Expected f_one, d_one;    // with TRIAX_CUDA_HYBRID_CLUSTER=0: one block per group
  };
  // Float: pipelined blocks up to n = 512 (64 systems along the first batch dimension: whole
  // groups), 32 systems (128-byte rows) while the block has at most 512 threads, then 16;
  // clusters of pipelined blocks past 512 rows: 32 systems and 16 chunks of 16 rows each, in
  // four blocks up to n = 1024 and eight up to 2048. Double: pipelined blocks of
  // 16 systems (128-byte rows, 32 chunks) at n = 256 and of 8 systems (64 chunks) for
  // 256 < n <= 512, then clusters of pipelined blocks of 16 systems and 32 chunks of 8 rows.
  // Past 384 chunks in float (n > 6144) and 256 in double (n > 2048), up to 512, clusters of 16
  // pipelined blocks: 16 systems and 32 chunks each; float 4096 < n <= 6144 the long path.
  // Without clusters, float stages past 1024 and both take the long path past 256 chunks.
  for (const Case& c : {
           Case{256, {pipe, 32, 1}, {pipe, 16, 1}, {pipe, 32, 1}, {pipe, 16, 1}},
           Case{300, {pipe, 16, 1}, {pipe, 8, 1}, {pipe, 16, 1}, {pipe, 8, 1}},
           Case{512, {pipe, 16, 1}, {pipe, 8, 1}, {pipe, 16, 1}, {pipe, 8, 1}},
           Case{513, {pipe, 32, 4}, {pipe, 16, 4}, {reg, 0, 1}, {reg, 0, 1}},
           Case{1024, {pipe, 32, 4}, {pipe, 16, 4}, {reg, 0, 1}, {reg, 0, 1}},
           Case{1025, {pipe, 32, 8}, {pipe, 16, 8}, {staged, 8, 1}, {reg, 0, 1}},
           Case{2048, {pipe, 32, 8}, {pipe, 16, 8}, {staged, 8, 1}, {reg, 0, 1}},
           Case{4096, {pipe, 16, 8}, {pipe, 16, 16}, {staged, 4, 1}, {reg, 0, 1}},
           Case{4097, {reg, 0, 1}, {reg, 0, 1}, {reg, 0, 1}, {reg, 0, 1}},
           Case{6144, {reg, 0, 1}, {reg, 0, 1}, {reg, 0, 1}, {reg, 0, 1}},
           Case{6145, {pipe, 16, 16}, {reg, 0, 1}, {reg, 0, 1}, {reg, 0, 1}},
           Case{8192, {pipe, 16, 16}, {reg, 0, 1}, {reg, 0, 1}, {reg, 0, 1}},
       }) {
    SCOPED_TRACE("n " + std::to_string(c.n));
    const OperandLayouts layouts(Layout::packed({64, c.n, 3}));
    expect_config(choice<float>(layouts, 1), c.f, hopper_shared);
    expect_config(choice<double>(layouts, 1), c.d, hopper_shared);
    expect_config(choice<float>(OperandLayouts(Layout::packed({64, 3, c.n})), 2), c.f,
                  hopper_shared);
    {
      const ScopedEnv one_block("TRIAX_CUDA_HYBRID_CLUSTER", "0");
      expect_config(choice<float>(layouts, 1), c.f_one, hopper_shared);
      expect_config(choice<double>(layouts, 1), c.d_one, hopper_shared);
    }
    // Without pipelining, or where S divides no group (37 systems): float stages for
    // 256 < n <= 512, double takes the register kernel.
    if (c.n <= 512) {
      const Expected unpiped{c.n > 256 ? staged : reg, c.n > 256 ? 16 : 0, 1};
      const OperandLayouts odd(Layout::packed({37, c.n, 3}));
      expect_config(choice<float>(odd, 1), unpiped, hopper_shared);
      expect_config(choice<double>(odd, 1), {reg, 0, 1}, hopper_shared);
      const ScopedEnv off("TRIAX_CUDA_HYBRID_PIPELINED", "0");
      expect_config(choice<float>(layouts, 1), unpiped, hopper_shared);
      expect_config(choice<double>(layouts, 1), {reg, 0, 1}, hopper_shared);
    }
    // Past 512 rows, where S divides no group (37 systems): clusters of staged float blocks, 32
    // chunks of 16 rows each (where the rule takes clusters).
    if (c.n > 512 && c.f.C > 1) {
      const std::int64_t blocks = (c.n + 32 * 16 - 1) / (32 * 16);
      const int C = blocks <= 2 ? 2 : blocks <= 4 ? 4 : blocks <= 8 ? 8 : 16;
      const OperandLayouts odd(Layout::packed({37, c.n, 3}));
      expect_config(choice<float>(odd, 1), {staged, 16, C}, hopper_shared);
    }
    // Fused: the chunks hold the system (past a block, where no cluster takes it, the long path).
    const HybridConfig f = choice<float>(layouts, 1);
    if (c.n <= 4096 || c.f.C > 1) EXPECT_GE(std::int64_t(f.M) * f.P * f.C, c.n);
    // Along axis 0, and for the warp family, never.
    const HybridConfig x = choice<float>(OperandLayouts(Layout::packed({c.n, 64})), 0);
    EXPECT_NE(x.map, staged);
    EXPECT_NE(x.map, pipe);
    EXPECT_EQ(x.C, 1);
  }
  for (Mapping m : {staged, pipe}) {
    EXPECT_NE(
        choice<float>(OperandLayouts(Layout::packed({64, 512})), 1, HybridFamily::warp).map, m);
  }
  // Float n = 1024 along z, rows 256 KiB and 128 KiB apart: 128-byte rows in four blocks both.
  expect_config(choice<float>(OperandLayouts(Layout::packed({64, 1024, 1024})), 2), {pipe, 32, 4},
                hopper_shared);
  expect_config(choice<float>(OperandLayouts(Layout::packed({64, 512, 1024})), 2), {pipe, 32, 4},
                hopper_shared);
  // Double at n = 512 along z, rows 2 MiB apart: pipelined too; at n = 256 with 128-byte rows;
  // at n = 128 the register kernel.
  expect_config(choice<double>(OperandLayouts(Layout::packed({512, 512, 512})), 2), {pipe, 8, 1},
                hopper_shared);
  expect_config(choice<double>(OperandLayouts(Layout::packed({64, 256})), 1), {pipe, 16, 1},
                hopper_shared);
  expect_config(choice<double>(OperandLayouts(Layout::packed({64, 128})), 1), {reg, 0, 1},
                hopper_shared);
  // TRIAX_CUDA_HYBRID_PIPELINED=1: double too, 128-byte rows where they fit (n = 256: 16
  // systems x 32 chunks), else 64 (n = 512: 8 x 64).
  {
    const ScopedEnv always("TRIAX_CUDA_HYBRID_PIPELINED", "1");
    expect_config(choice<double>(OperandLayouts(Layout::packed({64, 256})), 1), {pipe, 16, 1},
                  hopper_shared);
    expect_config(choice<double>(OperandLayouts(Layout::packed({64, 512})), 1), {pipe, 8, 1},
                  hopper_shared);
  }
  // a, b, c one value each (an ADI step): the register kernel reads them once per thread, in one
  // block or in a cluster.
  for (std::int64_t n : {1024, 2048}) {
    const auto dense = Layout::packed({64, n});
    const auto everywhere = Layout::strided({64, n}, {0, 0});
    const HybridConfig adi =
        choice<float>(OperandLayouts(everywhere, everywhere, everywhere, dense, dense), 1);
    EXPECT_EQ(adi.map, reg);
    EXPECT_EQ(adi.C, n / 512);
  }
  // TRIAX_CUDA_HYBRID_STAGED=0 keeps the register kernel; =1 stages wherever a configuration
  // exists (n = 256; double, also in clusters), with blocks of up to 1024 threads.
  const OperandLayouts n512(Layout::packed({64, 512}));
  {
    const ScopedEnv never("TRIAX_CUDA_HYBRID_STAGED", "0");
    EXPECT_EQ(choice<float>(n512, 1).map, reg);
    expect_config(choice<float>(OperandLayouts(Layout::packed({64, 1024})), 1), {reg, 8, 2},
                  hopper_shared);
  }
  {
    const ScopedEnv always("TRIAX_CUDA_HYBRID_STAGED", "1");
    EXPECT_EQ(choice<float>(OperandLayouts(Layout::packed({64, 256})), 1).map, staged);
    const HybridConfig forced = choice<double>(n512, 1);
    EXPECT_EQ(forced.map, staged);
    EXPECT_EQ(forced.S * forced.P, 1024);
    expect_config(choice<double>(OperandLayouts(Layout::packed({64, 1024})), 1), {staged, 8, 4},
                  hopper_shared);
  }
  // TRIAX_CUDA_HYBRID_CLUSTER=1: clusters wherever 2 to 8 blocks hold the chunks (double
  // n = 512: 64 chunks of 8 rows, two pipelined blocks of 16 systems).
  {
    const ScopedEnv always("TRIAX_CUDA_HYBRID_CLUSTER", "1");
    expect_config(choice<double>(n512, 1), {pipe, 16, 2}, hopper_shared);
    EXPECT_EQ(choice<float>(n512, 1).C, 1);  // 32 chunks: one block
  }
  // TRIAX_CUDA_HYBRID_CLUSTER_EXACT=1: as many blocks as hold the chunks (float n = 2100: 132
  // chunks of 16 rows, 5 blocks; 4400: 275 chunks, 9 blocks, where the power of two takes the
  // long path; double n = 2600: 325 chunks of 8 rows, 11 blocks), pipelined as before.
  {
    const ScopedEnv exact("TRIAX_CUDA_HYBRID_CLUSTER_EXACT", "1");
    expect_config(choice<float>(OperandLayouts(Layout::packed({64, 2100, 3})), 1), {pipe, 16, 5},
                  hopper_shared);
    expect_config(choice<float>(OperandLayouts(Layout::packed({64, 4400, 3})), 1), {pipe, 16, 9},
                  hopper_shared);
    expect_config(choice<double>(OperandLayouts(Layout::packed({64, 2600, 3})), 1),
                  {pipe, 16, 11}, hopper_shared);
  }
}

// Where each SM holds one block, the persistent kernel launches no more blocks than its rounds
// need; with several per SM it takes every slot (no GPU needed: this is the launch's arithmetic).
TEST(HybridChoice, PersistentLaunchTakesNoMoreBlocksThanItsRoundsNeed) {
  using detail::cuda::balanced_launch;
  EXPECT_EQ(balanced_launch(1024, 66, 1), 64);      // 16 rounds either way
  EXPECT_EQ(balanced_launch(1056, 66, 1), 66);      // 16 full rounds
  EXPECT_EQ(balanced_launch(67, 66, 1), 34);        // two rounds
  EXPECT_EQ(balanced_launch(40, 66, 1), 40);        // one round: a block per group
  EXPECT_EQ(balanced_launch(8192, 1056, 8), 1056);  // several blocks per SM: every slot
  EXPECT_EQ(balanced_launch(100, 1056, 8), 100);
  EXPECT_EQ(balanced_launch(1, 264, 1), 1);
  for (std::int64_t groups = 1; groups <= 600; ++groups) {
    for (std::int64_t slots : {1, 7, 62, 66, 132, 264}) {
      const std::int64_t launched = balanced_launch(groups, slots, 1);
      const std::int64_t most = std::min(groups, slots);
      const std::int64_t rounds = (groups + most - 1) / most;
      ASSERT_LE(launched, most);
      ASSERT_EQ((groups + launched - 1) / launched, rounds) << groups << " on " << slots;
      if (launched > 1) {  // one block fewer would take another round
        ASSERT_GT((groups + launched - 2) / (launched - 1), rounds) << groups << " on " << slots;
      }
    }
  }
}

}  // namespace
}  // namespace triax::test
