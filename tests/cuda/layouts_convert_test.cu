// triax::layouts::convert on the GPU against an element-wise loop: paper 002's three layouts
// into each other, and N-D arrays with the component dimension anywhere. SKIPPED without a
// device.
#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>
#include <numeric>
#include <random>
#include <string>

#include "support/device_runner.hpp"
#include "support/quick_mode.hpp"
#include "triax/block.hpp"
#include "triax/layouts.hpp"

namespace triax::test {
namespace {

template <class T>
void expect_device_convert(const Layout& from, const Layout& to) {
  std::vector<T> src(buffer_size(from)), dst(buffer_size(to), std::numeric_limits<T>::quiet_NaN());
  for (std::size_t k = 0; k < src.size(); ++k) src[k] = static_cast<T>(k % 1000003);
  std::vector<T> want = dst;
  // The element-wise loop: every logical index, in the layouts' own terms.
  std::vector<std::int64_t> idx(from.rank(), 0);
  if (from.size() > 0) {
    while (true) {
      want[to.offset_of(idx)] = src[from.offset_of(idx)];
      int k = 0;
      while (k < from.rank() && ++idx[k] == from.extent(k)) idx[k++] = 0;
      if (k == from.rank()) break;
    }
  }
  DeviceBuffer<T> ds(src), dd(dst);
  ASSERT_TRUE(ds.get() && dd.get());
  layouts::convert<T>(Backend::cuda, from, ds.get(), to, dd.get());
  TRIAX_TEST_CUDA_OK(cudaDeviceSynchronize());
  dd.download(dst);
  EXPECT_TRUE(same_bits(dst, want));
}

template <class T>
class CudaConvert : public NeedsDevice<> {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CudaConvert, Types);

TYPED_TEST(CudaConvert, PaperLayoutsIntoEachOther) {
  const std::int64_t n = 100, count = 1037;
  const OperandLayouts u = layouts::unified_vector(n, count);
  const Layout all[] = {layouts::flat(n, count), layouts::interleaved(n, count), u.a, u.d};
  for (const Layout& from : all) {
    for (const Layout& to : all) expect_device_convert<TypeParam>(from, to);
  }
}

TYPED_TEST(CudaConvert, NdComponentsAnywhere) {
  const std::int64_t e[] = {33, 20, 7};
  const int o1[] = {0, 1, 2}, o2[] = {2, 0, 1}, o3[] = {1, 2, 0};
  for (int where = 0; where <= 3; ++where) {
    expect_device_convert<TypeParam>(layouts::component(e, o1, 3, where, 2),
                                     layouts::component(e, o2, 4, 3 - where, 1));
    expect_device_convert<TypeParam>(layouts::component(e, o3, 2, where, 0),
                                     layouts::ordered(e, o1));
  }
  // A sub-array of a padded allocation to a packed one.
  expect_device_convert<TypeParam>(Layout::padded({30, 31, 5}, {34, 33, 6}, {2, 1, 1}),
                                   Layout::packed({30, 31, 5}));
}

// The four operands of a Flat batch (a, b, c, d one after another in one buffer) into one
// Unified-Vector buffer and back as one rank-3 conversion (tiles over groups of two dimensions),
// at sizes that leave partial tiles on both sides, and a 3-D array transposed on its middle axis.
TYPED_TEST(CudaConvert, FourOperandsAndGroupedTiles) {
  for (const std::int64_t n : {1, 33, 100}) {
    for (const std::int64_t count : {1, 31, 1037}) {
      const Layout flat4 = Layout::strided({4, n, count}, {n * count, 1, n});
      const Layout unified4 = Layout::strided({4, n, count}, {1, 4 * count, 4});
      expect_device_convert<TypeParam>(flat4, unified4);
      expect_device_convert<TypeParam>(unified4, flat4);
    }
  }
  expect_device_convert<TypeParam>(layouts::ordered({65, 3, 97}, {0, 1, 2}),
                                   layouts::ordered({65, 3, 97}, {2, 1, 0}));
}

// Short rows whose next dimension differs on the two sides (the runs plan, transpose_runs):
// runs of 2..130 elements (130: past the plan's longest, the row kernels), partial tiles on both
// sides, outer dimensions, and a strided run (a component dimension of stride 3).
TYPED_TEST(CudaConvert, RunsTransposed) {
  // TRIAX_TEST_QUICK (compute-sanitizer): fewer tiles along A, every path still reached.
  const std::int64_t x = quick_mode() ? 70 : 300;
  for (const std::int64_t w : {2, 3, 4, 9, 25, 49, 64, 100, 128, 130}) {
    SCOPED_TRACE(w);
    expect_device_convert<TypeParam>(layouts::ordered({w, x, 77}, {0, 1, 2}),
                                     layouts::ordered({w, x, 77}, {0, 2, 1}));
    expect_device_convert<TypeParam>(layouts::ordered({w, 5, 33, 7}, {0, 3, 1, 2}),
                                     layouts::ordered({w, 5, 33, 7}, {0, 1, 2, 3}));
  }
  std::mt19937_64 rng(27);
  for (int trial = 0; trial < 12; ++trial) {
    const std::int64_t w = std::uniform_int_distribution<std::int64_t>(2, 40)(rng);
    const std::int64_t x = std::uniform_int_distribution<std::int64_t>(1, 70)(rng);
    const std::int64_t y = std::uniform_int_distribution<std::int64_t>(1, 70)(rng);
    SCOPED_TRACE(trial);
    const Layout strided = Layout::strided({w, x, y}, {3, 3 * w * y, 3 * w});
    expect_device_convert<TypeParam>(strided, Layout::packed({w, x, y}));
    expect_device_convert<TypeParam>(Layout::packed({w, x, y}), strided);
  }
}

// Float pairs as one 8-byte element (gpuconv2): even runs moved as pairs (runs plan, and a run
// of one pair transposed by the tile kernels), an odd first element (even strides: the plan
// widens, the pointer is misaligned, so single elements), odd strides, and row copies. Double
// takes the same shapes on single elements.
TYPED_TEST(CudaConvert, PairsAlignedAndShifted) {
  const std::int64_t x = quick_mode() ? 23 : 97, y = 41;  // compute-sanitizer: smaller arrays
  for (const std::int64_t w : {2, 4, 6, 16, 64, 130}) {
    SCOPED_TRACE(w);
    expect_device_convert<TypeParam>(layouts::ordered({w, x, y}, {0, 1, 2}),
                                     layouts::ordered({w, x, y}, {0, 2, 1}));
    expect_device_convert<TypeParam>(layouts::ordered({w, x, y}, {0, 2, 1}),
                                     layouts::ordered({w, x, y}, {0, 1, 2}));
    expect_device_convert<TypeParam>(Layout::padded({w, x, y}, {w + 2, x, y}, {1, 0, 0}),
                                     layouts::ordered({w, x, y}, {0, 2, 1}));
    expect_device_convert<TypeParam>(layouts::ordered({w, x, y}, {0, 2, 1}),
                                     Layout::padded({w, x, y}, {w + 1, x, y}, {0, 0, 0}));
    expect_device_convert<TypeParam>(Layout::padded({w, x, y}, {w, x + 2, y}, {0, 1, 0}),
                                     Layout::packed({w, x, y}));
  }
}

// Pair tiles (gpuconv2, float; double takes the same shapes on its own tiles): Flat <->
// Full-Interleaved at even sizes (64 x 64 tiles, partial ones) and odd (the float tiles),
// structure of arrays <-> array of blocks at even M on an even grid (narrow tiles of either
// side, M = 6 and 8 on 64 x 64), ghost layers (even and odd offsets).
TYPED_TEST(CudaConvert, PairTiles) {
  const bool quick = quick_mode();
  const std::int64_t big = quick ? 1030 : 4098;
  for (const std::int64_t n : {2, 64, 100, 129}) {
    for (const std::int64_t b : {std::int64_t(2), std::int64_t(130), big}) {
      SCOPED_TRACE(testing::Message() << n << " x " << b);
      expect_device_convert<TypeParam>(layouts::flat(n, b), layouts::interleaved(n, b));
      expect_device_convert<TypeParam>(layouts::interleaved(n, b), layouts::flat(n, b));
    }
  }
  const std::vector<std::int64_t> e = {quick ? 30 : 126, 34};
  for (int m : {2, 3, 4, 6, 8}) {
    SCOPED_TRACE(m);
    const BlockLayouts soa = BlockLayouts::structure_of_arrays(m, e);
    const BlockLayouts aob = BlockLayouts::array_of_blocks(m, e);
    const BlockLayouts ghost =
        BlockLayouts::structure_of_arrays(m, e, {e[0] + 2, e[1] + 1}, {1, 0});
    for (const auto& [from, to] :
         {std::pair{soa, aob}, std::pair{aob, soa}, std::pair{ghost, aob}, std::pair{aob, ghost}}) {
      expect_device_convert<TypeParam>(from.a, to.a);
      expect_device_convert<TypeParam>(from.d, to.d);
    }
  }
}

// The float pair tiles over many tiles: Flat <-> Full-Interleaved at 512 x 12800 (1600 tiles of
// 64 x 64) and at sizes with partial tiles; an odd first element keeps single floats. Double runs
// the same shapes on its own tiles. (Written for conv27's streamed pair kernel, which was measured
// slower and removed; the shapes stay as a test of the pair tiles.)
TYPED_TEST(CudaConvert, ManyPairTiles) {
  // Partial tiles along A (130, 2050) and B (1100, 110); over 528 tiles each. TRIAX_TEST_QUICK
  // (the sanitizers, which cap the streamed grid at a few blocks: TRIAX_CUDA_CONVERT_STREAM_BLOCKS)
  // takes a tenth along B.
  const std::int64_t tenth = quick_mode() ? 10 : 1;
  const std::int64_t sizes[][2] = {
      {512, 12800 / tenth}, {130, 40002 / tenth}, {2050, 1100 / tenth}};
  for (const auto& [n, b] : sizes) {
    SCOPED_TRACE(testing::Message() << n << " x " << b);
    expect_device_convert<TypeParam>(layouts::flat(n, b), layouts::interleaved(n, b));
    expect_device_convert<TypeParam>(layouts::interleaved(n, b), layouts::flat(n, b));
  }
  // Odd offsets (the first element of an odd index): misaligned pairs, single floats.
  const std::int64_t n = 130, b = 1026;
  const Layout flat_odd = Layout::strided({n, b}, {1, n}, 1);
  const Layout il_odd = Layout::strided({n, b}, {b, 1}, 3);
  expect_device_convert<TypeParam>(flat_odd, layouts::interleaved(n, b));
  expect_device_convert<TypeParam>(il_odd, layouts::flat(n, b));
  expect_device_convert<TypeParam>(layouts::flat(n, b), il_odd);
}

TEST(CudaConvertChecks, HostPointersRejected) {
  TRIAX_NEED_DEVICE();
  std::vector<float> a(16), b(16);
  EXPECT_THROW(layouts::convert<float>(Backend::cuda, layouts::flat(4, 4), a.data(),
                                       layouts::interleaved(4, 4), b.data()),
               invalid_argument);
}

}  // namespace
}  // namespace triax::test
