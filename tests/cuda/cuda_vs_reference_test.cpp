// Every CUDA algorithm against the reference backend, on fresh random inputs with poisoned
// outputs: boundary sizes, every axis of 1-D..4-D arrays, padded, offset and broadcast layouts,
// the three output modes, float and double, a non-default stream; checked mode; pointers from
// the wrong memory space.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iterator>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/normalize.hpp"
#include "cuda/scalar/block/hybrid.hpp"
#include "support/device_runner.hpp"
#include "support/quick_mode.hpp"
#include "support/scoped_env.hpp"

namespace triax::test {
namespace {

template <class T>
class CudaVsReference : public NeedsDevice<> {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CudaVsReference, ValueTypes);

constexpr Algorithm cuda_algorithms[] = {Algorithm::automatic,
                                         Algorithm::cuda_thread_thomas,
                                         Algorithm::cuda_thread_thomas_shared_transpose,
                                         Algorithm::cuda_thread_thomas_shuffle_transpose,
                                         Algorithm::cuda_warp_thomas_pcr,
                                         Algorithm::cuda_block_thomas_pcr};

// Runs the check for every algorithm whose plan accepts the layout (the transpose kernels take
// contiguous rows only).
template <class T>
void for_each_accepting(const OperandLayouts& layouts, int axis,
                        const std::function<void(Algorithm)>& check, bool checked = false) {
  for (Algorithm alg : cuda_algorithms) {
    bool accepted = true;
    try {
      Solver<T> probe(Backend::cuda, layouts, axis, {.algorithm = alg, .checked = checked});
    } catch (const invalid_argument&) {
      accepted = false;
    }
    if (accepted) check(alg);
  }
}

/// Whether the current device launches thread-block clusters (Hopper and later); a failing query
/// fails the calling test.
bool device_launches_clusters() {
  int device = 0, clusters = 0;
  EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
  EXPECT_EQ(cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, device), cudaSuccess);
  return clusters != 0;
}

std::uint64_t seed_of(const std::string& name, int k) {
  return std::hash<std::string>{}(name) + 104729u * static_cast<std::uint64_t>(k);
}

TYPED_TEST(CudaVsReference, BoundarySizes) {
  using T = TypeParam;
  const std::vector<std::int64_t> full = {1,   2,   3,   31,  32,  33,   63,   64,   65,   255,
                                          256, 257, 383, 384, 385, 1023, 1024, 1025, 4096, 100000};
  const std::vector<std::int64_t> few = {1, 2, 3, 31, 33, 65, 257, 385, 1025};
  int k = 0;
  for (std::int64_t n : quick_mode() ? few : full) {
    // Fewer systems for long ones; 130 leaves a partial warp and a partial block.
    const std::int64_t systems = n > 10000 ? 35 : n > 1000 ? 40 : 130;
    for (int axis = 0; axis < 2; ++axis) {
      const auto layout = axis == 0 ? Layout::packed({n, systems}) : Layout::packed({systems, n});
      for_each_accepting<T>(OperandLayouts(layout), axis, [&](Algorithm alg) {
        SCOPED_TRACE("n " + std::to_string(n) + ", " + std::string(to_string(alg)));
        expect_matches_reference<T>(OperandLayouts(layout), axis,
                                    n > 10000 ? Mode::in_place : Mode::separate,
                                    seed_of("sizes", ++k), cuda_runner<T>(alg));
      });
    }
  }
}

// Systems that start between 16-byte boundaries along axis 0 (a ghost layer, n not a multiple
// of the vector): the hybrid stages their rows through shared memory (chunk_fastest). With x
// laid out alike and apart; lengths from one row to past the fused limit in double (256 chunks
// of 8 rows: the long path from n = 2049) and to 16-row chunks in float (n > 2048).
TYPED_TEST(CudaVsReference, UnalignedRowsAlongAxis0) {
  using T = TypeParam;
  std::vector<std::int64_t> lengths = {1, 2, 3, 5, 7, 8, 9, 13, 14, 15, 29, 47, 97, 255, 1000};
  if (!quick_mode()) lengths.insert(lengths.end(), {1791, 1793, 3327, 3329});
  int k = 0;
  for (std::int64_t n : lengths) {
    const auto ghost = Layout::padded({n, 37}, {n + 2, 39}, {1, 1});
    const auto other = Layout::padded({n, 37}, {n + 3, 38}, {2, 0});
    const OperandLayouts alike(ghost);
    const OperandLayouts x_apart(ghost, ghost, ghost, ghost, other);
    for (const OperandLayouts* layouts : {&alike, &x_apart}) {
      for_each_accepting<T>(*layouts, 0, [&](Algorithm alg) {
        SCOPED_TRACE("n " + std::to_string(n) + ", " + std::string(to_string(alg)));
        expect_matches_reference<T>(*layouts, 0, all_modes[k % 3], seed_of("unaligned", ++k),
                                    cuda_runner<T>(alg));
      });
    }
  }
}

// Systems whose rows start on 16-byte boundaries along axis 0 but whose length the chunk threads
// do not share evenly in whole vectors (n a multiple of 4 in float, 2 in double): the hybrid
// cuts them in chunks of whole vectors, the last one shorter, and reads them straight from
// global memory (chunk_split.cuh). 300 in float: 25 chunks of 12 rows of 32; 166 in double: 27
// of 6 and one of 4. Every mode, checked mode, a, b, c one value per system; 37 systems leave
// the last block partly empty.
TYPED_TEST(CudaVsReference, AlignedRowsInWholeVectorChunksAlongAxis0) {
  using T = TypeParam;
  std::vector<std::int64_t> lengths = {4, 12, 20, 36, 100, 166, 300, 380, 388, 500, 1000};
  if (!quick_mode())
    lengths.insert(lengths.end(), {52, 302, 1004, 1024, 1136, 2044, 2300, 2500, 3068});
  int k = 0;
  for (std::int64_t n : lengths) {
    const std::vector<std::int64_t> shape = {n, 37};
    const auto dense = Layout::packed(shape);
    const auto each_system = one_value_per_system(shape, 0);
    const OperandLayouts packed(dense);
    const OperandLayouts per_system(each_system, each_system, each_system, dense, dense);
    for (const OperandLayouts* layouts : {&packed, &per_system}) {
      for (Mode mode : all_modes) {
        SCOPED_TRACE("n " + std::to_string(n));
        expect_matches_reference<T>(*layouts, 0, mode, seed_of("vectors", ++k),
                                    cuda_runner<T>(Algorithm::cuda_block_thomas_pcr));
      }
    }
    SCOPED_TRACE("checked, n " + std::to_string(n));
    expect_matches_reference<T>(packed, 0, Mode::separate, seed_of("vectors", ++k),
                                cuda_checked_runner<T>(Algorithm::cuda_block_thomas_pcr));
  }
}

/// Systems of each length along axis 0 (37 of them, the last block partly empty) that start
/// between 16-byte boundaries, alike in every operand: odd lengths packed, a ghost layer, a base
/// one element past a vector, x a whole vector on, a, b, c one value per system; and x one
/// element apart from the rest (staged). Each in a mode in turn and in checked mode.
template <class T>
void expect_shifted_rows_match(const std::vector<std::int64_t>& lengths, const std::string& tag) {
  int k = 0;
  for (std::int64_t n : lengths) {
    const std::vector<std::int64_t> shape = {n, 37};
    const auto packed = Layout::packed(shape);
    const auto ghost = Layout::padded({n, 37}, {n + 2, 39}, {1, 1});
    const auto moved = Layout::strided({n, 37}, {1, n}, 1);     // base one element on
    const auto x_vector = Layout::strided({n, 37}, {1, n}, 4);  // a whole vector on
    const auto each_system = one_value_per_system(shape, 0);
    const std::vector<OperandLayouts> cases = {
        OperandLayouts(packed), OperandLayouts(ghost), OperandLayouts(moved),
        OperandLayouts(packed, packed, packed, packed, x_vector),
        OperandLayouts(each_system, each_system, each_system, ghost, ghost),
        OperandLayouts(packed, packed, packed, packed, moved)};  // x apart: staged
    for (const OperandLayouts& layouts : cases) {
      SCOPED_TRACE("n " + std::to_string(n) + ", case " + std::to_string(&layouts - &cases[0]));
      expect_matches_reference<T>(layouts, 0, all_modes[k % 3], seed_of(tag, ++k),
                                  cuda_runner<T>(Algorithm::cuda_block_thomas_pcr));
      expect_matches_reference<T>(layouts, 0, Mode::separate, seed_of(tag, ++k),
                                  cuda_checked_runner<T>(Algorithm::cuda_block_thomas_pcr));
    }
  }
}

// The hybrid reads systems that start between vectors from the vector boundary before each
// system's row 0, the rows before it and past its end as identity rows and the partial vectors
// element by element (chunk_shifted, chunk_split.cuh). Every length to 70 (every shift of a
// system's first and last chunk against the vectors), then lengths around the chunk sizes and
// the limit of 32 threads of 16 rows. The lengths cross the limits of 12-row float chunks (381
// in one warp).
TYPED_TEST(CudaVsReference, ShiftedRowsAlongAxis0) {
  std::vector<std::int64_t> lengths;
  for (std::int64_t n = 1; n <= (quick_mode() ? 12 : 70); ++n) lengths.push_back(n);
  lengths.insert(lengths.end(), {97, 255, 257, 301, 381, 383, 509, 1001});
  if (!quick_mode())
    lengths.insert(lengths.end(), {127, 129, 191, 499, 510, 777, 1023, 1135, 2047, 2049, 2303, 2501,
                                   3069, 3071, 4093});
  expect_shifted_rows_match<TypeParam>(lengths, "shifted");
}

// Past 256 chunks along axis 0, float systems of up to 8192 rows in one block of up to 512 chunk
// threads each (hybrid.cu, wide_x_on) instead of the long path, every layout of
// expect_shifted_rows_match (aligned, shifted, staged, a, b, c one value per system) in every
// mode and checked mode; then TRIAX_CUDA_HYBRID_WIDE_X=0, the long path. Double (2048 < n <=
// 4096) takes the long path both ways. Each length first checks the choice.
TYPED_TEST(CudaVsReference, OneSystemPerBlockAlongAxis0) {
  using T = TypeParam;
  const std::int64_t most = sizeof(T) == 4 ? 8192 : 4096;
  const std::vector<std::int64_t> lengths =
      quick_mode() ? std::vector<std::int64_t>{most / 2 + 1, most - 1}
                   : std::vector<std::int64_t>{most / 2 + 1, most / 2 + 2, most / 2 + 3,
                                               3 * most / 4 + 5, most - 1, most};
  for (const char* wide : {"default", "0"}) {
    const ScopedEnv env("TRIAX_CUDA_HYBRID_WIDE_X", wide);
    for (std::int64_t n : lengths) {
      SCOPED_TRACE("n " + std::to_string(n) + ", TRIAX_CUDA_HYBRID_WIDE_X " + wide);
      detail::cuda::HybridConfig cfg;
      ASSERT_TRUE(detail::cuda::hybrid_choose<T>(
          detail::normalize(OperandLayouts(Layout::packed({n, 37})), 0),
          detail::cuda::HybridFamily::block, cfg));
      if (std::string(wide) == "0" || sizeof(T) == 8) {
        EXPECT_GT(n, std::int64_t(cfg.M) * cfg.P * cfg.C);
      } else {
        EXPECT_LE(n, std::int64_t(cfg.M) * cfg.P);
        EXPECT_GT(cfg.P, 256);
        EXPECT_EQ(cfg.S, 1);
      }
    }
    expect_shifted_rows_match<T>(lengths, std::string("wide x ") + wide);
  }
}

// Float systems whose shifted rows do not fit 8-row chunks within a warp take 12-row chunks
// over the threads n alone has (hybrid.cu's choose), or with TRIAX_CUDA_HYBRID_SHIFTED12=0 are
// staged: lengths on each side of the thread counts 2 to 32, both ways.
TYPED_TEST(CudaVsReference, ShiftedRowsInTwelveRowChunksAlongAxis0) {
  std::vector<std::int64_t> lengths = {13, 15, 31, 63, 126, 127, 255};
  if (!quick_mode()) lengths.insert(lengths.end(), {14, 29, 30, 61, 62, 125, 253, 254});
  expect_shifted_rows_match<TypeParam>(lengths, "twelve");
  const ScopedEnv off("TRIAX_CUDA_HYBRID_SHIFTED12", "0");
  expect_shifted_rows_match<TypeParam>(lengths, "staged");
}

// One matrix for every system (a, b, c of batch stride 0) along axis 0, systems that start
// between vectors: read shifted by default, the shared coefficients element by element
// (load_chunk_elements); staged with TRIAX_CUDA_HYBRID_SHARED_ROWS=0. Both ways: the matrix at d's
// phase, one element on (its rows then never meet d's vectors), only b shared.
TYPED_TEST(CudaVsReference, SharedMatrixRowsAlongAxis0) {
  using T = TypeParam;
  std::vector<std::int64_t> lengths = {1, 2, 3, 5, 7, 13, 31, 97, 255, 301, 1001};
  if (!quick_mode()) lengths.insert(lengths.end(), {63, 127, 381, 509, 1139, 2049, 3001});
  int k = 0;
  for (const char* sw : {"0", "1"}) {
    const ScopedEnv shared("TRIAX_CUDA_HYBRID_SHARED_ROWS", sw);
    for (std::int64_t n : lengths) {
      const std::vector<std::int64_t> shape = {n, 37};
      const std::vector<std::int64_t> rows_only = {1, 0};
      const auto matrix = Layout::strided(shape, rows_only);
      const auto matrix_on = Layout::strided(shape, rows_only, 1);
      const auto packed = Layout::packed(shape);
      const auto ghost = Layout::padded({n, 37}, {n + 2, 39}, {1, 1});
      const auto each_system = one_value_per_system(shape, 0);
      const std::vector<OperandLayouts> cases = {
          OperandLayouts(matrix, matrix, matrix, packed, packed),
          OperandLayouts(matrix_on, matrix_on, matrix, ghost, ghost),
          OperandLayouts(each_system, matrix_on, each_system, packed, packed)};
      for (const OperandLayouts& layouts : cases) {
        SCOPED_TRACE(std::string("shared rows ") + sw + ", n " + std::to_string(n) + ", case " +
                     std::to_string(&layouts - &cases[0]));
        expect_matches_reference<T>(layouts, 0, all_modes[k % 3], seed_of("matrix", ++k),
                                    cuda_runner<T>(Algorithm::cuda_block_thomas_pcr));
        expect_matches_reference<T>(layouts, 0, Mode::separate, seed_of("matrix", ++k),
                                    cuda_checked_runner<T>(Algorithm::cuda_block_thomas_pcr));
      }
    }
  }
}

// Kernels that pick their tiling by batch size (the shuffle transpose's group width) get batches
// on each side of the thresholds, with a partial warp at the end.
TYPED_TEST(CudaVsReference, ManySystems) {
  using T = TypeParam;
  const std::int64_t n = quick_mode() ? 5 : 33;
  int k = 0;
  for (std::int64_t systems :
       {std::int64_t(16384 + 7), std::int64_t(32768 + 13), std::int64_t(65536 + 45)}) {
    for (int axis = 0; axis < 2; ++axis) {
      const auto layout = axis == 0 ? Layout::packed({n, systems}) : Layout::packed({systems, n});
      for_each_accepting<T>(OperandLayouts(layout), axis, [&](Algorithm alg) {
        SCOPED_TRACE(std::to_string(systems) + " systems, " + std::string(to_string(alg)));
        expect_matches_reference<T>(OperandLayouts(layout), axis, all_modes[k % 3],
                                    seed_of("many", ++k), cuda_runner<T>(alg));
      });
    }
  }
}

TYPED_TEST(CudaVsReference, EveryAxisLayoutAndMode) {
  using T = TypeParam;
  const std::vector<std::vector<std::int64_t>> shapes = {{37}, {33, 9}, {17, 5, 11}, {6, 7, 5, 4}};
  int k = 0;
  for (const auto& shape : shapes) {
    for (int axis = 0; axis < static_cast<int>(shape.size()); ++axis) {
      for (Mode mode : all_modes) {
        const OperandLayouts layouts(Layout::packed(shape));
        for_each_accepting<T>(layouts, axis, [&](Algorithm alg) {
          expect_matches_reference<T>(layouts, axis, mode, seed_of("axes", ++k),
                                      cuda_runner<T>(alg));
        });
      }
    }
  }
  const auto padded = Layout::padded({19, 10, 7}, {22, 12, 9}, {1, 1, 1});
  const auto other = Layout::padded({19, 10, 7}, {21, 13, 8}, {2, 0, 1});
  for (int axis = 0; axis < 3; ++axis) {
    const std::vector<std::int64_t> extents = {19, 10, 7};
    std::vector<std::int64_t> strides(3, 0);
    strides[axis] = 1;
    const auto coef = Layout::strided(extents, strides);
    for (Mode mode : all_modes) {
      const OperandLayouts mixed(padded, other, padded, other, padded);
      for_each_accepting<T>(mixed, axis, [&](Algorithm alg) {
        expect_matches_reference<T>(mixed, axis, mode, seed_of("padded", ++k), cuda_runner<T>(alg));
      });
      const OperandLayouts broadcast(coef, coef, coef, other, padded);
      for_each_accepting<T>(broadcast, axis, [&](Algorithm alg) {
        expect_matches_reference<T>(broadcast, axis, mode, seed_of("broadcast", ++k),
                                    cuda_runner<T>(alg));
      });
    }
  }
}

// a, b, c constant along the system (row stride 0): one value for every system (an ADI step) or
// one per system. Along axis 0 with aligned rows the hybrid reads each once beside d's vectors.
TYPED_TEST(CudaVsReference, CoefficientsConstantAlongTheSystem) {
  using T = TypeParam;
  // 67 rows along axis 0: chunks off the 16-byte path (chunk_fastest), where every lane copies
  // the one coefficient into its staging slots (run_stage.cuh).
  const std::vector<std::vector<std::int64_t>> shapes = {{64, 66, 5}, {256, 12, 9}, {67, 30, 5}};
  int k = 0;
  for (const auto& shape : shapes) {
    for (int axis = 0; axis < 3; ++axis) {
      const auto everywhere = Layout::strided(shape, std::vector<std::int64_t>(3, 0));
      const auto each_system = one_value_per_system(shape, axis);
      const auto dense = Layout::packed(shape);
      for (Mode mode : all_modes) {
        const OperandLayouts one_matrix(everywhere, everywhere, everywhere, dense, dense);
        const OperandLayouts per_system_values(each_system, everywhere, each_system, dense, dense);
        for (const OperandLayouts* layouts : {&one_matrix, &per_system_values}) {
          for_each_accepting<T>(*layouts, axis, [&](Algorithm alg) {
            SCOPED_TRACE("axis " + std::to_string(axis) + ", " + std::string(to_string(alg)));
            expect_matches_reference<T>(*layouts, axis, mode, seed_of("constant", ++k),
                                        cuda_runner<T>(alg));
          });
        }
      }
    }
  }
}

// Systems long enough that several blocks share each: a thread-block cluster (Hopper; the
// default along axes >= 1 past 32 chunks, reduced_solve.cuh) of register or staged blocks, or
// the long path. Every mode, partial groups of systems, and checked mode, which takes one block
// per group of systems. The sanitizer runs (quick) take one size, one layout and one mode.
TYPED_TEST(CudaVsReference, LongSystemsAcrossBlocks) {
  using T = TypeParam;
  const std::vector<std::int64_t> sizes =
      quick_mode() ? std::vector<std::int64_t>{700}
                   : std::vector<std::int64_t>{300, 700, 1024, 2048, 2100, 4096, 5000, 8192};
  const std::vector<Mode> these_modes =
      quick_mode() ? std::vector<Mode>{Mode::increment}
                   : std::vector<Mode>(std::begin(all_modes), std::end(all_modes));
  // Checked: the same answers, and info 0 for every system.
  const Runner<T> checked = cuda_checked_runner<T>(Algorithm::cuda_block_thomas_pcr);
  // Clusters off; on wherever they fit, register and staged blocks; the default rule.
  const std::pair<const char*, const char*> settings[] = {
      {"0", "default"}, {"1", "0"}, {"1", "1"}, {"default", "default"}};
  int k = 0;
  for (const auto& [cluster, staged] : settings) {
    if (quick_mode() && std::string(cluster) != "1") continue;
    const ScopedEnv use_clusters("TRIAX_CUDA_HYBRID_CLUSTER", cluster);
    const ScopedEnv use_staged("TRIAX_CUDA_HYBRID_STAGED", staged);
    for (std::int64_t n : sizes) {
      std::vector<Layout> layouts = {Layout::packed({40, n})};
      if (!quick_mode()) layouts.push_back(Layout::packed({37, n, 3}));
      for (const Layout& layout : layouts) {
        SCOPED_TRACE("n " + std::to_string(n) + ", clusters " + cluster + ", staged " + staged);
        for (Mode mode : these_modes) {
          expect_matches_reference<T>(OperandLayouts(layout), 1, mode, seed_of("across", ++k),
                                      cuda_runner<T>(Algorithm::cuda_block_thomas_pcr));
        }
        expect_matches_reference<T>(OperandLayouts(layout), 1, Mode::separate,
                                    seed_of("across", ++k), checked);
      }
    }
  }
}

// The pipelined kernel (pipelined_kernel.cuh: persistent blocks that stream the next group of
// systems into shared memory while they solve one), turned on with TRIAX_CUDA_HYBRID_PIPELINED=1.
// Lengths from one row to the fused limit; groups of 64- and 128-byte rows; more groups than the
// device holds at once (each block loops); every mode. Each case checks that the kernel was
// chosen, and layouts it cannot stream (a system count S does not divide, rows off 16-byte
// boundaries) and checked mode take the register kernel with the same answers.
TYPED_TEST(CudaVsReference, PipelinedAlongAxesAboveZero) {
  using T = TypeParam;
  const ScopedEnv on("TRIAX_CUDA_HYBRID_PIPELINED", "1");
  const std::vector<std::int64_t> sizes =
      quick_mode() ? std::vector<std::int64_t>{3, 100, 512}
                   : std::vector<std::int64_t>{1, 2, 3, 17, 64, 100, 255, 256, 257, 400, 511, 512};
  const std::int64_t run128 = 128 / sizeof(T);
  int k = 0;
  for (std::int64_t n : sizes) {
    struct Case {
      Layout layout;
      int axis;
      bool streams;
    };
    const std::vector<Case> cases = {
        {Layout::packed({run128, n}), 1, true},
        {Layout::packed({2 * run128, 3, n}), 2, true},
        {Layout::packed({run128 / 2, n, 3}), 1, true},
        {Layout::packed({37, n}), 1, false},
        {Layout::padded({run128, n}, {run128 + 1, n}, {0, 0}), 1, false}};
    for (const Case& c : cases) {
      SCOPED_TRACE("n " + std::to_string(n) + ", axis " + std::to_string(c.axis) + ", extents " +
                   std::to_string(c.layout.extent(0)));
      const OperandLayouts layouts(c.layout);
      detail::cuda::HybridConfig cfg;
      ASSERT_TRUE(detail::cuda::hybrid_choose<T>(detail::normalize(layouts, c.axis),
                                                 detail::cuda::HybridFamily::block, cfg));
      // (Below 17 rows a double block of one chunk thread per system is under a warp: none.)
      if (c.streams && n >= 17) ASSERT_EQ(cfg.map, detail::cuda::Mapping::system_pipelined);
      for (Mode mode : all_modes) {
        if (quick_mode() && mode != Mode::increment) continue;
        expect_matches_reference<T>(layouts, c.axis, mode, seed_of("pipelined", ++k),
                                    cuda_runner<T>(Algorithm::cuda_block_thomas_pcr));
      }
    }
  }
  // 64-byte rows where 128-byte ones fit (n = 256), through the tuning override.
  {
    const ScopedEnv other("TRIAX_CUDA_HYBRID", sizeof(T) == 4 ? "16,16,16" : "8,32,8");
    const OperandLayouts layouts(Layout::packed({4 * run128, 256}));
    detail::cuda::HybridConfig cfg;
    ASSERT_TRUE(detail::cuda::hybrid_choose<T>(detail::normalize(layouts, 1),
                                               detail::cuda::HybridFamily::block, cfg));
    ASSERT_EQ(cfg.map, detail::cuda::Mapping::system_pipelined);
    ASSERT_EQ(cfg.S * static_cast<int>(sizeof(T)), 64);
    for (Mode mode : all_modes) {
      expect_matches_reference<T>(layouts, 1, mode, seed_of("pipelined", ++k),
                                  cuda_runner<T>(Algorithm::cuda_block_thomas_pcr));
    }
  }
  // Many more groups than the device holds at once (at n = 64 several blocks fit an SM).
  for (std::int64_t n : {64, 256, 512}) {
    if (quick_mode() && n != 256) continue;
    SCOPED_TRACE("n " + std::to_string(n) + ", many groups");
    const std::int64_t groups = n == 64 ? 2000 : 300;
    expect_matches_reference<T>(OperandLayouts(Layout::packed({run128 * groups, n})), 1,
                                all_modes[k % 3], seed_of("pipelined", ++k),
                                cuda_runner<T>(Algorithm::cuda_block_thomas_pcr));
  }
}

// Pipelined clusters by the default rule past 512 rows along y and z, up to clusters of 16
// blocks (float 6144 < n <= 8192, double 2048 < n <= 4096; past 4096 rows in float up to 6144,
// and past the clusters, the long path), with few clusters so that
// each reuses both sets of records, and 128-byte rows in four blocks through the tuning override.
TYPED_TEST(CudaVsReference, PipelinedClustersAlongAxesAboveZero) {
  using T = TypeParam;
  // At most 3 clusters (or blocks), so that each loops over several groups even here: groups
  // i and i + 2 of a cluster reuse one set of records and one mbarrier (in its next phase).
  const ScopedEnv few("TRIAX_CUDA_HYBRID_PERSISTENT", "3");
  const std::vector<std::int64_t> sizes =
      quick_mode() ? std::vector<std::int64_t>{600, 1024, 3000, 7000}
                   : std::vector<std::int64_t>{513,  600,  1000, 1024, 1025, 1500, 2048,
                                               3000, 4096, 4097, 5000, 6145, 7000, 8192};
  const std::int64_t run64 = 64 / sizeof(T), run128 = 128 / sizeof(T);
  int k = 0;
  for (std::int64_t n : sizes) {
    // 7 groups of 128-byte rows along y (float, up to n = 2048); 5 of 64-byte rows along z, also
    // behind a middle dimension of 1.
    for (const auto& [layout, axis] : {std::pair{Layout::packed({7 * run128, n}), 1},
                                       std::pair{Layout::packed({run64, 5, n}), 2},
                                       std::pair{Layout::packed({5 * run64, 1, n}), 2}}) {
      SCOPED_TRACE("n " + std::to_string(n) + ", axis " + std::to_string(axis) + ", extents " +
                   std::to_string(layout.extent(0)));
      const OperandLayouts layouts(layout);
      detail::cuda::HybridConfig cfg;
      ASSERT_TRUE(detail::cuda::hybrid_choose<T>(detail::normalize(layouts, axis),
                                                 detail::cuda::HybridFamily::block, cfg));
      // Clusters pipeline wherever a device has clusters, in both precisions.
      if (cfg.C > 1) ASSERT_EQ(cfg.map, detail::cuda::Mapping::system_pipelined);
      for (Mode mode : all_modes) {
        if (quick_mode() && mode != Mode::increment) continue;
        expect_matches_reference<T>(layouts, axis, mode, seed_of("pipelined clusters", ++k),
                                    cuda_runner<T>(Algorithm::cuda_block_thomas_pcr));
      }
    }
  }
  // Float 128-byte rows in four blocks (the default at 512 < n <= 1024 where 32 systems are
  // adjacent), through the tuning override.
  if constexpr (sizeof(T) == 4) {
    const ScopedEnv four("TRIAX_CUDA_HYBRID", "16,16,32,4");
    const ScopedEnv piped("TRIAX_CUDA_HYBRID_PIPELINED", "1");
    for (std::int64_t n : {600, 1024}) {
      SCOPED_TRACE("n " + std::to_string(n) + ", 16,16,32,4");
      const OperandLayouts layouts(Layout::packed({7 * run128, n}));
      detail::cuda::HybridConfig cfg;
      ASSERT_TRUE(detail::cuda::hybrid_choose<T>(detail::normalize(layouts, 1),
                                                 detail::cuda::HybridFamily::block, cfg));
      ASSERT_EQ(cfg.map, detail::cuda::Mapping::system_pipelined);
      ASSERT_EQ(cfg.S, 32);
      ASSERT_EQ(cfg.C, 4);
      for (Mode mode : all_modes) {
        expect_matches_reference<T>(layouts, 1, mode, seed_of("pipelined clusters", ++k),
                                    cuda_runner<T>(Algorithm::cuda_block_thomas_pcr));
      }
    }
  }
}

// Clusters of as many blocks as hold the chunks (TRIAX_CUDA_HYBRID_CLUSTER_EXACT=1: 3, 5, 6, 7,
// 9 ... 16 blocks; the pairs are solved over the power of two of lanes above, reduced_solve.cuh)
// along y and z: pipelined, register and staged blocks (37 systems: no pipelining), every mode
// and checked mode (the long path or one block). Each case first checks the cluster's size.
TYPED_TEST(CudaVsReference, ClustersOfEveryBlockCount) {
  using T = TypeParam;
  if (!device_launches_clusters()) GTEST_SKIP() << "this device launches no thread-block clusters";
  const ScopedEnv exact("TRIAX_CUDA_HYBRID_CLUSTER_EXACT", "1");
  const std::int64_t rows_per_block = 32 * (sizeof(T) == 4 ? 16 : 8);
  std::vector<std::int64_t> blocks = {3, 9};
  if (!quick_mode()) blocks.insert(blocks.end(), {5, 6, 7, 12, 13, 16});
  const std::int64_t run128 = 128 / sizeof(T), run64 = 64 / sizeof(T);
  int k = 0;
  for (std::int64_t b : blocks) {
    const std::int64_t n = (b - 1) * rows_per_block + rows_per_block / 3;
    for (const auto& [layout, axis] : {std::pair{Layout::packed({7 * run128, n}), 1},
                                       std::pair{Layout::packed({37, n}), 1},
                                       std::pair{Layout::packed({run64, 5, n}), 2}}) {
      SCOPED_TRACE("n " + std::to_string(n) + ", " + std::to_string(b) + " blocks, axis " +
                   std::to_string(axis) + ", extents " + std::to_string(layout.extent(0)));
      const OperandLayouts layouts(layout);
      detail::cuda::HybridConfig cfg;
      ASSERT_TRUE(detail::cuda::hybrid_choose<T>(detail::normalize(layouts, axis),
                                                 detail::cuda::HybridFamily::block, cfg));
      EXPECT_EQ(cfg.C * cfg.P, b * 32);
      for (Mode mode : all_modes) {
        if (quick_mode() && mode != Mode::increment) continue;
        expect_matches_reference<T>(layouts, axis, mode, seed_of("exact clusters", ++k),
                                    cuda_runner<T>(Algorithm::cuda_block_thomas_pcr));
      }
      expect_matches_reference<T>(layouts, axis, Mode::separate, seed_of("exact clusters", ++k),
                                  cuda_checked_runner<T>(Algorithm::cuda_block_thomas_pcr));
    }
  }
}

// Clustered configurations forced through the tuning override, where chunks are few against
// C x P: whole blocks of the cluster hold no rows (n = 40 over 8 blocks of 32 chunks), one chunk
// per block (P = 1), chunks of two rows; register and staged blocks. Each case first checks that
// the override took effect.
TYPED_TEST(CudaVsReference, ClustersWithEmptyBlocks) {
  using T = TypeParam;
  if (!device_launches_clusters()) GTEST_SKIP() << "this device launches no thread-block clusters";
  struct Case {
    std::int64_t n;
    const char* config;
    const char* staged;
    int C;
  };
  int k = 0;
  for (const Case& c : {Case{40, "8,32,8,8", "0", 8}, Case{40, "8,32,16,8", "1", 8},
                        Case{16, "8,1,32,2", "0", 2}, Case{16, "8,1,32,2", "1", 2},
                        Case{300, "8,32,8,4", "0", 4}, Case{700, "8,16,16,8", "1", 8},
                        Case{130, "8,4,32,8", "1", 8}}) {
    const ScopedEnv config("TRIAX_CUDA_HYBRID", c.config);
    const ScopedEnv staged("TRIAX_CUDA_HYBRID_STAGED", c.staged);
    SCOPED_TRACE("n " + std::to_string(c.n) + ", " + c.config + ", staged " + c.staged);
    const OperandLayouts layouts(Layout::packed({45, c.n, 2}));
    detail::cuda::HybridConfig cfg;
    ASSERT_TRUE(detail::cuda::hybrid_choose<T>(detail::normalize(layouts, 1),
                                               detail::cuda::HybridFamily::block, cfg));
    ASSERT_EQ(cfg.C, c.C);
    ASSERT_EQ(cfg.map == detail::cuda::Mapping::system_staged, std::string(c.staged) == "1");
    for (Mode mode : all_modes) {
      expect_matches_reference<T>(layouts, 1, mode, seed_of("empty blocks", ++k),
                                  cuda_runner<T>(Algorithm::cuda_block_thomas_pcr));
    }
  }
}

// Axes >= 1 with a, b and c staged in shared memory (staged_kernel.cuh): forced wherever it has a
// configuration (TRIAX_CUDA_HYBRID_STAGED=1), and by the default rule (float: 256 < n <= 512 in
// 512-thread blocks, n > 1024, where the groups cannot be pipelined). Lengths from one row to the
// fused limit, both inner axes of 3-D arrays, padded layouts with x apart, coefficients constant
// along the system, partial groups of systems, groups copied in 16-byte pieces, every mode, more
// groups than the device holds at once; checked mode finds a breakdown in the right system.
TYPED_TEST(CudaVsReference, StagedCoefficientsAlongAxesAboveZero) {
  using T = TypeParam;
  const std::vector<std::int64_t> forced_sizes =
      quick_mode()
          ? std::vector<std::int64_t>{3, 257, 700}
          : std::vector<std::int64_t>{1, 2, 3, 17, 64, 100, 255, 257, 511, 700, 1025, 2047, 4096};
  const std::vector<std::int64_t> rule_sizes =
      quick_mode() ? std::vector<std::int64_t>{300, 1500}
                   : std::vector<std::int64_t>{300, 512, 1025, 1500, 2048};
  int k = 0;
  for (const char* rule : {"1", "default"}) {
    const ScopedEnv env("TRIAX_CUDA_HYBRID_STAGED", rule);
    for (std::int64_t n : std::string(rule) == "1" ? forced_sizes : rule_sizes) {
      const auto padded = Layout::padded({7, n, 5}, {9, n + 1, 5}, {1, 0, 0});
      const auto other = Layout::padded({7, n, 5}, {8, n + 2, 6}, {0, 1, 1});
      const OperandLayouts x_apart(padded, padded, padded, padded, other);
      const OperandLayouts along_z(Layout::packed({37, 3, n}));
      // a and c one value per system, b one value for all (row stride 0: staged too, unless all
      // three are constant along the system).
      const std::vector<std::int64_t> shape = {20, n};
      const auto each = one_value_per_system(shape, 1);
      const auto dense = Layout::packed(shape);
      const auto everywhere = Layout::strided(shape, std::vector<std::int64_t>(2, 0));
      const OperandLayouts constant_rows(each, everywhere, each, dense, dense);
      // Groups of systems adjacent and 16-byte aligned: a, b and c copied in 16-byte pieces
      // (also with a and c one value per system).
      const OperandLayouts aligned_y(Layout::packed({64, n, 2}));
      const OperandLayouts aligned_z(Layout::packed({32, 3, n}));
      const std::vector<std::int64_t> wide = {64, n};
      const auto each_wide = one_value_per_system(wide, 1);
      const auto dense_wide = Layout::packed(wide);
      const OperandLayouts aligned_constant(each_wide, dense_wide, each_wide, dense_wide,
                                            dense_wide);
      for (const auto& [layouts, axis] :
           {std::pair{&x_apart, 1}, std::pair{&along_z, 2}, std::pair{&constant_rows, 1},
            std::pair{&aligned_y, 1}, std::pair{&aligned_z, 2}, std::pair{&aligned_constant, 1}}) {
        for (Algorithm alg : {Algorithm::automatic, Algorithm::cuda_block_thomas_pcr}) {
          SCOPED_TRACE("n " + std::to_string(n) + ", axis " + std::to_string(axis) + ", " +
                       std::string(to_string(alg)));
          expect_matches_reference<T>(*layouts, axis, all_modes[k % 3], seed_of("staged", ++k),
                                      cuda_runner<T>(alg));
        }
      }
    }
  }
  // Many more groups of systems than the device holds at once, the last group partial (not in
  // the sanitizer runs).
  const std::vector<std::pair<std::int64_t, std::int64_t>> many =
      quick_mode() ? std::vector<std::pair<std::int64_t, std::int64_t>>{}
                   : std::vector<std::pair<std::int64_t, std::int64_t>>{
                         {300, 9001}, {1500, 2203}, {1024, 2048}, {2048, 1024}};
  for (const auto& [n, systems] : many) {
    SCOPED_TRACE("n " + std::to_string(n) + ", " + std::to_string(systems) + " systems");
    expect_matches_reference<T>(OperandLayouts(Layout::packed({systems, n})), 1, all_modes[k % 3],
                                seed_of("staged", ++k),
                                cuda_runner<T>(Algorithm::cuda_block_thomas_pcr));
  }
  // Checked, staged in both precisions: a zero pivot in row 0 of system 5, one in row 300 of
  // system 9, d infinite in row 500 of the last system but one.
  const ScopedEnv staged("TRIAX_CUDA_HYBRID_STAGED", "1");
  const std::int64_t n = 600, systems = 45;
  const auto layout = Layout::packed({systems, n});
  Batch<T> batch{OperandLayouts(layout)};
  batch.fill_random(91);
  const auto at = [&](std::int64_t s, std::int64_t i) { return i * systems + s; };
  batch.b[at(5, 0)] = 0;
  batch.a[at(9, 300)] = 0;
  batch.b[at(9, 300)] = 0;
  batch.d[at(systems - 2, 500)] = std::numeric_limits<T>::infinity();
  DeviceBuffer<T> a(batch.a), b(batch.b), c(batch.c), d(batch.d), x(batch.x);
  int* dinfo = nullptr;
  TRIAX_TEST_CUDA_OK(cudaMalloc(&dinfo, systems * sizeof(int)));
  TRIAX_TEST_CUDA_OK(cudaMemset(dinfo, 0xff, systems * sizeof(int)));
  Solver<T> s(Backend::cuda, layout, 1,
              {.algorithm = Algorithm::cuda_block_thomas_pcr, .checked = true});
  s.solve(a.get(), b.get(), c.get(), d.get(), x.get(), dinfo);
  std::vector<int> info(systems, -1);
  TRIAX_TEST_CUDA_OK(cudaMemcpy(info.data(), dinfo, systems * sizeof(int), cudaMemcpyDeviceToHost));
  TRIAX_TEST_CUDA_OK(cudaFree(dinfo));
  for (std::int64_t q = 0; q < systems; ++q) {
    EXPECT_EQ(info[q], q == 5 ? 1 : q == 9 ? 301 : q == systems - 2 ? 501 : 0) << "system " << q;
  }
}

TYPED_TEST(CudaVsReference, CheckedModeReportsBreakdown) {
  using T = TypeParam;
  // A few systems, and enough for many waves of blocks, with a breakdown in one of the last
  // groups of systems.
  for (const auto [n, systems] : {std::pair<std::int64_t, std::int64_t>{50, 33}, {40, 70001}})
    for (int axis = 0; axis < 2; ++axis) {
      const std::int64_t last_bad = systems - 3;
      const auto layout = axis == 0 ? Layout::packed({n, systems}) : Layout::packed({systems, n});
      // Element (system s, row i) of the packed layout.
      const auto at = [&](std::int64_t s, std::int64_t i) {
        return axis == 0 ? s * n + i : i * systems + s;
      };
      Batch<T> batch{OperandLayouts(layout)};
      batch.fill_random(77);
      batch.b[at(5, 0)] = 0;   // system 5, row 0: zero pivot
      batch.a[at(9, 12)] = 0;  // system 9, row 12: pivot b - a c' = 0
      batch.b[at(9, 12)] = 0;
      batch.d[at(last_bad, 30)] = std::numeric_limits<T>::infinity();  // d' not finite at row 30
      DeviceBuffer<T> a(batch.a), b(batch.b), c(batch.c), d(batch.d);
      int* dinfo = nullptr;
      TRIAX_TEST_CUDA_OK(cudaMalloc(&dinfo, systems * sizeof(int)));
      for (Mode mode : all_modes) {
        for_each_accepting<T>(
            OperandLayouts(layout), axis,
            [&](Algorithm alg) {
              SCOPED_TRACE(std::string(to_string(alg)) + ", axis " + std::to_string(axis) + ", " +
                           to_string(mode));
              DeviceBuffer<T> x(batch.x), dd(batch.d);
              TRIAX_TEST_CUDA_OK(cudaMemset(x.get(), 0, batch.x.size() * sizeof(T)));
              TRIAX_TEST_CUDA_OK(cudaMemset(dinfo, 0xff, systems * sizeof(int)));
              Solver<T> s(Backend::cuda, layout, axis, {.algorithm = alg, .checked = true});
              switch (mode) {
                case Mode::in_place:
                  s.solve_in_place(a.get(), b.get(), c.get(), dd.get(), dinfo);
                  break;
                case Mode::separate:
                  s.solve(a.get(), b.get(), c.get(), d.get(), x.get(), dinfo);
                  break;
                case Mode::increment:
                  s.solve_increment(a.get(), b.get(), c.get(), d.get(), x.get(), dinfo);
                  break;
              }
              std::vector<int> info(systems, -1);
              TRIAX_TEST_CUDA_OK(
                  cudaMemcpy(info.data(), dinfo, systems * sizeof(int), cudaMemcpyDeviceToHost));
              for (std::int64_t k = 0; k < systems; ++k) {
                ASSERT_EQ(info[k], k == 5          ? 1
                                   : k == 9        ? 13
                                   : k == last_bad ? 31
                                                   : 0)
                    << "system " << k;
              }
            },
            /*checked=*/true);
      }
      TRIAX_TEST_CUDA_OK(cudaFree(dinfo));
    }
}

TYPED_TEST(CudaVsReference, PlansRejectAlgorithmsThatCannotRun) {
  using T = TypeParam;
  const auto layout = Layout::packed({40, 64});
  const auto expect_rejected = [&](Algorithm alg, int axis, bool checked) {
    try {
      Solver<T> s(Backend::cuda, layout, axis, {.algorithm = alg, .checked = checked});
      ADD_FAILURE() << to_string(alg) << " accepted on axis " << axis;
    } catch (const invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(to_string(alg)), std::string::npos) << e.what();
    }
  };
  expect_rejected(Algorithm::cpu_thomas, 0, false);  // another backend's
  expect_rejected(Algorithm::reference_thomas, 1, false);
  // The transposes need contiguous rows of d and x: not along axis 1.
  expect_rejected(Algorithm::cuda_thread_thomas_shared_transpose, 1, false);
  expect_rejected(Algorithm::cuda_thread_thomas_shuffle_transpose, 1, false);
  // Every forced CUDA algorithm that is accepted reports itself and its workspace.
  for (Algorithm alg : cuda_algorithms) {
    for (int axis = 0; axis < 2; ++axis) {
      try {
        Solver<T> s(Backend::cuda, layout, axis, {.algorithm = alg});
        if (alg != Algorithm::automatic) EXPECT_EQ(s.algorithm(), alg);
      } catch (const invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find(to_string(alg)), std::string::npos) << e.what();
      }
    }
  }
}

