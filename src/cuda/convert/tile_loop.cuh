#pragma once
// The walk over a conversion plan's tiles that every tile kernel of src/cuda/convert shares: the
// outer positions, the B tiles and the A tiles of a plan (core/convert_tiles.hpp, which also
// holds TileAt, TileCounts, tile_at and locate_tile, for the host replays).
// - for_each_tile: the grid's z, y, x stride the outer positions, B tiles and A tiles, one block
//   per tile where the grid covers them (tile_grid sizes it);
// - locate_tile (core/convert_tiles.hpp): tile number t of the same order (A fastest, then B,
//   then outer), for kernels whose blocks walk a list of tiles (the streamed kernels keep the
//   next tile's loads in flight while they store the current one).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/convert_tiles.hpp"

namespace triax::detail {

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
