// The small-batch spread of the register hybrid (cuda/scalar/block/small_batch.hpp, switched on
// by TRIAX_CUDA_SMALL_BATCH=1) against the reference backend: more chunk threads per system and
// fewer systems per block along axis 0. Every n from 1 to 300 and a sample up to 4096, batches
// small enough for the spread to apply (and one that fills the device, which keeps today's
// rule), every axis of 2-D and 3-D arrays, every mode, checked mode, poisoned outputs; with the
// default knobs and with the knobs at their extremes (chunks of 2 rows, every block one system).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/normalize.hpp"
#include "cuda/scalar/block/hybrid.hpp"
#include "support/device_runner.hpp"
#include "support/quick_mode.hpp"
#include "support/scoped_env.hpp"

namespace triax::test {
namespace {

template <class T>
class SmallBatch : public NeedsDevice<> {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SmallBatch, ValueTypes);

template <class T>
detail::cuda::HybridConfig choice(std::int64_t n, std::int64_t systems) {
  detail::cuda::HybridConfig cfg;
  EXPECT_TRUE(detail::cuda::hybrid_choose<T>(
      detail::normalize(OperandLayouts(Layout::packed({n, systems})), 0),
      detail::cuda::HybridFamily::block, cfg));
  return cfg;
}

// The switch does what it says: off (today's rule) 16 systems of 512 rows get one chunk thread
// per 8 rows in double (64, 4 systems a block) and per 16 in float (32, 8 systems a block); on,
// more chunk threads and fewer systems a block (16 x 64 threads are fewer than the default fill
// wants on any device of 2 SMs or more); a batch that fills the device is left alone.
TYPED_TEST(SmallBatch, SwitchChangesTheConfiguration) {
  using T = TypeParam;
  const ScopedEnv off("TRIAX_CUDA_SMALL_BATCH", "0");
  const detail::cuda::HybridConfig today = choice<T>(512, 16);
  const int rows = sizeof(T) == 4 ? 16 : 8;
  EXPECT_EQ(today.M, rows);
  EXPECT_EQ(today.P, 512 / rows);
  EXPECT_EQ(today.S, 256 / today.P);
  const detail::cuda::HybridConfig big_today = choice<T>(512, 1 << 16);
  const ScopedEnv on("TRIAX_CUDA_SMALL_BATCH", "1");
  const detail::cuda::HybridConfig spread = choice<T>(512, 16);
  EXPECT_GT(spread.P, today.P);
  EXPECT_LT(spread.S, today.S);
  const detail::cuda::HybridConfig big = choice<T>(512, 1 << 16);
  EXPECT_EQ(big.P, big_today.P);
  EXPECT_EQ(big.S, big_today.S);
}

std::uint64_t seed_of(std::int64_t n, int k) {
  return 0x5eed5a11ull + 7919u * static_cast<std::uint64_t>(n) + 104729u * static_cast<unsigned>(k);
}

TYPED_TEST(SmallBatch, MatchesReference) {
  using T = TypeParam;
  std::vector<std::int64_t> sizes;
  const int step = quick_mode() ? 37 : 1;
  for (std::int64_t n = 1; n <= 300; n += step) sizes.push_back(n);
  for (std::int64_t n :
       {383, 511, 512, 513, 777, 1000, 1024, 1500, 2047, 2048, 2049, 3000, 4095, 4096})
    sizes.push_back(n);
  struct Knobs {
    const char* fill;
    const char* rows;
  };
  // Default knobs; and every system spread as far as it goes (fill 64: never enough threads).
  const Knobs knobs[] = {{"3", "4"}, {"64", "2"}};
  const ScopedEnv on("TRIAX_CUDA_SMALL_BATCH", "1");
  int k = 0;
  for (const Knobs& kn : knobs) {
    const ScopedEnv fill("TRIAX_CUDA_SMALL_FILL", kn.fill);
    const ScopedEnv rows("TRIAX_CUDA_SMALL_ROWS", kn.rows);
    for (std::int64_t n : sizes) {
      // 3 systems, and 130 (a partial block); the sample also takes every axis of a 3-D array
      // and every mode.
      const bool sample = n % 17 == 0 || n > 300;
      const std::vector<Layout> layouts =
          sample ? std::vector<Layout>{Layout::packed({n, 3}),    Layout::packed({n, 130}),
                                       Layout::packed({130, n}),  Layout::packed({n, 5, 7}),
                                       Layout::packed({5, n, 7}), Layout::packed({5, 7, n})}
                 : std::vector<Layout>{Layout::packed({n, 3}), Layout::packed({n, 130})};
      for (const Layout& layout : layouts) {
        for (int axis = 0; axis < layout.rank(); ++axis) {
          if (layout.extent(axis) != n) continue;
          SCOPED_TRACE("n " + std::to_string(n) + ", fill " + kn.fill + ", rows " + kn.rows);
          const OperandLayouts ol(layout);
          if (sample) {
            for (Mode mode : all_modes) {
              expect_matches_reference<T>(ol, axis, mode, seed_of(n, ++k),
                                          cuda_runner<T>(Algorithm::automatic));
            }
            expect_matches_reference<T>(ol, axis, Mode::separate, seed_of(n, ++k),
                                        cuda_checked_runner<T>(Algorithm::cuda_block_thomas_pcr));
          } else {
            expect_matches_reference<T>(ol, axis, Mode::separate, seed_of(n, ++k),
                                        cuda_runner<T>(Algorithm::automatic));
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace triax::test