TYPED_TEST(CudaVsReference, WrongMemorySpaceIsRejected) {
  using T = TypeParam;
  const auto layout = Layout::packed({16, 4});
  Batch<T> batch{OperandLayouts(layout)};
  batch.fill_random(5);
  DeviceBuffer<T> dd(batch.d);
  Solver<T> gpu(Backend::cuda, layout, 0);
  try {
    gpu.solve(batch.a.data(), batch.b.data(), batch.c.data(), dd.get(), dd.get());
    ADD_FAILURE() << "host pointers accepted by the cuda backend";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("a is a host pointer"), std::string::npos) << e.what();
  }
  Solver<T> cpu(Backend::cpu, layout, 0);
  std::vector<T> x = batch.x;
  try {
    cpu.solve(batch.a.data(), batch.b.data(), batch.c.data(), dd.get(), x.data());
    ADD_FAILURE() << "a device pointer accepted by the cpu backend";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("d is a device pointer"), std::string::npos) << e.what();
  }
}

// Long systems along the last axis of 3-D and 4-D arrays (issue 30; BoundarySizes covers axis 1):
// the hybrid's long path in tiles whose chunks lie across a block's warps, with odd lengths and
// as many systems as leave a block's last systems empty. Every algorithm that takes them.
TYPED_TEST(CudaVsReference, LongSystemsAlongHigherAxes) {
  using T = TypeParam;
  std::vector<std::pair<Layout, int>> cases = {{Layout::packed({3, 2, 3, 4099}), 3}};
  if (!quick_mode()) cases.emplace_back(Layout::packed({5, 3, 10007}), 2);
  int k = 0;
  for (const auto& [layout, axis] : cases) {
    for_each_accepting<T>(OperandLayouts(layout), axis, [&](Algorithm alg) {
      SCOPED_TRACE(std::string(to_string(alg)));
      expect_matches_reference<T>(OperandLayouts(layout), axis, all_modes[k % 3],
                                  seed_of("long-axes", ++k), cuda_runner<T>(alg));
    });
  }
}

}  // namespace
}  // namespace triax::test
