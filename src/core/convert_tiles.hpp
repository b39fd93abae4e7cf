#pragma once
// How triax::layouts::convert cuts a conversion into tiles on the GPU (src/cuda/convert), kept
// backend-free so that a host test can replay the kernel's index arithmetic exactly
// (tests/core/convert_tiles_test.cpp).
//
// The dimensions are merged where both sides allow and ordered by the destination's strides.
// When the source's fastest dimension is the destination's too, the copy runs along rows. When
// it is not (Flat <-> Full-Interleaved, any axis of an N-D array, Unified-Vector components),
// the elements are grouped three ways:
// - A: the destination's fastest dimensions, from dimension 0 on, until they span a tile row
//   (32 elements): a tile's writes are one run of the destination per warp (or, where the
//   dimensions faster than the source's fastest span fewer, several runs: A skips that one);
// - B: the source's fastest dimension, then the next ones by source stride (not in A), until
//   they span a tile column (64 elements): a tile's reads are runs of the source;
// - outer: the rest, one tile after another.
// A group of several dimensions is what makes the four-operand Flat <-> Unified-Vector
// conversion coalesced: its component dimension (4 elements) alone would leave 28 of a tile's
// 32 lanes idle and read 16-byte pieces; together with the systems it spans 32 elements of a
// contiguous run. A tile position p of a group (0 <= p < size) maps to source and destination
// offsets by group_offsets; a group of one dimension needs no division.
//
// Runs (gpuconv, 2026-11-27): when dimension 0 is the fastest of both sides but short (at most
// convert_run_max elements: the M^2 entries of a block or the M of a vector in array of blocks
// <-> interleaved) and the source's next dimension is not the destination's, copying row by row
// reads runs of only dimension 0 (16 bytes in float at M = 2, half of each 32-byte sector, and
// one element per thread between barriers): 26-29% of the copy in float on the H100. The plan
// then treats each run as one wide element and transposes them: A = the destination's next
// dimension, B = the source's next one, tiles of run x run_ta x run_tb elements (at most
// convert_run_tile), each side spanning at least 32 elements where its extent allows, so that
// both the loads (run, B) and the stores (run, A) are contiguous stretches of whole sectors.
//
// Wide elements (gpuconv2, 2026-11-27): where dimension 0 is contiguous on both sides (the
// block entries of array of blocks <-> interleaved, any row copy), `widen` consecutive elements
// move as one (a float pair as one 8-byte element) if the run and every other stride are
// multiples of widen. The float runs tiles then hold the bytes in flight of the double ones:
// 8 loads of 8 bytes a thread instead of 4 (round 1 measured float at 79-80% of the copy
// against double's 81-91% on the same plan). The caller checks the pointers' alignment.
//
// Pair tiles (gpuconv2): a float transpose whose source is contiguous along B and destination
// along A (Flat <-> Full-Interleaved; structure of arrays <-> array of blocks, M^2 entries on the
// narrow side), both extents even and every other stride even: each thread loads a 2 x 2 corner
// as two 8-byte pairs along B and stores pairs along A, 4096 floats a tile, 8 loads of 8 bytes a
// thread (64 bytes in flight, as double) where the float tiles move 4 bytes a load. Shared
// memory holds the tile by pairs of A rows, (pa, pb) at (pa / 2) pair_pitch + 2 pb + pa % 2, so
// that a store's pair (pa, pa + 1) at pb is one 8-byte word.
#include <cstdint>

#include "core/problem.hpp"  // TRIAX_HOST_DEVICE
#include "triax/layout.hpp"

