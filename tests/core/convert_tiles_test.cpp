// The GPU conversion's tiling (core/convert_tiles.hpp) replayed on the host: for random pairs of
// N-D layouts (any storage order, a component dimension anywhere, padding, offsets), every
// element the kernels would move lands where the element-wise definition puts it, exactly once,
// and the groups are what makes the tiles coalesced for paper 002's layouts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "core/convert_tiles.hpp"
#include "support/problems.hpp"
#include "triax/block.hpp"
#include "triax/layouts.hpp"

namespace triax {
namespace {

using detail::convert_tile_a;
using detail::convert_tile_b;
using detail::ConvertTiles;

// What device_convert's two kernels write, as (destination offset, source offset) pairs, in the
// kernels' own index arithmetic (offsets relative to each layout's first element).
// transpose_runs, tile by tile and thread by thread: the source element each load reads, the
// shared-memory slot it goes to, and where the store of that slot writes. Every slot a store
// reads must have been written by a load of the same tile, and every slot lies in the buffer.
void replay_runs(const ConvertTiles& t, std::vector<std::pair<std::int64_t, std::int64_t>>& moves) {
  constexpr int threads = 256, per_thread = detail::convert_run_tile / threads;
  const int w = static_cast<int>(t.extent[0]);
  ASSERT_LE(w * t.run_ta * t.run_tb, detail::convert_run_tile);
  ASSERT_LE(t.run_ta * t.run_pitch, detail::convert_run_buffer);
  const detail::DividePow21 by_w(w);
  const int ia = t.a.dim[0], ib = t.b.dim[0];
  for (std::int64_t o = 0; o < t.size_outer; ++o) {
    std::int64_t so, dof;
    detail::group_offsets(t, t.outer, o, so, dof);
    for (std::int64_t b0 = 0; b0 < t.size_b; b0 += t.run_tb) {
      for (std::int64_t a0 = 0; a0 < t.size_a; a0 += t.run_ta) {
        const int na = static_cast<int>(std::min<std::int64_t>(t.run_ta, t.size_a - a0));
        const int nb = static_cast<int>(std::min<std::int64_t>(t.run_tb, t.size_b - b0));
        const int count = w * na * nb;
        const detail::DividePow21 by_na(na), by_nb(nb);
        std::vector<std::int64_t> slot(detail::convert_run_buffer, -1);  // source offset held
        for (int tid = 0; tid < threads; ++tid) {
          for (int r = 0; r < per_thread; ++r) {
            const int k = tid + r * threads;
            if (k >= count) continue;
            int e, pa, pb;
            detail::run_coords(k, w, by_w, nb, by_nb, e, pb, pa);
            const int at = pa * t.run_pitch + pb * w + e;
            ASSERT_TRUE(at >= 0 && at < detail::convert_run_buffer);
            ASSERT_EQ(slot[at], -1);  // no two loads of a tile share a slot
            slot[at] = so + (a0 + pa) * t.src[ia] + (b0 + pb) * t.src[ib] + e * t.src[0];
          }
        }
        for (int tid = 0; tid < threads; ++tid) {
          for (int r = 0; r < per_thread; ++r) {
            const int k = tid + r * threads;
            if (k >= count) continue;
            int e, pa, pb;
            detail::run_coords(k, w, by_w, na, by_na, e, pa, pb);
            const int at = pa * t.run_pitch + pb * w + e;
            ASSERT_TRUE(at >= 0 && at < detail::convert_run_buffer);
            ASSERT_NE(slot[at], -1);
            moves.push_back(
                {dof + (a0 + pa) * t.dst[ia] + (b0 + pb) * t.dst[ib] + e * t.dst[0], slot[at]});
          }
        }
      }
    }
  }
}

// transpose_pairs, thread by thread: every 2 x 2 corner a load takes (both 8-byte loads at even
// offsets), the buffer slots its two 8-byte stores fill, and every pair a store reads (an even
// slot, both written by the tile's loads) and where it goes (an even offset).
void replay_pairs(const ConvertTiles& t,
                  std::vector<std::pair<std::int64_t, std::int64_t>>& moves) {
  constexpr int threads = 256, corners = detail::convert_pair_tile / 4 / threads;
  ASSERT_EQ(t.pair_ta * t.pair_tb, detail::convert_pair_tile);
  ASSERT_LE(t.pair_ta / 2 * t.pair_pitch, detail::convert_pair_buffer);
  ASSERT_EQ(t.pair_pitch % 2, 0);
  const int ia = t.a.dim[0], ib = t.b.dim[0];
  ASSERT_EQ(t.src[ib], 1);
  ASSERT_EQ(t.dst[ia], 1);
  const std::int64_t sa = t.src[ia], db = t.dst[ib];
  for (std::int64_t o = 0; o < t.size_outer; ++o) {
    std::int64_t so, dof;
    detail::group_offsets(t, t.outer, o, so, dof);
    for (std::int64_t b0 = 0; b0 < t.size_b; b0 += t.pair_tb) {
      for (std::int64_t a0 = 0; a0 < t.size_a; a0 += t.pair_ta) {
        const int ha = static_cast<int>(std::min<std::int64_t>(t.pair_ta, t.size_a - a0)) / 2;
        const int hb = static_cast<int>(std::min<std::int64_t>(t.pair_tb, t.size_b - b0)) / 2;
        const int count = ha * hb;
        const detail::DividePow21 by_hb(hb), by_ha(ha);
        const std::int64_t s = so + a0 * sa + b0, d = dof + a0 + b0 * db;
        std::vector<std::int64_t> slot(detail::convert_pair_buffer, -1);
        for (int tid = 0; tid < threads; ++tid) {
          for (int r = 0; r < corners; ++r) {
            const int u = tid + r * threads, i = by_hb(u), j = u - i * hb;
            if (u >= count) continue;
            const std::int64_t p = s + (2 * i) * sa + 2 * j;
            ASSERT_EQ(p % 2, 0);
            ASSERT_EQ((p + sa) % 2, 0);
            const int q = i * t.pair_pitch + 4 * j;
            ASSERT_TRUE(q >= 0 && q + 3 < detail::convert_pair_buffer);
            const std::int64_t got[4] = {p, p + sa, p + 1, p + sa + 1};
            for (int c = 0; c < 4; ++c) {
              ASSERT_EQ(slot[q + c], -1);
              slot[q + c] = got[c];
            }
          }
        }
        for (int tid = 0; tid < threads; ++tid) {
          for (int r = 0; r < 2 * corners; ++r) {
            const int k = tid + r * threads, pb = by_ha(k), i = k - pb * ha;
            if (k >= 2 * count) continue;
            const int q = i * t.pair_pitch + 2 * pb;
            const std::int64_t to = d + 2 * i + pb * db;
            ASSERT_EQ(q % 2, 0);
            ASSERT_EQ(to % 2, 0);
            ASSERT_TRUE(q >= 0 && q + 1 < detail::convert_pair_buffer);
            ASSERT_NE(slot[q], -1);
            ASSERT_NE(slot[q + 1], -1);
            moves.push_back({to, slot[q]});
            moves.push_back({to + 1, slot[q + 1]});
          }
        }
      }
    }
  }
}

std::vector<std::pair<std::int64_t, std::int64_t>> replay(const ConvertTiles& t) {
  std::vector<std::pair<std::int64_t, std::int64_t>> moves;
  if (t.pairs) {
    replay_pairs(t, moves);
    return moves;
  }
  if (t.runs) {
    replay_runs(t, moves);
    return moves;
  }
  if (!t.tiled) {
    std::int64_t outer = 1;
    for (int k = 1; k < t.rank; ++k) outer *= t.extent[k];
    for (std::int64_t o = 0; o < outer; ++o) {
      std::int64_t so = 0, dof = 0, rest = o;
      for (int k = 1; k < t.rank; ++k) {
        so += rest % t.extent[k] * t.src[k];
        dof += rest % t.extent[k] * t.dst[k];
        rest /= t.extent[k];
      }
      for (std::int64_t i = 0; i < t.extent[0]; ++i) {
        moves.push_back({dof + i * t.dst[0], so + i * t.src[0]});
      }
    }
    return moves;
  }
  const bool simple = t.a.count == 1 && t.b.count == 1;
  for (std::int64_t o = 0; o < t.size_outer; ++o) {
    std::int64_t so, dof;
    detail::group_offsets(t, t.outer, o, so, dof);
    for (std::int64_t b0 = 0; b0 < t.size_b; b0 += convert_tile_b) {
      for (std::int64_t a0 = 0; a0 < t.size_a; a0 += convert_tile_a) {
        for (std::int64_t pb = b0; pb < std::min(t.size_b, b0 + convert_tile_b); ++pb) {
          for (std::int64_t pa = a0; pa < std::min(t.size_a, a0 + convert_tile_a); ++pa) {
            std::int64_t as, ad, bs, bd;
            if (simple) {
              as = pa * t.src[t.a.dim[0]];
              ad = pa * t.dst[t.a.dim[0]];
              bs = pb * t.src[t.b.dim[0]];
              bd = pb * t.dst[t.b.dim[0]];
            } else {
              detail::group_offsets(t, t.a, pa, as, ad);
              detail::group_offsets(t, t.b, pb, bs, bd);
            }
            moves.push_back({dof + ad + bd, so + as + bs});
          }
        }
      }
    }
  }
  return moves;
}

// The plan's moves in single elements: a widened plan (gpuconv2) moves groups of t.widen
// consecutive elements, its offsets counting groups.
std::vector<std::pair<std::int64_t, std::int64_t>> replay_elements(const ConvertTiles& t) {
  const auto wide = replay(t);
  if (t.widen == 1) return wide;
  std::vector<std::pair<std::int64_t, std::int64_t>> moves;
  for (const auto& [d, s] : wide) {
    for (int j = 0; j < t.widen; ++j) moves.push_back({d * t.widen + j, s * t.widen + j});
  }
  return moves;
}

// Every plan the device may run: single elements, and pairs (float, where the layouts allow).
void expect_replay_matches(const Layout& from, const Layout& to, int widen);
void expect_replay_matches(const Layout& from, const Layout& to) {
  expect_replay_matches(from, to, 1);
  // A pair plan that neither widens nor takes pair tiles is the single-element plan.
  const ConvertTiles t = detail::plan_convert_tiles(from, to, 2);
  if (t.widen == 2 || t.pairs) expect_replay_matches(from, to, 2);
}

void expect_replay_matches(const Layout& from, const Layout& to, int widen) {
  SCOPED_TRACE(testing::Message() << "widen " << widen);
  const ConvertTiles t = detail::plan_convert_tiles(from, to, widen);
  ASSERT_TRUE(t.widen == 1 || t.widen == widen);
  auto got = replay_elements(t);
  std::vector<std::pair<std::int64_t, std::int64_t>> want;
  std::vector<std::int64_t> idx(from.rank(), 0);
  if (from.size() > 0) {
    while (true) {
      want.push_back({to.offset_of(idx) - to.offset(), from.offset_of(idx) - from.offset()});
      int k = 0;
      while (k < from.rank() && ++idx[k] == from.extent(k)) idx[k++] = 0;
      if (k == from.rank()) break;
    }
  }
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  ASSERT_EQ(got.size(), want.size());
  EXPECT_TRUE(got == want);  // each destination element once, from its own source element
}

std::vector<int> random_order(std::mt19937_64& rng, int rank) {
  std::vector<int> o(rank);
  std::iota(o.begin(), o.end(), 0);
  std::shuffle(o.begin(), o.end(), rng);
  return o;
}

TEST(ConvertTiles, PaperLayoutsIntoEachOther) {
  const std::int64_t n = 70, count = 45;
  const OperandLayouts u = layouts::unified_vector(n, count);
  const Layout all[] = {layouts::flat(n, count), layouts::interleaved(n, count), u.a, u.d};
  for (const Layout& from : all) {
    for (const Layout& to : all) expect_replay_matches(from, to);
  }
}

TEST(ConvertTiles, RandomComponentArrangements) {
  std::mt19937_64 rng(31);
  for (int trial = 0; trial < 300; ++trial) {
    const int rank = std::uniform_int_distribution<int>(1, 4)(rng);
    std::vector<std::int64_t> e(rank);
    for (auto& x : e) x = std::uniform_int_distribution<std::int64_t>(1, rank > 2 ? 9 : 80)(rng);
    const std::int64_t comps = std::uniform_int_distribution<std::int64_t>(1, 5)(rng);
    const auto o1 = random_order(rng, rank), o2 = random_order(rng, rank);
    const int w1 = std::uniform_int_distribution<int>(0, rank)(rng);
    const int w2 = std::uniform_int_distribution<int>(0, rank)(rng);
    const std::int64_t k1 = std::uniform_int_distribution<std::int64_t>(0, comps - 1)(rng);
    SCOPED_TRACE(trial);
    expect_replay_matches(layouts::component(e, o1, comps, w1, k1),
                          layouts::component(e, o2, comps + 1, w2, 0));
    expect_replay_matches(layouts::ordered(e, o1), layouts::component(e, o2, comps, w2, k1));
  }
}

// The four operands of a Flat batch (one buffer, a, b, c, d one after another) into one
// Unified-Vector buffer and back, as one rank-3 conversion: the groups must span whole runs.
TEST(ConvertTiles, FourOperandsGroupTheComponentWithTheSystems) {
  const std::int64_t n = 100, count = 300;
  const Layout flat4 = Layout::strided({4, n, count}, {n * count, 1, n});
  const Layout unified4 = Layout::strided({4, n, count}, {1, 4 * count, 4});
  expect_replay_matches(flat4, unified4);
  expect_replay_matches(unified4, flat4);
  const ConvertTiles in = detail::plan_convert_tiles(flat4, unified4);
  ASSERT_TRUE(in.tiled);
  EXPECT_EQ(in.a.count, 2);  // component and system: 4 x count contiguous destination values
  EXPECT_EQ(in.b.count, 1);  // the rows, contiguous in the source
  const ConvertTiles out = detail::plan_convert_tiles(unified4, flat4);
  EXPECT_EQ(out.a.count, 1);
  EXPECT_EQ(out.b.count, 2);
  // Flat <-> Full-Interleaved: one dimension each (the kernel's table-free path).
  const ConvertTiles fi =
      detail::plan_convert_tiles(layouts::flat(n, count), layouts::interleaved(n, count));
  EXPECT_TRUE(fi.tiled && fi.a.count == 1 && fi.b.count == 1);
}

TEST(ConvertTiles, PaddedAndOffsetSubArrays) {
  expect_replay_matches(Layout::padded({30, 31, 5}, {34, 33, 6}, {2, 1, 1}),
                        Layout::packed({30, 31, 5}));
  expect_replay_matches(Layout::packed({30, 31, 5}), layouts::ordered({30, 31, 5}, {2, 0, 1}));
  expect_replay_matches(Layout::packed({1, 1, 7}), Layout::packed({1, 1, 7}));
}

// The three block layouts (array of blocks, structure of arrays, interleaved along each axis)
// into each other, blocks and vectors, M = 1..8, packed and with ghost layers.
TEST(ConvertTiles, BlockLayoutsIntoEachOther) {
  const std::vector<std::vector<std::int64_t>> grids = {{37, 29}, {9, 7, 5}, {70}};
  for (int m = 1; m <= 8; ++m) {
    for (const auto& e : grids) {
      std::vector<BlockLayouts> all = {BlockLayouts::array_of_blocks(m, e),
                                       BlockLayouts::structure_of_arrays(m, e)};
      for (int axis = 0; axis < static_cast<int>(e.size()); ++axis) {
        all.push_back(BlockLayouts::interleaved(m, e, axis));
      }
      std::vector<std::int64_t> alloc(e), begin(e.size(), 1);
      for (auto& x : alloc) x += 3;
      all.push_back(BlockLayouts::structure_of_arrays(m, e, alloc, begin));
      for (const BlockLayouts& from : all) {
        for (const BlockLayouts& to : all) {
          SCOPED_TRACE(m);
          expect_replay_matches(from.a, to.a);
          expect_replay_matches(from.d, to.d);
        }
      }
    }
  }
}

// Structure of arrays -> array of blocks at M = 2: only the 4 block entries are faster than the
// source's fastest dimension in the destination. Packed, the grid merges into one dimension and
// A stays 4 wide (the kernel's narrow tiles); with ghost layers the grid dimensions stay apart
// and A takes the slower one as well, so that tile rows are full.
TEST(ConvertTiles, SmallBlocksFillTileRows) {
  const std::vector<std::int64_t> e = {128, 300};
  const ConvertTiles packed = detail::plan_convert_tiles(BlockLayouts::structure_of_arrays(2, e).a,
                                                         BlockLayouts::array_of_blocks(2, e).a);
  ASSERT_TRUE(packed.tiled);
  EXPECT_EQ(packed.size_a, 4);
  EXPECT_EQ(packed.size_b, 128 * 300);
  const ConvertTiles padded =
      detail::plan_convert_tiles(BlockLayouts::structure_of_arrays(2, e, {130, 301}, {1, 0}).a,
                                 BlockLayouts::array_of_blocks(2, e).a);
  ASSERT_TRUE(padded.tiled);
  EXPECT_EQ(padded.a.count, 2);
  EXPECT_GE(padded.size_a, convert_tile_a);
  EXPECT_GE(padded.size_b, convert_tile_b);
}
// The narrow tiles' division, over its whole domain.
TEST(ConvertTiles, DividePow21IsExact) {
  for (int d = 1; d <= 1024; ++d) {
    const detail::DividePow21 by(d);
    for (int k = 0; k < 2048; ++k) ASSERT_EQ(by(k), k / d) << k << " / " << d;
  }
}

// Array of blocks -> structure of arrays at M = 2, packed: the source's fastest group is the
// 4 block entries alone (the kernel's narrow tiles, 512 x 4).
TEST(ConvertTiles, SmallBlocksNarrowColumns) {
  const std::vector<std::int64_t> e = {128, 300};
  const ConvertTiles t = detail::plan_convert_tiles(BlockLayouts::array_of_blocks(2, e).a,
                                                    BlockLayouts::structure_of_arrays(2, e).a);
  ASSERT_TRUE(t.tiled);
  EXPECT_EQ(t.size_b, 4);
  EXPECT_EQ(t.size_a, 128 * 300);
}

}  // namespace
}  // namespace triax

