// The CPU cyclic family (cpu_cr, cpu_pcr, cpu_rd, cpu_cr_pcr, cpu_cr_rd) against the reference
// backend: every n from 1 to 300 and sampled n up to 4096, every axis of 2-D and 3-D arrays,
// padded and permuted layouts, the three output modes, float and double. CR, PCR and CR+PCR get
// random diagonally dominant systems; RD and CR+RD the close-value systems of paper 001, the set
// on which they do not overflow (cyclic_checked_test.cpp covers the overflow).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "support/cyclic_checks.hpp"

namespace triax::test {
namespace {

template <class T>
class CpuCyclicVsReference : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CpuCyclicVsReference, ValueTypes);

template <class T>
Runner<T> cpu_runner(Algorithm algorithm) {
  return host_runner<T>(Backend::cpu, algorithm);
}

// Every length up to 300: odd and even counts at every reduction level, reduced systems of one
// row, the hybrids below, at and past their switch sizes (CR+PCR 32 rows, CR+RD 128).
TYPED_TEST(CpuCyclicVsReference, EveryLengthUpTo300) {
  using T = TypeParam;
  std::vector<std::int64_t> lengths;
  for (std::int64_t n = 1; n <= 300; ++n) lengths.push_back(n);
  expect_lengths_match<T>(Backend::cpu, cpu_runner<T>, lengths, 3);
}

TYPED_TEST(CpuCyclicVsReference, SampledLengthsUpTo4096) {
  using T = TypeParam;
  expect_lengths_match<T>(
      Backend::cpu, cpu_runner<T>,
      {383, 511, 512, 513, 1000, 1023, 1024, 1025, 2047, 2048, 2049, 3001, 4095, 4096}, 2);
}

TYPED_TEST(CpuCyclicVsReference, EveryAxisAndMode) {
  expect_every_axis_and_mode_match<TypeParam>(Backend::cpu, cpu_runner<TypeParam>);
}

TYPED_TEST(CpuCyclicVsReference, PaddedAndPermutedLayouts) {
  expect_padded_layouts_match<TypeParam>(Backend::cpu, cpu_runner<TypeParam>);
}

TYPED_TEST(CpuCyclicVsReference, SwitchSizeOverride) {
  expect_switch_overrides_match<TypeParam>(Backend::cpu, cpu_runner<TypeParam>);
}

// A switch size that is not a positive integer is refused when the plan is made, by name.
TYPED_TEST(CpuCyclicVsReference, BadSwitchSizeIsRejected) {
  using T = TypeParam;
  for (const char* bad : {"0", "-3", "12x", ""}) {
    ASSERT_EQ(setenv("TRIAX_CYCLIC_SWITCH_ROWS", bad, 1), 0);
    try {
      Solver<T>(Backend::cpu, Layout::packed({8, 2}), 0, {.algorithm = Algorithm::cpu_cr_pcr});
      ADD_FAILURE() << "took TRIAX_CYCLIC_SWITCH_ROWS = '" << bad << "'";
    } catch (const invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("TRIAX_CYCLIC_SWITCH_ROWS = '") + bad + "'"),
                std::string::npos)
          << e.what();
    }
  }
  unsetenv("TRIAX_CYCLIC_SWITCH_ROWS");
}

TYPED_TEST(CpuCyclicVsReference, BroadcastCoefficients) {
  expect_broadcast_coefficients_match<TypeParam>(Backend::cpu, cpu_runner<TypeParam>);
}

// Threads split the batch, never a system: any thread count gives the same bits.
TYPED_TEST(CpuCyclicVsReference, ThreadCountDoesNotChangeTheResult) {
  using T = TypeParam;
  const auto layout = Layout::packed({70, 45});
  for (const CyclicCase<T>& c : cyclic_cases<T>(Backend::cpu)) {
    Batch<T> batch{OperandLayouts(layout)};
    batch.fill_random(test_seed(1));
    std::vector<T> first;
    for (int threads : {1, 2, 3}) {
      Batch<T> work = batch;
      Solver<T> s(Backend::cpu, layout, 0, {.algorithm = c.algorithm, .num_threads = threads});
      run_mode(s, work, Mode::separate);
      if (first.empty()) {
        first = work.x;
      } else {
        EXPECT_TRUE(same_bits(work.x, first)) << to_string(c.algorithm) << ", " << threads;
      }
    }
  }
}

// The family belongs to the CPU backend only: the reference backend rejects it by name, and the
// CPU backend rejects the CUDA family.
TYPED_TEST(CpuCyclicVsReference, AlgorithmsOfOtherBackendsAreRejected) {
  using T = TypeParam;
  const auto layout = Layout::packed({8, 3});
  try {
    Solver<T>(Backend::reference, layout, 0, {.algorithm = Algorithm::cpu_cr});
    ADD_FAILURE() << "reference backend took cpu_cr";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("cpu_cr"), std::string::npos) << e.what();
  }
  for (Algorithm alg : {Algorithm::cuda_cr, Algorithm::cuda_pcr, Algorithm::cuda_rd,
                        Algorithm::cuda_cr_pcr, Algorithm::cuda_cr_rd}) {
    EXPECT_THROW(Solver<T>(Backend::cpu, layout, 0, {.algorithm = alg}), invalid_argument)
        << to_string(alg);
  }
}

}  // namespace
}  // namespace triax::test
