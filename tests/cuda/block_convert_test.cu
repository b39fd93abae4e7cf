// triax::layouts::convert on the GPU between the three block layouts (array of blocks,
// structure of arrays, interleaved along each axis), block and vector operands, M = 1..8, float
// and double, packed and with ghost layers: the device result must equal, bit for bit, the host
// conversion (triax::convert) into a destination poisoned with NaN alike, ghosts included.
// SKIPPED without a device.
#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "support/device_runner.hpp"
#include "support/problems.hpp"
#include "support/quick_mode.hpp"
#include "triax/block.hpp"
#include "triax/layouts.hpp"

namespace triax::test {
namespace {

// src_shift, dst_shift: the layouts start that many elements into the device buffers (an odd
// shift leaves float pairs misaligned: the device then moves single floats).
template <class T>
void expect_same_as_host(const Layout& from, const Layout& to, const std::string& what,
                         int src_shift = 0, int dst_shift = 0) {
  std::vector<T> src(buffer_size(from) + src_shift);
  for (std::size_t k = 0; k < src.size(); ++k) src[k] = static_cast<T>(k % 1000003) + T(0.5);
  std::vector<T> dst(buffer_size(to) + dst_shift, std::numeric_limits<T>::quiet_NaN());
  std::vector<T> want = dst;
  triax::convert(from, src.data() + src_shift, to, want.data() + dst_shift);
  DeviceBuffer<T> ds(src), dd(dst);
  ASSERT_TRUE(ds.get() && dd.get());
  layouts::convert<T>(Backend::cuda, from, ds.get() + src_shift, to, dd.get() + dst_shift);
  TRIAX_TEST_CUDA_OK(cudaDeviceSynchronize());
  dd.download(dst);
  EXPECT_TRUE(same_bits(dst, want)) << what;
}

// The layouts of one grid: array of blocks, structure of arrays and interleaved along each axis.
std::vector<std::pair<std::string, BlockLayouts>> all_layouts(
    int m, const std::vector<std::int64_t>& extents, const std::vector<std::int64_t>& allocated,
    const std::vector<std::int64_t>& begin) {
  std::vector<std::pair<std::string, BlockLayouts>> out;
  out.emplace_back("aob", BlockLayouts::array_of_blocks(m, extents, allocated, begin));
  out.emplace_back("soa", BlockLayouts::structure_of_arrays(m, extents, allocated, begin));
  for (int axis = 0; axis < static_cast<int>(extents.size()); ++axis) {
    out.emplace_back("interleaved" + std::to_string(axis),
                     BlockLayouts::interleaved(m, extents, axis, allocated, begin));
  }
  return out;
}

template <class T>
void every_pair(int m, const std::vector<std::int64_t>& extents,
                const std::vector<std::int64_t>& allocated = {},
                const std::vector<std::int64_t>& begin = {}) {
  const auto all = all_layouts(m, extents, allocated, begin);
  for (const auto& [from_name, from] : all) {
    for (const auto& [to_name, to] : all) {
      const std::string what = "M " + std::to_string(m) + ", " + from_name + " -> " + to_name;
      expect_same_as_host<T>(from.a, to.a, what + " (blocks)");
      expect_same_as_host<T>(from.d, to.d, what + " (vectors)");
    }
  }
}

template <class T>
class CudaBlockConvert : public NeedsDevice<> {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CudaBlockConvert, Types);

// Sizes that leave partial tiles and partial groups of short rows.
TYPED_TEST(CudaBlockConvert, EveryPairEveryM2d) {
  for (int m = 1; m <= 8; ++m) {
    if (quick_mode() && m != 1 && m != 3 && m != 8) continue;
    every_pair<TypeParam>(m, {37, 29});
    every_pair<TypeParam>(m, {1, 70});
  }
}

TYPED_TEST(CudaBlockConvert, EveryPairEveryAxis3dAnd4d) {
  for (int m : {2, 5}) every_pair<TypeParam>(m, {9, 7, 11});
  if (!quick_mode()) every_pair<TypeParam>(4, {5, 3, 6, 4});
}

// Ghost layers on both sides: the device writes no element outside the destination layout.
TYPED_TEST(CudaBlockConvert, GhostLayersUntouched) {
  for (int m : {1, 2, 4, 7}) {
    if (quick_mode() && (m == 1 || m == 4)) continue;
    every_pair<TypeParam>(m, {13, 10, 6}, {17, 12, 7}, {2, 1, 0});
  }
}

// A conversion big enough for many blocks of each kernel, on a 1-D grid (one system).
TYPED_TEST(CudaBlockConvert, LongOneDimensional) {
  for (int m : {2, 8}) every_pair<TypeParam>(m, {quick_mode() ? 3001 : 40001});
}

// The streamed kernels (conv27, src/cuda/convert/streamed_convert.cu): array of blocks <->
// interleaved moves runs of M^2 (blocks) or M (vectors) elements; those of at most 32 bytes run
// on resident blocks that walk several tiles each. M = 1..8 on odd extents (partial tiles), with
// ghost layers, with the layouts shifted by one element in the device buffers (float pairs
// misaligned: single floats, runs of 4..32 bytes) and, at M = 2, a grid of over 700 tiles, more
// than an H100's resident blocks (132 SMs x 4), so that blocks take several tiles each (quick:
// M = 2, 3, 8 along axis 0 and a smaller grid, the sanitizer runs capping the streamed grid).
// TRIAX_CUDA_CONVERT_V3=0 runs the same cases on the kernels before.
TYPED_TEST(CudaBlockConvert, StreamedRunsEveryM) {
  const std::vector<std::int64_t> e = {67, 45}, alloc = {70, 47}, begin = {1, 2};
  for (int m = 1; m <= 8; ++m) {
    if (quick_mode() && m != 2 && m != 3 && m != 8) continue;  // the sanitizer runs
    // Axis 1 (the slowest) makes interleaved the array of blocks itself: a plain copy, kept
    // out of the quick runs.
    for (int axis = 0; axis < (quick_mode() ? 1 : 2); ++axis) {
      const BlockLayouts side[] = {BlockLayouts::array_of_blocks(m, e),
                                   BlockLayouts::interleaved(m, e, axis),
                                   BlockLayouts::array_of_blocks(m, e, alloc, begin),
                                   BlockLayouts::interleaved(m, e, axis, alloc, begin)};
      for (int f = 0; f < 4; ++f) {
        for (int t = 0; t < 4; ++t) {
          if (f % 2 == t % 2) continue;  // aob <-> interleaved only
          const std::string what = "M " + std::to_string(m) + ", axis " + std::to_string(axis) +
                                   ", " + std::to_string(f) + " -> " + std::to_string(t);
          for (const auto& [ss, ds] : {std::pair{0, 0}, std::pair{1, 0}, std::pair{0, 1}}) {
            const std::string shifted =
                what + ", shifts " + std::to_string(ss) + "/" + std::to_string(ds);
            expect_same_as_host<TypeParam>(side[f].a, side[t].a, shifted + " (blocks)", ss, ds);
            expect_same_as_host<TypeParam>(side[f].d, side[t].d, shifted + " (vectors)", ss, ds);
          }
        }
      }
    }
  }
  // Several tiles a resident block: M = 2 (runs of 16 and 32 bytes), float pairs and doubles.
  const std::vector<std::int64_t> big =
      quick_mode() ? std::vector<std::int64_t>{130, 70} : std::vector<std::int64_t>{1030, 700};
  const BlockLayouts aob = BlockLayouts::array_of_blocks(2, big);
  const BlockLayouts il = BlockLayouts::interleaved(2, big, 0);
  expect_same_as_host<TypeParam>(aob.a, il.a, "M 2, big, aob -> il");
  expect_same_as_host<TypeParam>(il.a, aob.a, "M 2, big, il -> aob");
  expect_same_as_host<TypeParam>(il.a, aob.a, "M 2, big, il -> aob, shifted", 1, 0);
}

}  // namespace
}  // namespace triax::test