namespace triax {
namespace {

// Array of blocks <-> interleaved (gpuconv): the blocks (M^2 entries) or vectors (M) move whole,
// so the plan is a runs plan, and its tiles span at least 32 elements on both sides (the
// destination's next dimension x the run, the source's next dimension x the run).
TEST(ConvertTiles, BlockRunsSpanWholeSectors) {
  for (int m = 2; m <= 8; ++m) {
    for (int axis = 0; axis < 2; ++axis) {
      const std::vector<std::int64_t> e = {128, 4096};
      const BlockLayouts aob = BlockLayouts::array_of_blocks(m, e);
      const BlockLayouts il = BlockLayouts::interleaved(m, e, axis);
      for (const auto& [from, to] : {std::pair{aob.a, il.a}, std::pair{il.a, aob.a},
                                     std::pair{aob.d, il.d}, std::pair{il.d, aob.d}}) {
        SCOPED_TRACE(testing::Message() << "m " << m << " axis " << axis);
        const ConvertTiles t = detail::plan_convert_tiles(from, to);
        if (axis == 1) {  // interleaved along the slowest axis is array of blocks itself
          EXPECT_FALSE(t.runs || t.tiled);
          continue;
        }
        ASSERT_TRUE(t.runs);
        EXPECT_FALSE(t.tiled);
        const int w = static_cast<int>(t.extent[0]);
        EXPECT_TRUE(w == m * m || w == m);
        EXPECT_GE(w * t.run_ta, convert_tile_a);
        EXPECT_GE(w * t.run_tb, convert_tile_a);
        EXPECT_GE(w * t.run_ta * t.run_tb, detail::convert_run_tile / 2);
        EXPECT_EQ(t.run_pitch % 32, w % 32);  // padded: a warp's stores on distinct banks
      }
    }
  }
}

// The runs plan against the element-wise definition on awkward shapes: runs of 2..128
// elements, edges of partial tiles on both sides, outer dimensions, strided runs, one-wide
// next dimensions.
TEST(ConvertTiles, RunsReplayEveryElementOnce) {
  std::mt19937_64 rng(27);
  int runs = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const std::int64_t w = std::uniform_int_distribution<std::int64_t>(2, 130)(rng);
    const int rank = std::uniform_int_distribution<int>(3, 4)(rng);
    std::vector<std::int64_t> e = {w};
    for (int k = 1; k < rank; ++k) {
      e.push_back(std::uniform_int_distribution<std::int64_t>(1, rank > 3 ? 7 : 45)(rng));
    }
    std::vector<int> o2(rank - 1);
    std::iota(o2.begin(), o2.end(), 1);
    std::shuffle(o2.begin(), o2.end(), rng);
    o2.insert(o2.begin(), 0);  // the run stays the fastest dimension of both sides
    SCOPED_TRACE(trial);
    const Layout from = Layout::packed(e), to = layouts::ordered(e, o2);
    runs += detail::plan_convert_tiles(from, to).runs ? 1 : 0;
    expect_replay_matches(from, to);
    expect_replay_matches(to, from);
  }
  EXPECT_GT(runs, 50);  // the trials do reach the runs plan
}

}  // namespace
}  // namespace triax