namespace triax::detail {

inline constexpr int convert_tile_a = 32;         // A positions per tile (one warp's store run)
inline constexpr int convert_tile_b = 64;         // B positions per tile (two warps' load runs)
inline constexpr int convert_run_max = 128;       // longest run that the runs plan takes
inline constexpr int convert_run_tile = 2048;     // elements per runs tile (8 per thread)
inline constexpr int convert_run_buffer = 3072;   // shared-memory elements of a runs tile, padded
inline constexpr int convert_pair_tile = 4096;    // floats per pair tile (8 pairs per thread)
inline constexpr int convert_pair_buffer = 6144;  // shared-memory floats of a pair tile, padded

struct ConvertGroup {
  int count = 0;
  int dim[max_rank] = {};  // fastest first
};

struct ConvertTiles {
  int rank = 0;
  std::int64_t extent[max_rank] = {}, src[max_rank] = {}, dst[max_rank] = {};
  bool tiled = false;        // false: rows of dimension 0, the fastest of both sides
  bool runs = false;         // not tiled: short rows transposed as whole runs (see above)
  ConvertGroup a, b, outer;  // tiled or runs only
  std::int64_t size_a = 1, size_b = 1, size_outer = 1;
  // runs only: tile extents along A and B, and the shared-memory pitch of one A position
  // (run_tb runs plus padding that keeps a warp's stores, A fastest, off each other's banks).
  int run_ta = 0, run_tb = 0, run_pitch = 0;
  bool run_offsets32 = false;  // every offset inside a runs tile, either side, below 2^31
  int widen = 1;  // elements per planned element: offsets and strides count groups of these
  // pair tiles (tiled, widen requested, see above): tile extents (powers of two, product
  // convert_pair_tile) and the shared-memory floats per pair of A rows.
  bool pairs = false;
  int pair_ta = 0, pair_tb = 0, pair_pitch = 0;
};

/// The plan of a conversion of `from` into `to` (same rank and extents, already checked). With
/// widen > 1, the plan moves groups of `widen` elements where the layouts allow (t.widen says
/// whether it did; offsets and strides then count groups), else single elements.
ConvertTiles plan_convert_tiles(const Layout& from, const Layout& to, int widen = 1);

/// Source and destination offsets of position p (0 <= p < the group's size) of group g.
TRIAX_HOST_DEVICE inline void group_offsets(const ConvertTiles& t, const ConvertGroup& g,
                                            std::int64_t p, std::int64_t& so, std::int64_t& dof) {
  so = 0;
  dof = 0;
  for (int k = 0; k < g.count; ++k) {
    const int dim = g.dim[k];
    std::int64_t i = p;
    if (k + 1 < g.count) {  // the group's last dimension takes the rest: no division
      i = p % t.extent[dim];
      p /= t.extent[dim];
    }
    so += i * t.src[dim];
    dof += i * t.dst[dim];
  }
}

/// k / d for 0 <= k < 2048 and 1 <= d <= 1024 by a multiply and a shift (the narrow tiles'
/// positions, once per element, where a division would cost more than the copy): with
/// m = ceil(2^21 / d) = (2^21 + r) / d, 0 <= r < d, k m / 2^21 = k / d + k r / (d 2^21), and
/// k r < 2^21 keeps the excess below 1 / d, so the floor is exact; k m < 2^32 fits 32 bits.
struct DividePow21 {
  std::uint32_t m;
  TRIAX_HOST_DEVICE explicit DividePow21(int d)
      : m(static_cast<std::uint32_t>(((std::uint32_t(1) << 21) + std::uint32_t(d) - 1) /
                                     std::uint32_t(d))) {}
  TRIAX_HOST_DEVICE int operator()(int k) const {
    return static_cast<int>((static_cast<std::uint32_t>(k) * m) >> 21);
  }
};

/// Element k (0 <= k < w x inner_n x outer_n) of a runs tile in one side's order, the run
/// fastest, then the side's next dimension (inner), then the other (outer): by_w divides by w,
/// by_inner by inner_n (k < convert_run_tile keeps both exact).
TRIAX_HOST_DEVICE inline void run_coords(int k, int w, const DividePow21& by_w, int inner_n,
                                         const DividePow21& by_inner, int& e, int& inner,
                                         int& outer) {
  const int m = by_w(k);
  e = k - m * w;
  outer = by_inner(m);
  inner = m - outer * inner_n;
}

// Tiles in the order every tile kernel walks them (src/cuda/convert/tile_loop.cuh).

/// One tile: the offsets of its outer position (relative to the layouts' first elements), its
/// first positions along A and B, and how many it holds (the tile's extents, or fewer at the end
/// of a group).
struct TileAt {
  std::int64_t so = 0, dof = 0, a0 = 0, b0 = 0;
  int na = 0, nb = 0;
};

/// The tile counts of a plan cut into ta x tb tiles.
struct TileCounts {
  std::int64_t a, b;
  bool fits32;  // every tile number below 2^32
  TRIAX_HOST_DEVICE TileCounts(const ConvertTiles& d, int ta, int tb)
      : a((d.size_a + ta - 1) / ta),
        b((d.size_b + tb - 1) / tb),
        fits32(a * b * d.size_outer < (std::int64_t(1) << 32)) {}
  TRIAX_HOST_DEVICE std::int64_t total(const ConvertTiles& d) const { return a * b * d.size_outer; }
};

TRIAX_HOST_DEVICE inline TileAt tile_at(const ConvertTiles& d, int ta, int tb, std::int64_t so,
                                        std::int64_t dof, std::int64_t ia, std::int64_t ib) {
  TileAt t;
  t.so = so;
  t.dof = dof;
  t.a0 = ia * ta;
  t.b0 = ib * tb;
  t.na = static_cast<int>(d.size_a - t.a0 < ta ? d.size_a - t.a0 : ta);
  t.nb = static_cast<int>(d.size_b - t.b0 < tb ? d.size_b - t.b0 : tb);
  return t;
}

/// Tile number t (0 <= t < n.total) in for_each_tile's order: A fastest, then B, then outer.
TRIAX_HOST_DEVICE inline TileAt locate_tile(const ConvertTiles& d, int ta, int tb,
                                            const TileCounts& n, std::int64_t t) {
  std::int64_t ia, ib, o;
  if (n.fits32) {
    // 32-bit divisions (a 64-bit one costs several times more, once a tile in a streamed kernel)
    const auto u = static_cast<std::uint32_t>(t), na = static_cast<std::uint32_t>(n.a),
               nb = static_cast<std::uint32_t>(n.b), rest = u / na;
    ia = u - rest * na;
    o = rest / nb;
    ib = rest - static_cast<std::uint32_t>(o) * nb;
  } else {
    ia = t % n.a;
    const std::int64_t rest = t / n.a;
    ib = rest % n.b;
    o = rest / n.b;
  }
  std::int64_t so, dof;
  group_offsets(d, d.outer, o, so, dof);
  return tile_at(d, ta, tb, so, dof, ia, ib);
}

/// The grid of a streamed kernel (src/cuda/convert/streamed_convert.cu) for `tiles` tiles and
/// `resident` blocks resident at once: the fewest blocks that walk ceil(tiles / resident) tiles
/// each (block b takes tiles b, b + grid, ...), so that no block walks a last tile alone.
inline std::int64_t streamed_grid(std::int64_t tiles, std::int64_t resident) {
  if (tiles <= 0 || resident <= 0) return 1;
  const std::int64_t per_block = (tiles + resident - 1) / resident;
  return (tiles + per_block - 1) / per_block;
}

}  // namespace triax::detail
