// The CPU cyclic family (cpu_cr, cpu_pcr, cpu_rd, cpu_cr_pcr, cpu_cr_rd) against the reference
// backend: every n from 1 to 300 and sampled n up to 4096, every axis of 2-D and 3-D arrays,
// padded and permuted layouts, the three output modes, float and double. CR, PCR and CR+PCR get
// random diagonally dominant systems; RD and CR+RD the close-value systems of paper 001, the set
// on which they do not overflow (cyclic_checked_test.cpp covers the overflow).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "cpu/host_solvers.hpp"
#include "support/compare.hpp"
#include "support/cyclic_problems.hpp"

namespace triax::test {
namespace {

template <class T>
class CpuCyclicVsReference : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CpuCyclicVsReference, ValueTypes);

constexpr Mode modes[] = {Mode::in_place, Mode::separate, Mode::increment};

template <class T>
std::vector<CyclicCase<T>> cases() {
  return cyclic_cases<T>(Backend::cpu);
}

template <class T>
void check(const CyclicCase<T>& c, const OperandLayouts& layouts, int axis, Mode mode,
           std::uint64_t seed) {
  SCOPED_TRACE(std::string(to_string(c.algorithm)));
  expect_matches_reference<T>(layouts, axis, mode, seed, host_runner<T>(Backend::cpu, c.algorithm),
                              c.fill());
}

// Every length up to 300: odd and even counts at every reduction level, reduced systems of one
// row, the hybrids below, at and past their switch sizes (128 and 256 rows).
TYPED_TEST(CpuCyclicVsReference, EveryLengthUpTo300) {
  using T = TypeParam;
  int k = 0;
  for (std::int64_t n = 1; n <= 300; ++n) {
    SCOPED_TRACE("n " + std::to_string(n));
    const int axis = n % 2;
    const OperandLayouts layouts(systems_along(axis, n, 3));
    for (const CyclicCase<T>& c : cases<T>()) {
      ++k;
      check(c, layouts, axis, modes[k % 3], test_seed(k));
    }
  }
}

TYPED_TEST(CpuCyclicVsReference, SampledLengthsUpTo4096) {
  using T = TypeParam;
  int k = 0;
  for (std::int64_t n : {383, 511, 512, 513, 1000, 1023, 1024, 1025, 2047, 2048, 2049, 3001,
                         4095, 4096}) {
    SCOPED_TRACE("n " + std::to_string(n));
    for (const CyclicCase<T>& c : cases<T>()) {
      ++k;
      const int axis = k % 2;
      check(c, OperandLayouts(systems_along(axis, n, 2)), axis, modes[k % 3], test_seed(k));
    }
  }
}

TYPED_TEST(CpuCyclicVsReference, EveryAxisAndMode) {
  using T = TypeParam;
  const std::vector<std::vector<std::int64_t>> shapes = {{33, 9}, {9, 33}, {17, 5, 11}};
  int k = 0;
  for (const auto& shape : shapes) {
    for (int axis = 0; axis < static_cast<int>(shape.size()); ++axis) {
      for (Mode mode : modes) {
        for (const CyclicCase<T>& c : cases<T>()) {
          check(c, OperandLayouts(Layout::packed(shape)), axis, mode, test_seed(++k));
        }
      }
    }
  }
}

// Ghost layers, each operand padded differently, permuted and odd strides: the rows are read
// and written through the Problem's offsets and strides only.
TYPED_TEST(CpuCyclicVsReference, PaddedAndPermutedLayouts) {
  using T = TypeParam;
  const auto pa = Layout::padded({19, 10, 7}, {22, 12, 9}, {1, 1, 1});
  const auto pd = Layout::padded({19, 10, 7}, {21, 13, 8}, {2, 0, 1});
  const auto px = Layout::padded({19, 10, 7}, {20, 10, 10}, {0, 0, 2});
  const auto perm = Layout::strided({19, 10, 7}, {7, 7 * 19, 1}, 5);
  const auto odd = Layout::strided({19, 10, 7}, {3, 61, 617}, 11);
  int k = 0;
  for (int axis = 0; axis < 3; ++axis) {
    for (const OperandLayouts& layouts :
         {OperandLayouts(pa, pd, perm, pd, px), OperandLayouts(odd, perm, pa, odd, pd)}) {
      for (const CyclicCase<T>& c : cases<T>()) {
        ++k;
        check(c, layouts, axis, modes[k % 3], test_seed(k));
      }
    }
  }
}

// The hybrids' switch size from the environment (read when a plan is made): reduced systems of
// one and two rows, odd sizes, and no CR step.
TYPED_TEST(CpuCyclicVsReference, SwitchSizeOverride) {
  using T = TypeParam;
  int k = 0;
  for (const SwitchOverride& o : switch_overrides(Backend::cpu)) {
    SCOPED_TRACE(std::string("switch ") + o.rows);
    ASSERT_EQ(setenv("TRIAX_CYCLIC_SWITCH_ROWS", o.rows, 1), 0);
    ++k;
    check(CyclicCase<T>{o.algorithm, o.close_values}, OperandLayouts(systems_along(0, 517, 3)), 0,
          modes[k % 3], test_seed(k));
  }
  unsetenv("TRIAX_CYCLIC_SWITCH_ROWS");
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

// One matrix for every system (coefficients broadcast across the batch), dominant systems.
TYPED_TEST(CpuCyclicVsReference, BroadcastCoefficients) {
  using T = TypeParam;
  const std::vector<std::int64_t> shape = {40, 12, 9};
  int k = 0;
  for (int axis = 0; axis < 3; ++axis) {
    std::vector<std::int64_t> strides(3, 0);
    strides[axis] = 1;
    const auto coef = Layout::strided(shape, strides);
    const auto dense = Layout::packed(shape);
    for (Algorithm alg : {Algorithm::cpu_cr, Algorithm::cpu_pcr, Algorithm::cpu_cr_pcr}) {
      ++k;
      expect_matches_reference<T>(OperandLayouts(coef, coef, coef, dense, dense), axis,
                                  modes[k % 3], test_seed(k), host_runner<T>(Backend::cpu, alg));
    }
  }
}

// Threads split the batch, never a system: any thread count gives the same bits.
TYPED_TEST(CpuCyclicVsReference, ThreadCountDoesNotChangeTheResult) {
  using T = TypeParam;
  const auto layout = Layout::packed({70, 45});
  for (const CyclicCase<T>& c : cases<T>()) {
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
