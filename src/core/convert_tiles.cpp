// plan_convert_tiles: the dimension groups of a GPU conversion (convert_tiles.hpp says why).
#include "core/convert_tiles.hpp"

#include <algorithm>
#include <vector>

namespace triax::detail {

ConvertTiles plan_convert_tiles(const Layout& from, const Layout& to) {
  struct Dim {
    std::int64_t extent, src, dst;
  };
  std::vector<Dim> dims;
  for (int k = 0; k < from.rank(); ++k) {
    if (from.extent(k) > 1) dims.push_back({from.extent(k), from.stride(k), to.stride(k)});
  }
  std::stable_sort(dims.begin(), dims.end(), [](const Dim& x, const Dim& y) {
    return x.dst != y.dst ? x.dst < y.dst : x.src < y.src;
  });
  std::vector<Dim> merged;
  for (const Dim& d : dims) {
    if (!merged.empty() && d.src == merged.back().src * merged.back().extent &&
        d.dst == merged.back().dst * merged.back().extent) {
      merged.back().extent *= d.extent;
      continue;
    }
    merged.push_back(d);
  }
  if (merged.empty()) merged.push_back({1, 0, 0});
  ConvertTiles t;
  t.rank = static_cast<int>(merged.size());
  for (int k = 0; k < t.rank; ++k) {
    t.extent[k] = merged[k].extent;
    t.src[k] = merged[k].src;
    t.dst[k] = merged[k].dst;
  }
  // The source's fastest dimension (the first of equals, so that a tie with dimension 0 keeps
  // the row copy).
  int q = 0;
  for (int k = 1; k < t.rank; ++k) {
    if (t.src[k] < t.src[q]) q = k;
  }
  t.tiled = q != 0;
  if (!t.tiled) return t;
  bool used[max_rank] = {};
  const auto add = [&](ConvertGroup& g, std::int64_t& size, int k) {
    g.dim[g.count++] = k;
    size *= t.extent[k];
    used[k] = true;
  };
  // A: destination order from dimension 0, never taking q, until a tile row is spanned. When the
  // dimensions before q are too few for a row (structure of arrays -> array of blocks: q is a
  // grid dimension and only the M^2 block entries come before it, 4 for M = 2), A goes on past q:
  // a warp's stores are then several runs of M^2 elements, but all its lanes work, where A of
  // the entries alone would leave 28 of 32 idle and a tile 7/8 empty.
  for (int k = 0; k < t.rank && t.size_a < convert_tile_a; ++k) {
    if (k != q) add(t.a, t.size_a, k);
  }
  // B: q, then the unused dimensions by source stride, until a tile column is spanned.
  add(t.b, t.size_b, q);
  while (t.size_b < convert_tile_b) {
    int next = -1;
    for (int k = 0; k < t.rank; ++k) {
      if (!used[k] && (next < 0 || t.src[k] < t.src[next])) next = k;
    }
    if (next < 0) break;
    add(t.b, t.size_b, next);
  }
  for (int k = 0; k < t.rank; ++k) {
    if (!used[k]) add(t.outer, t.size_outer, k);
  }
  return t;
}

}  // namespace triax::detail
