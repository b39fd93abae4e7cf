// The CUDA cyclic family (cuda_cr, cuda_pcr, cuda_rd, cuda_cr_pcr, cuda_cr_rd: a block per
// system in shared memory) against the reference backend: n from 1 to 300 (sampled unless
// TRIAX_FULL_RANGE_TESTS=1) and sampled n up
// to the limit (4096 float, 2048 double), every axis of 2-D and 3-D arrays, padded and permuted
// layouts, the three output modes, poisoned outputs, float and double; longer systems rejected
// by name. CR, PCR and CR+PCR get diagonally dominant systems, RD and CR+RD close-value ones
// (cyclic_problems.hpp). TRIAX_TEST_QUICK=1 (compute-sanitizer) takes fewer lengths.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/cyclic_checks.hpp"
#include "support/device_runner.hpp"
#include "support/quick_mode.hpp"
#include "support/scoped_env.hpp"

namespace triax::test {
namespace {

template <class T>
class CudaCyclicVsReference : public NeedsDevice<> {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CudaCyclicVsReference, ValueTypes);

/// The longest system of the family in T.
template <class T>
constexpr std::int64_t limit = 16384 / sizeof(T);

// The default run's sample of n = 1..300 (85 lengths). A block's shape changes with n where
// its threads (one per pair of rows, whole warps: steps at n = 64k + 1), the shared arrays'
// padding (one element every 128 bytes: 16 doubles, 32 floats), CR's levels (powers of two) and
// the hybrids' switch sizes (CR+RD at 128 reduced rows, CR+PCR at 256: n = 128, 129, 256, 257 and
// 255..257 after one level) step: the sample keeps n <= 20 (short systems, every parity pattern
// of their levels), every n = 16k - 1, 16k, 16k + 1 (which hold all of those steps), a diagonal
// n = 17k that walks n mod 16 through every residue, and 300.
bool cyclic_length_sampled(std::int64_t n) {
  return n <= 20 || n % 16 == 15 || n % 16 == 0 || n % 16 == 1 || n % 17 == 0 || n == 300;
}

// Every length up to 300 (TRIAX_FULL_RANGE_TESTS=1; by default the sample above, each length
// with the axis, mode and seed it has in the whole sweep; quick: the boundaries of warps, levels
// and switch sizes): odd counts at every level, reduced systems of one row, the hybrids below, at
// and past their switch sizes.
TYPED_TEST(CudaCyclicVsReference, EveryLengthUpTo300) {
  using T = TypeParam;
  std::vector<std::int64_t> lengths;
  if (quick_mode()) {
    lengths = {1, 2, 3, 4, 5, 7, 31, 32, 33, 63, 65, 127, 128, 129, 255, 256, 257, 300};
    expect_lengths_match<T>(Backend::cuda, cuda_runner<T>, lengths, 3);
    return;
  }
  for (std::int64_t n = 1; n <= 300; ++n) lengths.push_back(n);
  expect_lengths_match<T>(Backend::cuda, cuda_runner<T>, lengths, 3,
                          full_range_tests() ? nullptr : cyclic_length_sampled);
}

TYPED_TEST(CudaCyclicVsReference, SampledLengthsUpToTheLimit) {
  using T = TypeParam;
  std::vector<std::int64_t> lengths = {383, 511, 512, 513, 1000, 1023, 1024, 1025, 2047, 2048};
  if (sizeof(T) == 4) lengths.insert(lengths.end(), {2049, 3001, 4095, 4096});
  if (quick_mode()) lengths = {513, 1025, limit<T>};
  expect_lengths_match<T>(Backend::cuda, cuda_runner<T>, lengths, 5);
}

TYPED_TEST(CudaCyclicVsReference, EveryAxisAndMode) {
  expect_every_axis_and_mode_match<TypeParam>(Backend::cuda, cuda_runner<TypeParam>);
}

TYPED_TEST(CudaCyclicVsReference, PaddedAndPermutedLayouts) {
  expect_padded_layouts_match<TypeParam>(Backend::cuda, cuda_runner<TypeParam>);
}

TYPED_TEST(CudaCyclicVsReference, SwitchSizeOverride) {
  expect_switch_overrides_match<TypeParam>(Backend::cuda, cuda_runner<TypeParam>);
}

TYPED_TEST(CudaCyclicVsReference, BroadcastCoefficients) {
  expect_broadcast_coefficients_match<TypeParam>(Backend::cuda, cuda_runner<TypeParam>);
}

// Many blocks at once: thousands of short systems, one block each.
TYPED_TEST(CudaCyclicVsReference, ManySystems) {
  using T = TypeParam;
  const std::int64_t systems = quick_mode() ? 300 : 5000;
  expect_lengths_match<T>(Backend::cuda, cuda_runner<T>, {37}, systems);
}

// A reduced system of at most 32 rows is solved by one warp in registers (warp_pcr,
// block_steps.cuh): CR+PCR with switch sizes that leave 1 to 32 rows, lengths around a warp's,
// up to the limit; every axis and mode, padded layouts. (CR's one row and PCR on n <= 32 take
// the same path in the other tests.)
TYPED_TEST(CudaCyclicVsReference, WarpSizedReducedSystems) {
  using T = TypeParam;
  const std::vector<std::int64_t> lengths = {1,  2,  3,   31,  32,   33,      63,
                                             64, 65, 255, 513, 1025, limit<T>};
  for (const char* rows : {"16", "32"}) {
    SCOPED_TRACE(std::string("switch ") + rows);
    const ScopedEnv switch_rows("TRIAX_CYCLIC_SWITCH_ROWS", rows);
    expect_lengths_match<T>(Backend::cuda, cuda_runner<T>, lengths, 5);
    expect_every_axis_and_mode_match<T>(Backend::cuda, cuda_runner<T>);
    expect_padded_layouts_match<T>(Backend::cuda, cuda_runner<T>);
  }
}

TYPED_TEST(CudaCyclicVsReference, LongerSystemsAreRejectedByName) {
  using T = TypeParam;
  const std::int64_t n = limit<T> + 1;
  for (const CyclicCase<T>& c : cyclic_cases<T>(Backend::cuda)) {
    try {
      Solver<T>(Backend::cuda, Layout::packed({n, 2}), 0, {.algorithm = c.algorithm});
      ADD_FAILURE() << to_string(c.algorithm) << " took n = " << n;
    } catch (const invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("n = " + std::to_string(n)), std::string::npos) << what;
      EXPECT_NE(what.find(std::to_string(limit<T>)), std::string::npos) << what;
      EXPECT_NE(what.find(to_string(c.algorithm)), std::string::npos) << what;
    }
    // The CPU backend does not take the CUDA family.
    EXPECT_THROW(Solver<T>(Backend::cpu, Layout::packed({8, 2}), 0, {.algorithm = c.algorithm}),
                 invalid_argument);
  }
}

}  // namespace
}  // namespace triax::test