namespace triax {
namespace {

// The GPU test CudaConvert.RunsTransposed's shapes reach the runs plan (all but w = 130, past
// convert_run_max, and the strided trials whose one-wide dimensions leave nothing to transpose).
TEST(ConvertTiles, RunsShapesOfTheGpuTest) {
  for (const std::int64_t w : {2, 3, 4, 9, 25, 49, 64, 100, 128, 130}) {
    const ConvertTiles t = detail::plan_convert_tiles(layouts::ordered({w, 300, 77}, {0, 1, 2}),
                                                      layouts::ordered({w, 300, 77}, {0, 2, 1}));
    EXPECT_EQ(t.runs, w <= detail::convert_run_max) << w;
  }
  const Layout strided = Layout::strided({5, 20, 30}, {3, 3 * 5 * 30, 3 * 5});
  const ConvertTiles t = detail::plan_convert_tiles(strided, Layout::packed({5, 20, 30}));
  EXPECT_TRUE(t.runs);
  expect_replay_matches(strided, Layout::packed({5, 20, 30}));
  expect_replay_matches(Layout::packed({5, 20, 30}), strided);
}

}  // namespace
}  // namespace triax

namespace triax {
namespace {

// Pairs (gpuconv2): array of blocks <-> interleaved moves float pairs as one element where the
// run (M^2 entries, or M for vectors) is even; an odd run or an odd stride keeps single
// elements. A vector of M = 2 is one pair: its dimension drops out and the plan transposes pairs.
TEST(ConvertTiles, PairsWherePlansAllow) {
  const std::vector<std::int64_t> e = {128, 4096};
  for (int m = 1; m <= 8; ++m) {
    const BlockLayouts aob = BlockLayouts::array_of_blocks(m, e);
    const BlockLayouts il = BlockLayouts::interleaved(m, e, 0);
    SCOPED_TRACE(m);
    const ConvertTiles a = detail::plan_convert_tiles(aob.a, il.a, 2);
    const ConvertTiles d = detail::plan_convert_tiles(il.d, aob.d, 2);
    EXPECT_EQ(a.widen, m % 2 == 0 ? 2 : 1);
    EXPECT_EQ(d.widen, m % 2 == 0 ? 2 : 1);
    if (m % 2 == 0) {
      EXPECT_TRUE(a.runs);
      EXPECT_EQ(a.extent[0], m * m / 2);
      EXPECT_TRUE(m == 2 ? d.tiled : d.runs);
    }
  }
  // Odd strides: single elements.
  const Layout odd = Layout::padded({4, 30, 5}, {5, 30, 5}, {0, 0, 0});
  EXPECT_EQ(detail::plan_convert_tiles(odd, layouts::ordered({4, 30, 5}, {0, 2, 1}), 2).widen, 1);
  expect_replay_matches(odd, layouts::ordered({4, 30, 5}, {0, 2, 1}));
  // Even strides with an odd first element: the plan widens, the device checks the pointers.
  const Layout shifted = Layout::padded({4, 30, 5}, {6, 30, 5}, {1, 0, 0});
  EXPECT_EQ(detail::plan_convert_tiles(shifted, layouts::ordered({4, 30, 5}, {0, 2, 1}), 2).widen,
            2);
  expect_replay_matches(shifted, layouts::ordered({4, 30, 5}, {0, 2, 1}));
}

// Pair tiles (gpuconv2): the float transposes whose source runs along B and destination along A
// with even extents and strides (Flat <-> Full-Interleaved, structure of arrays <-> array of
// blocks at even sizes) take them, in the three shapes (narrow A, narrow B, 64 x 64); an odd
// extent does not.
TEST(ConvertTiles, PairTilesWherePlansAllow) {
  const auto pairs = [](const Layout& from, const Layout& to) {
    const ConvertTiles t = detail::plan_convert_tiles(from, to, 2);
    return t.pairs ? std::pair{t.pair_ta, t.pair_tb} : std::pair{0, 0};
  };
  EXPECT_EQ(pairs(layouts::flat(100, 4096), layouts::interleaved(100, 4096)), std::pair(64, 64));
  EXPECT_EQ(pairs(layouts::interleaved(100, 4096), layouts::flat(100, 4096)), std::pair(64, 64));
  EXPECT_EQ(pairs(layouts::flat(100, 1037), layouts::interleaved(100, 1037)), std::pair(0, 0));
  const std::vector<std::int64_t> e = {62, 30};  // partial tiles at every M
  for (int m = 2; m <= 8; m += 2) {
    SCOPED_TRACE(m);
    const auto soa = BlockLayouts::structure_of_arrays(m, e);
    const auto aob = BlockLayouts::array_of_blocks(m, e);
    int n = 2;  // the narrow side's tile extent: the power of two >= M^2, at most 64
    while (n < m * m && n < 64) n *= 2;
    EXPECT_EQ(pairs(soa.a, aob.a), std::pair(n, detail::convert_pair_tile / n));
    EXPECT_EQ(pairs(aob.a, soa.a), std::pair(detail::convert_pair_tile / n, n));
    expect_replay_matches(soa.a, aob.a);
    expect_replay_matches(aob.a, soa.a);
    expect_replay_matches(soa.d, aob.d);
    expect_replay_matches(aob.d, soa.d);
  }
  EXPECT_EQ(pairs(BlockLayouts::structure_of_arrays(3, e).a, BlockLayouts::array_of_blocks(3, e).a),
            std::pair(0, 0));
  for (const std::int64_t n : {2, 6, 64, 100}) {
    for (const std::int64_t b : {2, 62, 130, 1030}) {
      SCOPED_TRACE(testing::Message() << n << " x " << b);
      expect_replay_matches(layouts::flat(n, b), layouts::interleaved(n, b));
      expect_replay_matches(layouts::interleaved(n, b), layouts::flat(n, b));
    }
  }
}

}  // namespace
}  // namespace triax

