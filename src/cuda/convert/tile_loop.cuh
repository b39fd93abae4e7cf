#pragma once
// The walk over a conversion plan's tiles that every tile kernel of src/cuda/convert shares: the
// outer positions, the B tiles and the A tiles of a plan (core/convert_tiles.hpp), each tile
// located as the source and destination offsets of its first element and its extents, which a
// partial tile at the end of A or B cuts short.
// - for_each_tile: the grid's z, y, x stride the outer positions, B tiles and A tiles, one block
//   per tile where the grid covers them (tile_grid sizes it);
// - locate_tile: tile number t of the same order (A fastest, then B, then outer), for kernels
//   whose blocks walk a list of tiles (the streamed kernels keep the next tile's loads in
//   flight while they store the current one).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/convert_tiles.hpp"

namespace triax::detail {

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
  __host__ __device__ TileCounts(const ConvertTiles& d, int ta, int tb)
      : a((d.size_a + ta - 1) / ta), b((d.size_b + tb - 1) / tb) {}
  __host__ __device__ std::int64_t total(const ConvertTiles& d) const {
    return a * b * d.size_outer;
  }
};

__device__ __forceinline__ TileAt tile_at(const ConvertTiles& d, int ta, int tb, std::int64_t so,
                                          std::int64_t dof, std::int64_t ia, std::int64_t ib) {
  TileAt t;
  t.so = so;
  t.dof = dof;
  t.a0 = ia * ta;
  t.b0 = ib * tb;
  t.na = static_cast<int>(min(std::int64_t(ta), d.size_a - t.a0));
  t.nb = static_cast<int>(min(std::int64_t(tb), d.size_b - t.b0));
  return t;
}

/// body(tile) for every tile this block owns in a grid of tile_grid's shape: z strides the outer
/// positions, y the B tiles, x the A tiles (the outer offsets decoded once per outer position).
template <class Body>
__device__ __forceinline__ void for_each_tile(const ConvertTiles& d, int ta, int tb, Body&& body) {
  const TileCounts n(d, ta, tb);
  for (std::int64_t o = blockIdx.z; o < d.size_outer; o += gridDim.z) {
    std::int64_t so, dof;
    group_offsets(d, d.outer, o, so, dof);
    for (std::int64_t ib = blockIdx.y; ib < n.b; ib += gridDim.y) {
      for (std::int64_t ia = blockIdx.x; ia < n.a; ia += gridDim.x) {
        body(tile_at(d, ta, tb, so, dof, ia, ib));
      }
    }
  }
}

/// Tile number t (0 <= t < n.total) in for_each_tile's order: A fastest, then B, then outer.
__device__ __forceinline__ TileAt locate_tile(const ConvertTiles& d, int ta, int tb,
                                              const TileCounts& n, std::int64_t t) {
  const std::int64_t ia = t % n.a, rest = t / n.a, ib = rest % n.b, o = rest / n.b;
  std::int64_t so, dof;
  group_offsets(d, d.outer, o, so, dof);
  return tile_at(d, ta, tb, so, dof, ia, ib);
}

inline unsigned clamp_grid(std::int64_t items, std::int64_t limit) {
  return static_cast<unsigned>(std::max<std::int64_t>(1, std::min(items, limit)));
}

/// The grid of for_each_tile for ta x tb tiles: one block per tile up to the grid's limits
/// (the kernels stride past them).
inline dim3 tile_grid(const ConvertTiles& d, int ta, int tb) {
  const TileCounts n(d, ta, tb);
  return dim3(clamp_grid(n.a, (std::int64_t(1) << 31) - 1), clamp_grid(n.b, 65535),
              clamp_grid(d.size_outer, 65535));
}

}  // namespace triax::detail
