// The CPU backend, every algorithm, against the reference backend: every axis of 1-D..4-D
// arrays, boundary sizes, padded, offset and permuted layouts, broadcast coefficients, the three
// output modes, float and double.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/compare.hpp"

namespace triax::test {
namespace {

template <class T>
class CpuVsReference : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CpuVsReference, ValueTypes);

constexpr Algorithm cpu_algorithms[] = {Algorithm::automatic, Algorithm::cpu_thomas,
                                        Algorithm::cpu_thomas_transpose};
constexpr Mode modes[] = {Mode::in_place, Mode::separate, Mode::increment};

template <class T>
Runner<T> cpu_solver(Algorithm algorithm) {
  return host_runner<T>(Backend::cpu, algorithm);
}

std::uint64_t seed_of(const std::string& name, int k) {
  return std::hash<std::string>{}(name) + 7919u * static_cast<std::uint64_t>(k);
}

TYPED_TEST(CpuVsReference, EveryAxisOfOneToFourDimensions) {
  using T = TypeParam;
  const std::vector<std::vector<std::int64_t>> shapes = {
      {37}, {33, 9}, {9, 33}, {17, 5, 11}, {6, 7, 5, 4}};
  int k = 0;
  for (const auto& shape : shapes) {
    for (int axis = 0; axis < static_cast<int>(shape.size()); ++axis) {
      for (Algorithm alg : cpu_algorithms) {
        for (Mode mode : modes) {
          expect_matches_reference<T>(OperandLayouts(Layout::packed(shape)), axis, mode,
                                      seed_of("axes", ++k), cpu_solver<T>(alg));
        }
      }
    }
  }
}

TYPED_TEST(CpuVsReference, BoundarySizesAlongEachAxis) {
  using T = TypeParam;
  int k = 0;
  for (std::int64_t n : {1, 2, 3, 31, 32, 33, 63, 64, 65, 255, 256, 257, 1000}) {
    for (int axis = 0; axis < 2; ++axis) {
      const auto layout = axis == 0 ? Layout::packed({n, 37}) : Layout::packed({37, n});
      for (Algorithm alg : cpu_algorithms) {
        SCOPED_TRACE("n " + std::to_string(n) + ", " + std::string(to_string(alg)));
        expect_matches_reference<T>(OperandLayouts(layout), axis, Mode::separate,
                                    seed_of("sizes", ++k), cpu_solver<T>(alg));
      }
    }
  }
}

TYPED_TEST(CpuVsReference, LongSystems) {
  using T = TypeParam;
  // One system of 100000 rows, and a few of them side by side.
  expect_matches_reference<T>(OperandLayouts(Layout::packed({100000})), 0, Mode::in_place,
                              seed_of("long", 1), cpu_solver<T>(Algorithm::automatic));
  expect_matches_reference<T>(OperandLayouts(Layout::packed({3, 100000})), 1, Mode::separate,
                              seed_of("long", 2), cpu_solver<T>(Algorithm::automatic));
  expect_matches_reference<T>(OperandLayouts(Layout::packed({20000, 40})), 0, Mode::increment,
                              seed_of("long", 3), cpu_solver<T>(Algorithm::cpu_thomas_transpose));
}

TYPED_TEST(CpuVsReference, PaddedOffsetAndPermutedLayouts) {
  using T = TypeParam;
  // A ghost layer of 1-2 points around a 3-D grid, each operand padded differently.
  const auto pa = Layout::padded({19, 10, 7}, {22, 12, 9}, {1, 1, 1});
  const auto pd = Layout::padded({19, 10, 7}, {21, 13, 8}, {2, 0, 1});
  const auto px = Layout::padded({19, 10, 7}, {20, 10, 10}, {0, 0, 2});
  // z fastest in memory, then x, then y.
  const auto perm = Layout::strided({19, 10, 7}, {7, 7 * 19, 1}, 5);
  int k = 0;
  for (int axis = 0; axis < 3; ++axis) {
    for (Algorithm alg : cpu_algorithms) {
      for (Mode mode : modes) {
        expect_matches_reference<T>(OperandLayouts(pa, pd, perm, pd, px), axis, mode,
                                    seed_of("padded", ++k), cpu_solver<T>(alg));
        expect_matches_reference<T>(OperandLayouts(perm), axis, mode, seed_of("perm", ++k),
                                    cpu_solver<T>(alg));
      }
    }
  }
}

TYPED_TEST(CpuVsReference, BroadcastCoefficients) {
  using T = TypeParam;
  // One matrix for every system: a, b, c vary only along the solve axis.
  const std::vector<std::int64_t> shape = {40, 12, 9};
  int k = 0;
  for (int axis = 0; axis < 3; ++axis) {
    std::vector<std::int64_t> strides(3, 0);
    strides[axis] = 1;
    const auto coef = Layout::strided(shape, strides);
    const auto dense = Layout::packed(shape);
    for (Algorithm alg : cpu_algorithms) {
      for (Mode mode : modes) {
        expect_matches_reference<T>(OperandLayouts(coef, coef, coef, dense, dense), axis, mode,
                                    seed_of("broadcast", ++k), cpu_solver<T>(alg));
      }
    }
  }
}

TYPED_TEST(CpuVsReference, DenseLuAgreesWithReferenceThomas) {
  using T = TypeParam;
  int k = 0;
  for (std::int64_t n : {1, 2, 3, 17, 64}) {
    expect_matches_reference<T>(
        OperandLayouts(Layout::packed({n, 5})), 0, Mode::separate, seed_of("lu", ++k),
        host_runner<T>(Backend::reference, Algorithm::reference_dense_lu));
  }
}

}  // namespace
}  // namespace triax::test