namespace triax {
namespace {

// The streamed kernels (conv27, src/cuda/convert/streamed_convert.cu) walk tiles t = block,
// block + grid, ... located by locate_tile: over every block of streamed_grid's grid, each tile
// of the plan exactly once, located as the nested walk of the other tile kernels (for_each_tile,
// the order the replays above follow) locates it; the grid never passes the resident blocks nor
// the tiles, and no block walks more than ceil(tiles / resident) tiles.
void expect_streamed_walk(const ConvertTiles& t, int ta, int tb) {
  const detail::TileCounts n(t, ta, tb);
  const std::int64_t tiles = n.total(t);
  std::vector<detail::TileAt> nested;
  for (std::int64_t o = 0; o < t.size_outer; ++o) {
    std::int64_t so, dof;
    detail::group_offsets(t, t.outer, o, so, dof);
    for (std::int64_t ib = 0; ib < n.b; ++ib) {
      for (std::int64_t ia = 0; ia < n.a; ++ia) {
        nested.push_back(detail::tile_at(t, ta, tb, so, dof, ia, ib));
      }
    }
  }
  ASSERT_EQ(static_cast<std::int64_t>(nested.size()), tiles);
  for (const std::int64_t resident : {1, 7, 100, 528, 1 << 20}) {
    SCOPED_TRACE(resident);
    const std::int64_t grid = detail::streamed_grid(tiles, resident);
    EXPECT_GE(grid, 1);
    EXPECT_LE(grid, std::min(tiles, resident));
    const std::int64_t most = (tiles + resident - 1) / resident;
    std::vector<int> seen(static_cast<std::size_t>(tiles), 0);
    for (std::int64_t block = 0; block < grid; ++block) {
      std::int64_t walked = 0;
      for (std::int64_t k = block; k < tiles; k += grid) {
        ++walked;
        ++seen[static_cast<std::size_t>(k)];
        const detail::TileAt x = detail::locate_tile(t, ta, tb, n, k), &y = nested[k];
        ASSERT_TRUE(x.so == y.so && x.dof == y.dof && x.a0 == y.a0 && x.b0 == y.b0 &&
                    x.na == y.na && x.nb == y.nb)
            << "tile " << k;
        ASSERT_TRUE(x.na >= 1 && x.na <= ta && x.nb >= 1 && x.nb <= tb);
      }
      EXPECT_LE(walked, most);
    }
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), tiles);
  }
}

