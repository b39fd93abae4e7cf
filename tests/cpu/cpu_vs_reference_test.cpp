// The CPU backend, every algorithm, against the reference backend: every axis of 1-D..4-D
// arrays, boundary sizes, padded, offset and permuted layouts, broadcast coefficients, the three
// output modes, float and double.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/scoped_env.hpp"

namespace triax::test {
namespace {

template <class T>
class CpuVsReference : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CpuVsReference, ValueTypes);

constexpr Algorithm cpu_algorithms[] = {Algorithm::automatic, Algorithm::cpu_thomas,
                                        Algorithm::cpu_thomas_transpose,
                                        Algorithm::cpu_thomas_partitioned};

template <class T>
Runner<T> cpu_solver(Algorithm algorithm) {
  return host_runner<T>(Backend::cpu, algorithm);
}

TYPED_TEST(CpuVsReference, EveryAxisOfOneToFourDimensions) {
  using T = TypeParam;
  const std::vector<std::vector<std::int64_t>> shapes = {
      {37}, {33, 9}, {9, 33}, {17, 5, 11}, {6, 7, 5, 4}};
  int k = 0;
  for (const auto& shape : shapes) {
    for (int axis = 0; axis < static_cast<int>(shape.size()); ++axis) {
      for (Algorithm alg : cpu_algorithms) {
        for (Mode mode : all_modes) {
          expect_matches_reference<T>(OperandLayouts(Layout::packed(shape)), axis, mode,
                                      test_seed(++k), cpu_solver<T>(alg));
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
        ++k;
        expect_matches_reference<T>(OperandLayouts(layout), axis, all_modes[k % 3], test_seed(k),
                                    cpu_solver<T>(alg));
      }
    }
  }
}

TYPED_TEST(CpuVsReference, LongSystems) {
  using T = TypeParam;
  // One system of 100000 rows, and a few of them side by side.
  int k = 0;
  for (Algorithm alg : cpu_algorithms) {
    expect_matches_reference<T>(OperandLayouts(Layout::packed({100000})), 0, all_modes[k % 3],
                                test_seed(++k), cpu_solver<T>(alg));
  }
  expect_matches_reference<T>(OperandLayouts(Layout::packed({3, 100000})), 1, Mode::separate,
                              test_seed(++k), cpu_solver<T>(Algorithm::automatic));
  expect_matches_reference<T>(OperandLayouts(Layout::packed({20000, 40})), 0, Mode::increment,
                              test_seed(++k), cpu_solver<T>(Algorithm::cpu_thomas_transpose));
}

TYPED_TEST(CpuVsReference, PaddedOffsetAndPermutedLayouts) {
  using T = TypeParam;
  const MixedGridLayouts grid;
  const Layout &pa = grid.padded_a, &pd = grid.padded_d, &px = grid.padded_x,
               &perm = grid.permuted, &odd = grid.odd;
  int k = 0;
  for (int axis = 0; axis < 3; ++axis) {
    for (Algorithm alg : cpu_algorithms) {
      for (Mode mode : all_modes) {
        for (const OperandLayouts& layouts :
             {OperandLayouts(pa, pd, perm, pd, px), OperandLayouts(perm), OperandLayouts(odd),
              OperandLayouts(odd, perm, pa, odd, pd), OperandLayouts(perm, odd, pd, px, odd)}) {
          expect_matches_reference<T>(layouts, axis, mode, test_seed(++k), cpu_solver<T>(alg));
        }
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
    for (Algorithm alg : cpu_algorithms) {
      for (Mode mode : all_modes) {
        expect_matches_reference<T>(one_matrix_for_every_system(shape, axis), axis, mode,
                                    test_seed(++k), cpu_solver<T>(alg));
      }
    }
  }
}

// Coefficients that do not change along the system (row stride 0), as constant-coefficient
// schemes pass them: one value for every system and row, or one per system. The kernels fill
// their tiles and row buffers for these once per strip or group; full tiles, ragged tails of
// rows and of systems, every axis and mode.
TYPED_TEST(CpuVsReference, CoefficientsConstantAlongTheSystem) {
  using T = TypeParam;
  const std::vector<std::int64_t> shape = {70, 66, 5};
  int k = 0;
  for (int axis = 0; axis < 3; ++axis) {
    const auto everywhere = Layout::strided(shape, std::vector<std::int64_t>(3, 0));
    const auto each_system = one_value_per_system(shape, axis);
    const auto dense = Layout::packed(shape);
    for (Algorithm alg : cpu_algorithms) {
      for (Mode mode : all_modes) {
        expect_matches_reference<T>(
            OperandLayouts(everywhere, everywhere, everywhere, dense, dense), axis, mode,
            test_seed(++k), cpu_solver<T>(alg));
        expect_matches_reference<T>(
            OperandLayouts(each_system, everywhere, each_system, dense, dense), axis, mode,
            test_seed(++k), cpu_solver<T>(alg));
      }
    }
  }
}

// The transpose kernel substitutes whole blocks of rows of whole groups of systems straight into
// its output transpose, and the rest through its tile: groups of 32 systems with the last one
// partial, systems of one block (the last row inside it), of several, and with
// a ragged block on top; every mode, with and without one matrix for every system.
TYPED_TEST(CpuVsReference, WholeGroupsAlongAxisZero) {
  using T = TypeParam;
  int k = 0;
  for (std::int64_t n : {8, 16, 19, 32, 67, 256}) {
    const std::vector<std::int64_t> shape = {n, 13, 11};
    std::vector<std::int64_t> along(3, 0);
    along[0] = 1;
    const auto coef = Layout::strided(shape, along);
    const auto dense = Layout::packed(shape);
    for (Mode mode : all_modes) {
      SCOPED_TRACE("n " + std::to_string(n));
      const auto transpose = cpu_solver<T>(Algorithm::cpu_thomas_transpose);
      expect_matches_reference<T>(OperandLayouts(dense), 0, mode, test_seed(++k), transpose);
      expect_matches_reference<T>(OperandLayouts(coef, coef, coef, dense, dense), 0, mode,
                                  test_seed(++k), transpose);
    }
  }
}

// Systems of a few rows along x, and the ragged last rows of longer ones, read by whole vectors
// that reach into the next system or a ghost layer (transpose_thomas.hpp, ReadSpans): packed,
// with ghost layers, one element off, against the reference and bit for bit against the
// element-wise reads (TRIAX_CPU_TRANSPOSE_OVERREAD=0). The array ends are page_guard_test's.
TYPED_TEST(CpuVsReference, ShortRowsReadByWholeVectors) {
  using T = TypeParam;
  const auto transpose = cpu_solver<T>(Algorithm::cpu_thomas_transpose);
  int k = 300;
  for (std::int64_t n : {2, 3, 5, 7, 9, 12, 15, 17, 31, 45}) {
    for (const std::vector<std::int64_t>& ghost : {std::vector<std::int64_t>{0, 0},
                                                   std::vector<std::int64_t>{1, 1},
                                                   std::vector<std::int64_t>{3, 2}}) {
      const std::int64_t systems = 77;
      const Layout layout =
          Layout::padded({n, systems}, {n + 2 * ghost[0] + (n % 2), systems + 2 * ghost[1]},
                         {ghost[0], ghost[1]});
      const OperandLayouts layouts(layout);
      for (Mode mode : all_modes) {
        SCOPED_TRACE("n " + std::to_string(n) + ", ghost " + std::to_string(ghost[0]) + ", " +
                     to_string(mode));
        ++k;
        expect_matches_reference<T>(layouts, 0, mode, test_seed(k), transpose);
        Batch<T> vectors{layouts};
        vectors.fill_random(test_seed(k));
        Batch<T> elements = vectors;
        transpose(layouts, 0, mode, vectors);
        {
          const ScopedEnv off("TRIAX_CPU_TRANSPOSE_OVERREAD", "0");
          transpose(layouts, 0, mode, elements);
        }
        EXPECT_TRUE(same_bits(vectors.x, elements.x) && same_bits(vectors.d, elements.d));
      }
    }
  }
}

// Broadcast along only some batch dimensions: coefficients that vary along the axis and one
// batch dimension, shared across the other.
TYPED_TEST(CpuVsReference, PartlyBroadcastCoefficients) {
  using T = TypeParam;
  const std::vector<std::int64_t> shape = {21, 8, 6};
  int k = 0;
  for (int axis = 0; axis < 3; ++axis) {
    for (int shared = 0; shared < 3; ++shared) {
      if (shared == axis) continue;
      std::vector<std::int64_t> strides = {1, 21, 21 * 8};
      strides[shared] = 0;
      const auto coef = Layout::strided(shape, strides, 3);
      const auto dense = Layout::padded({21, 8, 6}, {23, 8, 7}, {1, 0, 1});
      for (Algorithm alg : cpu_algorithms) {
        expect_matches_reference<T>(OperandLayouts(coef, dense, coef, dense, dense), axis,
                                    all_modes[k % 3], test_seed(++k), cpu_solver<T>(alg));
      }
    }
  }
}

// Lines of systems wider than one strip (float strips of 128 lanes, double of 64, at n = 1000),
// the last strip of each line partial: in place the strip kernel writes d' over d in x's rows,
// elsewhere into its scratch. Along y and z, packed and padded.
TYPED_TEST(CpuVsReference, SeveralStripsPerLine) {
  using T = TypeParam;
  int k = 0;
  const auto padded = Layout::padded({300, 1000, 2}, {307, 1001, 2}, {3, 1, 0});
  for (const auto& [layout, axis] :
       {std::pair{Layout::packed({300, 1000}), 1}, std::pair{Layout::packed({150, 2, 1000}), 2},
        std::pair{padded, 1}}) {
    for (Mode mode : all_modes) {
      expect_matches_reference<T>(OperandLayouts(layout), axis, mode, test_seed(++k),
                                  cpu_solver<T>(Algorithm::cpu_thomas));
    }
  }
}

// Threads split the batch, never a system: any thread count gives the same bits.
TYPED_TEST(CpuVsReference, ThreadCountDoesNotChangeTheResult) {
  using T = TypeParam;
  const auto layout = Layout::padded({70, 45, 9}, {72, 45, 9}, {1, 0, 0});
  for (int axis = 0; axis < 3; ++axis) {
    for (Algorithm alg : cpu_algorithms) {
      Batch<T> batch{OperandLayouts(layout)};
      batch.fill_random(test_seed(axis));
      std::vector<T> first;
      for (int threads : {1, 2, 3, 7}) {
        Batch<T> work = batch;
        Solver<T> s(Backend::cpu, layout, axis, {.algorithm = alg, .num_threads = threads});
        run_mode(s, work, Mode::separate);
        if (first.empty()) {
          first = work.x;
        } else {
          EXPECT_TRUE(same_bits(work.x, first))
              << to_string(alg) << ", axis " << axis << ", " << threads << " threads";
        }
      }
    }
  }
}

// A plan is made once and used many times: repeated solves on fresh data stay right.
TYPED_TEST(CpuVsReference, PlanIsReusable) {
  using T = TypeParam;
  const auto layout = Layout::packed({40, 33});
  for (int axis = 0; axis < 2; ++axis) {
    Solver<T> plan(Backend::cpu, layout, axis);
    const Runner<T> reuse = [&](const OperandLayouts&, int, Mode mode, Batch<T>& batch) {
      run_mode(plan, batch, mode);
    };
    for (int k = 0; k < 6; ++k) {
      expect_matches_reference<T>(OperandLayouts(layout), axis, all_modes[k % 3],
                                  test_seed(axis * 10 + k), reuse);
    }
  }
}

TYPED_TEST(CpuVsReference, DenseLuAgreesWithReferenceThomas) {
  using T = TypeParam;
  int k = 0;
  for (std::int64_t n : {1, 2, 3, 17, 64}) {
    expect_matches_reference<T>(OperandLayouts(Layout::packed({n, 5})), 0, Mode::separate,
                                test_seed(++k),
                                host_runner<T>(Backend::reference, Algorithm::reference_dense_lu));
  }
}

}  // namespace
}  // namespace triax::test
