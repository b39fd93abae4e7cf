// plan_convert_tiles: the dimension groups of a GPU conversion (convert_tiles.hpp says why).
#include "core/convert_tiles.hpp"

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace triax::detail {

namespace {

struct Dim {
  std::int64_t extent, src, dst;
};

int pow2_at_least(std::int64_t x, int cap) {
  int p = 1;
  while (p < x && p < cap) p *= 2;
  return p;
}

// The runs plan of a row copy (convert_tiles.hpp says when and why): A = dimension 1 (the
// destination's next), B = the source's next dimension; nothing changes when that is dimension 1
// too (consecutive rows then follow each other on both sides) or the rows are long.
void plan_runs(ConvertTiles& t) {
  if (t.rank < 3 || t.extent[0] > convert_run_max) return;
  int q = 1;
  for (int k = 2; k < t.rank; ++k) {
    if (t.src[k] < t.src[q]) q = k;
  }
  if (q == 1) return;
  t.runs = true;
  t.a.dim[t.a.count++] = 1;
  t.size_a = t.extent[1];
  t.b.dim[t.b.count++] = q;
  t.size_b = t.extent[q];
  for (int k = 2; k < t.rank; ++k) {
    if (k != q) {
      t.outer.dim[t.outer.count++] = k;
      t.size_outer *= t.extent[k];
    }
  }
  // Each side first spans 32 elements (a 128-byte line in float) where its extent allows, then
  // the tile grows, the narrower side first, up to convert_run_tile elements.
  const int w = static_cast<int>(t.extent[0]);
  const int cap_a = pow2_at_least(t.size_a, 1024), cap_b = pow2_at_least(t.size_b, 1024);
  int ta = 1, tb = 1;
  while (w * ta < convert_tile_a && ta < cap_a) ta *= 2;
  while (w * tb < convert_tile_a && tb < cap_b) tb *= 2;
  while (2 * w * ta * tb <= convert_run_tile) {
    if (ta <= tb && ta < cap_a) {
      ta *= 2;
    } else if (tb < cap_b) {
      tb *= 2;
    } else if (ta < cap_a) {
      ta *= 2;
    } else {
      break;
    }
  }
  t.run_ta = ta;
  t.run_tb = tb;
  // A warp's stores take w consecutive runs' entries of one A position, then the next A
  // position: a pitch congruent to w modulo 32 banks puts those at consecutive banks. Without
  // room for the padding, no padding (a slower tile, not a wrong one).
  const int pad = ((w - tb * w) % 32 + 32) % 32;
  t.run_pitch = ta * (tb * w + pad) <= convert_run_buffer ? tb * w + pad : tb * w;
  // The kernel's 32-bit offsets inside a tile (fewer registers) where they cannot overflow.
  const auto span = [&](const std::int64_t* stride) {
    return (w - 1) * std::abs(stride[0]) + (ta - 1) * std::abs(stride[t.a.dim[0]]) +
           (tb - 1) * std::abs(stride[t.b.dim[0]]);
  };
  t.run_offsets32 = std::max(span(t.src), span(t.dst)) < (std::int64_t(1) << 31);
}

// Pair tiles (convert_tiles.hpp): a plain transpose (one dimension a group), contiguous along
// B in the source and along A in the destination, even extents and even strides elsewhere.
void plan_pairs(ConvertTiles& t) {
  if (t.a.count != 1 || t.b.count != 1 || t.size_a % 2 != 0 || t.size_b % 2 != 0) return;
  const int ia = t.a.dim[0], ib = t.b.dim[0];
  if (t.src[ib] != 1 || t.dst[ia] != 1 || t.src[ia] % 2 != 0 || t.dst[ib] % 2 != 0) return;
  for (int k = 0; k < t.outer.count; ++k) {
    if (t.src[t.outer.dim[k]] % 2 != 0 || t.dst[t.outer.dim[k]] % 2 != 0) return;
  }
  t.pairs = true;
  int ta = 64, tb = 64;
  if (t.size_a < 64) {
    ta = pow2_at_least(t.size_a, 64);
    tb = convert_pair_tile / ta;
  } else if (t.size_b < 64) {
    tb = pow2_at_least(t.size_b, 64);
    ta = convert_pair_tile / tb;
  }
  t.pair_ta = ta;
  t.pair_tb = tb;
  // A warp's stores read one 8-byte word per lane: A pairs fastest (ha of them), then B. A half
  // warp meets 16 distinct bank pairs when the pitch in words is odd (ha >= 16) or congruent to
  // 16 / ha words (ha < 16: the B positions fill the gaps). Unpadded where that does not fit.
  const int ha = ta / 2;
  const int want = ha >= 16 ? 2 : (32 / ha) % 32;
  int pitch = 2 * tb;
  if (ha >= 16) {
    if (pitch % 4 == 0) pitch += 2;
  } else {
    pitch += ((want - pitch) % 32 + 32) % 32;
  }
  t.pair_pitch = ha * pitch <= convert_pair_buffer ? pitch : 2 * tb;
}

// Dimensions sorted by destination stride (then source), each merged into the one before where
// both sides continue it.
std::vector<Dim> merge_dims(std::vector<Dim> dims) {
  std::stable_sort(dims.begin(), dims.end(), [](const Dim& x, const Dim& y) {
    return x.dst != y.dst ? x.dst < y.dst : x.src < y.src;
  });
  std::vector<Dim> merged;
  for (const Dim& d : dims) {
    if (d.extent <= 1) continue;
    if (!merged.empty() && d.src == merged.back().src * merged.back().extent &&
        d.dst == merged.back().dst * merged.back().extent) {
      merged.back().extent *= d.extent;
      continue;
    }
    merged.push_back(d);
  }
  return merged;
}

// Groups of `widen` elements as one element (see convert_tiles.hpp): dimension 0 contiguous on
// both sides and a multiple of widen long, every other stride a multiple of widen. Dimension 0
// of one wide element drops out and the rest merges again.
bool widen_dims(std::vector<Dim>& merged, int widen) {
  if (widen <= 1 || merged.empty() || merged[0].src != 1 || merged[0].dst != 1 ||
      merged[0].extent % widen != 0) {
    return false;
  }
  for (std::size_t k = 1; k < merged.size(); ++k) {
    if (merged[k].src % widen != 0 || merged[k].dst % widen != 0) return false;
  }
  merged[0].extent /= widen;
  for (std::size_t k = 1; k < merged.size(); ++k) {
    merged[k].src /= widen;
    merged[k].dst /= widen;
  }
  merged = merge_dims(merged);
  return true;
}

}  // namespace

ConvertTiles plan_convert_tiles(const Layout& from, const Layout& to, int widen) {
  std::vector<Dim> dims;
  for (int k = 0; k < from.rank(); ++k) {
    if (from.extent(k) > 1) dims.push_back({from.extent(k), from.stride(k), to.stride(k)});
  }
  std::vector<Dim> merged = merge_dims(dims);
  const bool widened = widen_dims(merged, widen);
  if (merged.empty()) merged.push_back({1, 0, 0});
  ConvertTiles t;
  t.widen = widened ? widen : 1;
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
  const bool pair_tiles = widen == 2 && !widened;
  if (!t.tiled) {
    plan_runs(t);
    return t;
  }
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
  if (pair_tiles) plan_pairs(t);
  return t;
}

}  // namespace triax::detail