TEST(ConvertTiles, StreamedWalkTakesEveryTileOnce) {
  int runs = 0, pairs = 0, outer = 0;
  // Runs plans: array of blocks <-> interleaved at M = 2 (runs of 16 and 32 bytes, the streamed
  // kernel's), single elements and float pairs, packed and with ghost layers, odd extents.
  for (const auto& e : {std::vector<std::int64_t>{67, 45}, std::vector<std::int64_t>{1030, 70}}) {
    const std::vector<std::int64_t> alloc = {e[0] + 3, e[1] + 2}, begin = {1, 2};
    const BlockLayouts sides[] = {BlockLayouts::array_of_blocks(2, e),
                                  BlockLayouts::interleaved(2, e, 0),
                                  BlockLayouts::array_of_blocks(2, e, alloc, begin),
                                  BlockLayouts::interleaved(2, e, 0, alloc, begin)};
    for (int f = 0; f < 4; ++f) {
      for (int to = 0; to < 4; ++to) {
        if (f % 2 == to % 2) continue;
        for (const int widen : {1, 2}) {
          for (const bool vectors : {false, true}) {
            const ConvertTiles t = detail::plan_convert_tiles(
                vectors ? sides[f].d : sides[f].a, vectors ? sides[to].d : sides[to].a, widen);
            if (!t.runs) continue;
            SCOPED_TRACE(testing::Message() << e[0] << " x " << e[1] << ", " << f << " -> " << to
                                            << ", widen " << widen << ", vectors " << vectors);
            ++runs;
            expect_streamed_walk(t, t.run_ta, t.run_tb);
          }
        }
      }
    }
  }
  // Runs with an outer dimension (the source's order w, y, x, z; the destination's w, x, y, z:
  // A = x, B = y, outer = z).
  for (const std::int64_t w : {2, 4, 9}) {
    const ConvertTiles t = detail::plan_convert_tiles(layouts::ordered({w, 5, 33, 7}, {0, 2, 1, 3}),
                                                      Layout::packed({w, 5, 33, 7}));
    ASSERT_TRUE(t.runs);
    outer += t.size_outer > 1 ? 1 : 0;
    expect_streamed_walk(t, t.run_ta, t.run_tb);
  }
  // Square pair tiles: Flat <-> Full-Interleaved with partial tiles on either side.
  for (const std::int64_t n : {64, 130, 512}) {
    for (const std::int64_t b : {64, 1100, 2600}) {
      for (const auto& [from, to] : {std::pair{layouts::flat(n, b), layouts::interleaved(n, b)},
                                     std::pair{layouts::interleaved(n, b), layouts::flat(n, b)}}) {
        const ConvertTiles t = detail::plan_convert_tiles(from, to, 2);
        ASSERT_TRUE(t.pairs);
        ASSERT_EQ(t.pair_ta, 64);
        ASSERT_EQ(t.pair_tb, 64);
        SCOPED_TRACE(testing::Message() << n << " x " << b);
        ++pairs;
        expect_streamed_walk(t, t.pair_ta, t.pair_tb);
      }
    }
  }
  EXPECT_GT(runs, 8);
  EXPECT_EQ(pairs, 18);
  EXPECT_GT(outer, 0);
  // The bench's Flat <-> Full-Interleaved float (512 x 25600: 3200 tiles) on 528 resident blocks
  // (an H100: 132 SMs x 4): 458 blocks of 7 tiles, none left with a last tile alone.
  EXPECT_EQ(detail::streamed_grid(3200, 528), 458);
  EXPECT_EQ(detail::streamed_grid(100, 528), 100);
  EXPECT_EQ(detail::streamed_grid(1056, 528), 528);
}

