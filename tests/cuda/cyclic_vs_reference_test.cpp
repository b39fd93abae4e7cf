// The CUDA cyclic family (cuda_cr, cuda_pcr, cuda_rd, cuda_cr_pcr, cuda_cr_rd: a block per
// system in shared memory) against the reference backend: every n from 1 to 300 and sampled n up
// to the limit (4096 float, 2048 double), every axis of 2-D and 3-D arrays, padded and permuted
// layouts, the three output modes, poisoned outputs, float and double; longer systems rejected
// by name. CR, PCR and CR+PCR get diagonally dominant systems, RD and CR+RD close-value ones
// (cyclic_problems.hpp). TRIAX_TEST_QUICK=1 (compute-sanitizer) takes fewer lengths.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "support/cyclic_problems.hpp"
#include "support/device_runner.hpp"

namespace triax::test {
namespace {

template <class T>
class CudaCyclicVsReference : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  }
};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CudaCyclicVsReference, ValueTypes);

constexpr Mode modes[] = {Mode::in_place, Mode::separate, Mode::increment};

bool quick() {
  const char* v = std::getenv("TRIAX_TEST_QUICK");
  return v != nullptr && std::string(v) == "1";
}

/// The longest system of the family in T.
template <class T>
constexpr std::int64_t limit = 16384 / sizeof(T);

template <class T>
void check(const CyclicCase<T>& c, const OperandLayouts& layouts, int axis, Mode mode,
           std::uint64_t seed) {
  SCOPED_TRACE(std::string(to_string(c.algorithm)));
  expect_matches_reference<T>(layouts, axis, mode, seed, cuda_runner<T>(c.algorithm), c.fill());
}

/// The packed 2-D layout whose `axis` holds `systems` systems of n rows.
Layout systems_along(int axis, std::int64_t n, std::int64_t systems) {
  return axis == 0 ? Layout::packed({n, systems}) : Layout::packed({systems, n});
}

// Every length up to 300 (quick: the boundaries of warps, levels and switch sizes): odd counts at
// every level, reduced systems of one row, the hybrids below, at and past their switch sizes.
TYPED_TEST(CudaCyclicVsReference, EveryLengthUpTo300) {
  using T = TypeParam;
  std::vector<std::int64_t> lengths;
  if (quick()) {
    lengths = {1, 2, 3, 4, 5, 7, 31, 32, 33, 63, 65, 127, 128, 129, 255, 256, 257, 300};
  } else {
    for (std::int64_t n = 1; n <= 300; ++n) lengths.push_back(n);
  }
  int k = 0;
  for (std::int64_t n : lengths) {
    SCOPED_TRACE("n " + std::to_string(n));
    const int axis = n % 2;
    const OperandLayouts layouts(systems_along(axis, n, 3));
    for (const CyclicCase<T>& c : cyclic_cases<T>(Backend::cuda)) {
      ++k;
      check(c, layouts, axis, modes[k % 3], test_seed(k));
    }
  }
}

TYPED_TEST(CudaCyclicVsReference, SampledLengthsUpToTheLimit) {
  using T = TypeParam;
  std::vector<std::int64_t> lengths = {383, 511, 512, 513, 1000, 1023, 1024, 1025, 2047, 2048};
  if (sizeof(T) == 4) lengths.insert(lengths.end(), {2049, 3001, 4095, 4096});
  if (quick()) lengths = {513, 1025, limit<T>};
  int k = 0;
  for (std::int64_t n : lengths) {
    SCOPED_TRACE("n " + std::to_string(n));
    for (const CyclicCase<T>& c : cyclic_cases<T>(Backend::cuda)) {
      ++k;
      const int axis = k % 2;
      check(c, OperandLayouts(systems_along(axis, n, 5)), axis, modes[k % 3], test_seed(k));
    }
  }
}

TYPED_TEST(CudaCyclicVsReference, EveryAxisAndMode) {
  using T = TypeParam;
  const std::vector<std::vector<std::int64_t>> shapes = {{33, 9}, {9, 33}, {17, 5, 11}};
  int k = 0;
  for (const auto& shape : shapes) {
    for (int axis = 0; axis < static_cast<int>(shape.size()); ++axis) {
      for (Mode mode : modes) {
        for (const CyclicCase<T>& c : cyclic_cases<T>(Backend::cuda)) {
          check(c, OperandLayouts(Layout::packed(shape)), axis, mode, test_seed(++k));
        }
      }
    }
  }
}

// Ghost layers, each operand padded differently, permuted and odd strides.
TYPED_TEST(CudaCyclicVsReference, PaddedAndPermutedLayouts) {
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
      for (const CyclicCase<T>& c : cyclic_cases<T>(Backend::cuda)) {
        ++k;
        check(c, layouts, axis, modes[k % 3], test_seed(k));
      }
    }
  }
}

// Many blocks at once, and systems of 4096 (float) next to each other along y.
TYPED_TEST(CudaCyclicVsReference, ManySystems) {
  using T = TypeParam;
  const std::int64_t systems = quick() ? 300 : 5000;
  int k = 0;
  for (const CyclicCase<T>& c : cyclic_cases<T>(Backend::cuda)) {
    ++k;
    check(c, OperandLayouts(systems_along(k % 2, 37, systems)), k % 2, modes[k % 3],
          test_seed(k));
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

// The hybrids' switch size from the environment (read when a plan is made): reduced systems of
// one and two rows, odd sizes, and no CR step.
TYPED_TEST(CudaCyclicVsReference, SwitchSizeOverride) {
  using T = TypeParam;
  int k = 0;
  for (const SwitchOverride& o : switch_overrides(Backend::cuda)) {
    SCOPED_TRACE(std::string("switch ") + o.rows);
    ASSERT_EQ(setenv("TRIAX_CYCLIC_SWITCH_ROWS", o.rows, 1), 0);
    ++k;
    check(CyclicCase<T>{o.algorithm, o.close_values}, OperandLayouts(systems_along(0, 517, 3)), 0,
          modes[k % 3], test_seed(k));
  }
  unsetenv("TRIAX_CYCLIC_SWITCH_ROWS");
}

}  // namespace
}  // namespace triax::test
