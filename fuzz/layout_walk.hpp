#pragma once
// What the harness needs to know about a triax_layout, computed without the library (so a bug
// in the library's own layout code cannot hide itself): whether it is well formed, how many
// elements it spans, and the element offsets of every system, in the order of info (the
// remaining dimensions, dimension 0 fastest).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "triax/triax.h"

namespace triax_fuzz {

// Products saturate at 2^100, so a sum of eight of them and an offset stays exact in 128 bits;
// anything at the cap is far beyond the bounds the harness solves within.
using wide = __int128;

struct Geometry {
  bool well_formed = false;  // rank 1..8, extents, strides and offset >= 0
  bool axis_valid = false;
  wide elements = 0;  // product of the extents (saturated at `cap`)
  wide span = 0;      // 1 + the largest offset addressed, 0 when there are no elements
  wide systems = 0;   // product of the extents other than the axis (saturated)
  std::int64_t n = 0; // the extent of the axis
};

inline constexpr wide cap = wide(1) << 100;

inline wide saturating_mul(wide a, wide b) {
  if (a == 0 || b == 0) return 0;
  return a > cap / b ? cap : a * b;
}

inline Geometry describe(const triax_layout& l, int axis) {
  Geometry g;
  if (l.rank < 1 || l.rank > 8 || l.offset < 0) return g;
  for (int k = 0; k < l.rank; ++k) {
    if (l.extents[k] < 0 || l.strides[k] < 0) return g;
  }
  g.well_formed = true;
  g.axis_valid = axis >= 0 && axis < l.rank;
  g.elements = 1;
  g.systems = 1;
  wide last = l.offset;
  for (int k = 0; k < l.rank; ++k) {
    g.elements = saturating_mul(g.elements, l.extents[k]);
    if (k != axis) g.systems = saturating_mul(g.systems, l.extents[k]);
    if (l.extents[k] > 0) last += saturating_mul(l.extents[k] - 1, l.strides[k]);
  }
  g.span = g.elements == 0 ? 0 : last + 1;
  if (g.axis_valid) g.n = l.extents[axis];
  return g;
}

// Calls f(system, base) for every system in info order, where base is the offset of row 0 and
// rows follow at l.strides[axis]. Only for layouts the caller has bounded.
template <class F>
void for_each_system(const triax_layout& l, int axis, F&& f) {
  std::int64_t index[8] = {};
  std::int64_t system = 0;
  for (int k = 0; k < l.rank; ++k) {
    if (k != axis && l.extents[k] == 0) return;
  }
  while (true) {
    std::int64_t base = l.offset;
    for (int k = 0; k < l.rank; ++k) base += index[k] * l.strides[k];
    f(system++, base);
    int k = 0;
    for (; k < l.rank; ++k) {
      if (k == axis) continue;
      if (++index[k] < l.extents[k]) break;
      index[k] = 0;
    }
    if (k == l.rank) return;
  }
}

// Whether two elements of the layout share an offset (a non-broadcast operand overlapping
// itself, so an output would be written twice). Brute force over a bounded layout.
inline bool overlaps_itself(const triax_layout& l, int axis) {
  std::vector<std::int64_t> offsets;
  const std::int64_t n = l.extents[axis];
  for_each_system(l, axis, [&](std::int64_t, std::int64_t base) {
    for (std::int64_t i = 0; i < n; ++i) offsets.push_back(base + i * l.strides[axis]);
  });
  std::sort(offsets.begin(), offsets.end());
  return std::adjacent_find(offsets.begin(), offsets.end()) != offsets.end();
}

}  // namespace triax_fuzz
