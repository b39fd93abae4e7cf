// triax::convert's host paths (src/cpu/block_tridiag/convert.cpp) against a naive element loop:
// tiles cut at ragged edges (extents that are no multiple of the tile or of the 4 x 4 / 2 x 2
// register squares), runs of whole blocks, source strides that are not 1, ghost layers, and
// outputs of more than 8 MiB (streamed stores), each element moved once to its place and every
// other destination element left as it was.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "triax/block.hpp"
#include "triax/layouts.hpp"

namespace triax::test {
namespace {

// Offsets of every logical element of `l`, dimension 0 fastest.
std::vector<std::int64_t> offsets_of(const Layout& l) {
  std::vector<std::int64_t> out;
  if (l.size() == 0) return out;
  out.reserve(static_cast<std::size_t>(l.size()));
  std::vector<std::int64_t> idx(static_cast<std::size_t>(l.rank()), 0);
  for (;;) {
    std::int64_t o = l.offset();
    for (int k = 0; k < l.rank(); ++k) o += idx[k] * l.stride(k);
    out.push_back(o);
    int k = 0;
    while (k < l.rank() && ++idx[k] == l.extent(k)) idx[k++] = 0;
    if (k == l.rank()) return out;
  }
}

std::int64_t span_of(const std::vector<std::int64_t>& offsets) {
  std::int64_t top = 0;
  for (const std::int64_t o : offsets) top = std::max(top, o + 1);
  return top;
}

template <class T>
void expect_naive_copy(const Layout& from, const Layout& to, const std::string& what) {
  const std::vector<std::int64_t> of = offsets_of(from), ot = offsets_of(to);
  ASSERT_EQ(of.size(), ot.size());
  // Sources distinct and exact in float (k < 2^24 where it matters: values wrap at 2^23).
  std::vector<T> src(static_cast<std::size_t>(span_of(of)), T(-7));
  for (std::size_t k = 0; k < of.size(); ++k) src[of[k]] = static_cast<T>(k % (1 << 23));
  const T ghost = T(-99);
  std::vector<T> dst(static_cast<std::size_t>(span_of(ot)), ghost);
  convert(from, src.data(), to, dst.data());
  std::vector<char> logical(dst.size(), 0);
  for (std::size_t k = 0; k < ot.size(); ++k) {
    logical[ot[k]] = 1;
    ASSERT_EQ(dst[ot[k]], src[of[k]]) << what << ": element " << k;
  }
  for (std::size_t o = 0; o < dst.size(); ++o) {
    if (!logical[o]) ASSERT_EQ(dst[o], ghost) << what << ": ghost at " << o << " written";
  }
}

template <class T>
class ConvertPaths : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ConvertPaths, ValueTypes);

// Block operands with ragged extents and ghost layers: array of blocks <-> structure of arrays
// (a 2-D transpose of single elements in tiles), <-> interleaved (runs of whole blocks).
TYPED_TEST(ConvertPaths, BlockLayoutsWithRaggedTilesAndGhosts) {
  using T = TypeParam;
  const std::vector<std::int64_t> grid = {67, 9, 5}, alloc = {70, 11, 6}, begin = {1, 2, 0};
  for (const int m : {1, 3, 5}) {
    const auto aob = BlockLayouts::array_of_blocks(m, grid, alloc, begin);
    const auto soa = BlockLayouts::structure_of_arrays(m, grid, alloc, begin);
    const auto packed = BlockLayouts::array_of_blocks(m, grid);
    std::vector<std::pair<std::string, Layout>> others = {{"soa", soa.a}, {"aob packed", packed.a}};
    for (int axis = 0; axis < 3; ++axis) {
      others.emplace_back("interleaved" + std::to_string(axis),
                          BlockLayouts::interleaved(m, grid, axis, alloc, begin).a);
    }
    for (const auto& [name, l] : others) {
      expect_naive_copy<T>(aob.a, l, "m " + std::to_string(m) + " aob -> " + name);
      expect_naive_copy<T>(l, aob.a, "m " + std::to_string(m) + " " + name + " -> aob");
    }
    expect_naive_copy<T>(soa.d, aob.d, "m " + std::to_string(m) + " vector soa -> aob");
  }
}

// Paper 002's layouts: Flat <-> Full-Interleaved (register squares with partial strips and
// rows), one Unified-Vector component (strided destination rows), all four operands at once,
// and systems padded apart (a source stride that is not the extent).
TYPED_TEST(ConvertPaths, PaperLayoutsAtOddSizes) {
  using T = TypeParam;
  for (const auto& [n, count] : {std::pair<std::int64_t, std::int64_t>{37, 1029}, {5, 3}, {1, 70}, {70, 1}}) {
    const std::string at = std::to_string(n) + " x " + std::to_string(count);
    const Layout flat = layouts::flat(n, count), il = layouts::interleaved(n, count);
    const auto u = layouts::unified_vector(n, count);
    expect_naive_copy<T>(flat, il, "flat -> interleaved " + at);
    expect_naive_copy<T>(il, flat, "interleaved -> flat " + at);
    expect_naive_copy<T>(flat, u.b, "flat -> unified.b " + at);
    expect_naive_copy<T>(u.d, il, "unified.d -> interleaved " + at);
    const Layout flat4 = Layout::strided({4, n, count}, {n * count, 1, n});
    const Layout unified4 = Layout::strided({4, n, count}, {1, 4 * count, 4});
    expect_naive_copy<T>(flat4, unified4, "flat4 -> unified " + at);
    expect_naive_copy<T>(unified4, flat4, "unified -> flat4 " + at);
    const Layout gapped = Layout::strided({n, count}, {1, n + 3}, 2);
    expect_naive_copy<T>(gapped, il, "gapped flat -> interleaved " + at);
    expect_naive_copy<T>(il, gapped, "interleaved -> gapped flat " + at);
    const Layout il_gapped = Layout::strided({n, count}, {count + 5, 1}, 1);
    expect_naive_copy<T>(flat, il_gapped, "flat -> gapped interleaved " + at);
  }
}

// Outputs above 8 MiB take the streaming stores: aligned and one element off alignment.
TYPED_TEST(ConvertPaths, LargeOutputsStreamedWholeAndUnaligned) {
  using T = TypeParam;
  const std::int64_t n = 515, count = (std::int64_t(9) << 20) / (n * std::int64_t(sizeof(T))) + 3;
  const Layout flat = layouts::flat(n, count), il = layouts::interleaved(n, count);
  expect_naive_copy<T>(flat, il, "flat -> interleaved, large");
  expect_naive_copy<T>(il, Layout::strided({n, count}, {1, n}, 1),
                       "interleaved -> flat, large, offset 1");
  const auto aob = BlockLayouts::array_of_blocks(3, {65, 66, 33});
  const auto soa = BlockLayouts::structure_of_arrays(3, {65, 66, 33});
  expect_naive_copy<T>(aob.a, soa.a, "aob -> soa, large");
  expect_naive_copy<T>(soa.a, aob.a, "soa -> aob, large");
  expect_naive_copy<T>(aob.a, BlockLayouts::interleaved(3, {65, 66, 33}, 0).a,
                       "aob -> interleaved0, large");
  // A contiguous copy (no tile): the row path's streamed chunks.
  expect_naive_copy<T>(flat, Layout::strided({n, count}, {1, n}, 3), "flat -> flat, offset 3");
}

// Round 2 paths. A transpose of few long runs (array of blocks -> interleaved along axis 1 of a
// grid whose axes 1 and 2 are short) is cut into more tiles than it has threads' worth: 37 x 20
// runs made 2 tiles of 32 x 20, now at least 4 (ragged ones), at any thread count. Structure
// of arrays -> array of blocks writes each tile as one destination run, streamed above 8 MiB
// (M = 2: blocks of 16 or 32 bytes; M = 5: 100 or 200 bytes, no multiple of a line).
TYPED_TEST(ConvertPaths, FewLongRunsSplitAndWholeTileRuns) {
  using T = TypeParam;
  for (const int m : {2, 3}) {
    const std::vector<std::int64_t> grid = {3, 37, 20};
    const auto aob = BlockLayouts::array_of_blocks(m, grid);
    const auto il1 = BlockLayouts::interleaved(m, grid, 1);
    expect_naive_copy<T>(aob.a, il1.a, "m " + std::to_string(m) + " aob -> interleaved1");
    expect_naive_copy<T>(il1.a, aob.a, "m " + std::to_string(m) + " interleaved1 -> aob");
  }
  for (const int m : {2, 5}) {
    const std::int64_t points = (std::int64_t(9) << 20) / (m * m * std::int64_t(sizeof(T)));
    const std::vector<std::int64_t> grid = {61, points / 61 + 1};
    const auto aob = BlockLayouts::array_of_blocks(m, grid);
    const auto soa = BlockLayouts::structure_of_arrays(m, grid);
    expect_naive_copy<T>(soa.a, aob.a, "m " + std::to_string(m) + " soa -> aob, large");
    const auto soa_ghost = BlockLayouts::structure_of_arrays(m, {7, 5}, {9, 6}, {1, 1});
    expect_naive_copy<T>(soa_ghost.a, BlockLayouts::array_of_blocks(m, {7, 5}).a,
                         "m " + std::to_string(m) + " soa with ghosts -> aob");
  }
}

// Round 3 paths (TRIAX_CONVERT_ROUND unset or 3; ctest under TRIAX_CONVERT_ROUND=2 runs round
// 2 on the same cases). Source rows pages apart take L2 tiles read a line of rows at a time:
// structure of arrays -> array of blocks at every M (rows 4-64 grids apart, ghost layers, a
// ragged last tile and group), Flat x4 <-> Unified-Vector and Full-Interleaved -> Flat with
// odd extents. Array of blocks <-> interleaved streams 16- and 32-byte runs above 8 MiB: every
// axis, aligned and one element off.
TYPED_TEST(ConvertPaths, Round3FarRowsAndStreamedShortRuns) {
  using T = TypeParam;
  for (int m = 2; m <= 8; ++m) {
    const std::string at = "m " + std::to_string(m);
    const auto soa = BlockLayouts::structure_of_arrays(m, {67, 33, 9}, {70, 35, 10}, {1, 1, 0});
    const auto aob = BlockLayouts::array_of_blocks(m, {67, 33, 9});
    expect_naive_copy<T>(soa.a, aob.a, at + " soa with ghosts -> aob");
    expect_naive_copy<T>(aob.a, soa.a, at + " aob -> soa with ghosts");
    expect_naive_copy<T>(soa.d, aob.d, at + " vector soa with ghosts -> aob");
  }
  for (const auto& [n, count] : {std::pair<std::int64_t, std::int64_t>{37, 4099}, {515, 1031}}) {
    const std::string at = std::to_string(n) + " x " + std::to_string(count);
    const Layout flat4 = Layout::strided({4, n, count}, {n * count, 1, n});
    const Layout unified4 = Layout::strided({4, n, count}, {1, 4 * count, 4}, 2);
    expect_naive_copy<T>(flat4, unified4, "flat4 -> unified " + at);
    expect_naive_copy<T>(unified4, flat4, "unified -> flat4 " + at);
    expect_naive_copy<T>(layouts::interleaved(n, count), layouts::flat(n, count),
                         "interleaved -> flat " + at);
  }
  for (const int m : {2, 3}) {
    const std::int64_t points = (std::int64_t(9) << 20) / (m * m * std::int64_t(sizeof(T)));
    const std::vector<std::int64_t> grid = {67, 131, points / (67 * 131) + 1};
    const auto aob = BlockLayouts::array_of_blocks(m, grid);
    for (int axis = 0; axis < 3; ++axis) {
      const std::string at = "m " + std::to_string(m) + " interleaved" + std::to_string(axis);
      const Layout il = BlockLayouts::interleaved(m, grid, axis).a;
      expect_naive_copy<T>(aob.a, il, "aob -> " + at);
      expect_naive_copy<T>(il, aob.a, at + " -> aob");
      std::vector<std::int64_t> e, st;
      for (int k = 0; k < il.rank(); ++k) {
        e.push_back(il.extent(k));
        st.push_back(il.stride(k));
      }
      const Layout off = Layout::strided(e, st, il.offset() + 1);
      expect_naive_copy<T>(aob.a, off, "aob -> " + at + ", offset 1");
    }
  }
}

}  // namespace
}  // namespace triax::test