// locate_tile past 2^32 tiles (64-bit divisions) and just below (32-bit): a plan made by hand,
// the outer offset equal to the outer position, against the mixed-radix digits of t.
TEST(ConvertTiles, LocateTileBothWidths) {
  for (const std::int64_t outer : {std::int64_t(1000), std::int64_t(1) << 30}) {
    ConvertTiles t;
    t.rank = 3;
    t.extent[0] = 3 * 64 + 5;
    t.extent[1] = 7 * 64 + 1;
    t.extent[2] = outer;
    t.src[0] = t.dst[0] = t.src[1] = t.dst[1] = 0;
    t.src[2] = t.dst[2] = 1;
    t.a.count = t.b.count = t.outer.count = 1;
    t.a.dim[0] = 0;
    t.b.dim[0] = 1;
    t.outer.dim[0] = 2;
    t.size_a = t.extent[0];
    t.size_b = t.extent[1];
    t.size_outer = outer;
    const detail::TileCounts n(t, 64, 64);
    EXPECT_EQ(n.fits32, outer == 1000);
    std::mt19937_64 rng(31);
    for (int trial = 0; trial < 2000; ++trial) {
      const std::int64_t k = std::uniform_int_distribution<std::int64_t>(0, n.total(t) - 1)(rng);
      const detail::TileAt x = detail::locate_tile(t, 64, 64, n, k);
      const std::int64_t ia = k % 4, ib = k / 4 % 8, o = k / 32;
      ASSERT_TRUE(x.a0 == 64 * ia && x.b0 == 64 * ib && x.so == o && x.dof == o) << k;
      ASSERT_EQ(x.na, ia == 3 ? 5 : 64);
      ASSERT_EQ(x.nb, ib == 7 ? 1 : 64);
    }
  }
}

}  // namespace
}  // namespace triax
