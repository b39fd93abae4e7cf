// triax::convert: one strided copy for every pair of layouts of one shape (the block layouts'
// conversions among them). The dimensions are ordered by the destination's strides and merged
// where both sides allow, so that the innermost loop writes memory in order; when the source's
// fastest dimension is another one (array of blocks <-> structure of arrays), the two are
// copied in square tiles, so that every cache line read is used up while it is still cached.
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/convert_checks.hpp"
#include "triax/block.hpp"

namespace triax {
namespace {

struct Dim {
  std::int64_t extent, src_stride, dst_stride;
};

// Elements of one side of a tile, and of a run along the destination's fastest dimension when
// there is no tile (so that long one-dimensional copies still split across threads).
constexpr std::int64_t tile_side = 32;
constexpr std::int64_t run_chunk = 1 << 14;

// The copy's dimensions, destination-fastest first, merged.
std::vector<Dim> merged_dims(const Layout& from, const Layout& to) {
  std::vector<Dim> dims;
  for (int k = 0; k < from.rank(); ++k) {
    if (from.extent(k) > 1) dims.push_back({from.extent(k), from.stride(k), to.stride(k)});
  }
  std::stable_sort(dims.begin(), dims.end(), [](const Dim& x, const Dim& y) {
    return x.dst_stride != y.dst_stride ? x.dst_stride < y.dst_stride : x.src_stride < y.src_stride;
  });
  std::vector<Dim> merged;
  for (const Dim& d : dims) {
    if (!merged.empty()) {
      Dim& last = merged.back();
      if (d.src_stride == last.src_stride * last.extent &&
          d.dst_stride == last.dst_stride * last.extent) {
        last.extent *= d.extent;
        continue;
      }
    }
    merged.push_back(d);
  }
  return merged;
}

// Moves the tile partner (the source's fastest dimension) to position 1 when it is not already
// first; returns whether there is one.
bool place_tile_partner(std::vector<Dim>& dims) {
  if (dims.size() < 2) return false;
  std::size_t q = 1;
  for (std::size_t k = 2; k < dims.size(); ++k) {
    if (dims[k].src_stride < dims[q].src_stride) q = k;
  }
  if (!(dims[q].src_stride < dims[0].src_stride)) return false;
  std::rotate(dims.begin() + 1, dims.begin() + q, dims.begin() + q + 1);
  return true;
}

}  // namespace

template <class T>
void convert(const Layout& from, const T* src, const Layout& to, T* dst) {
  detail::check_conversion("triax::convert: ", from, src, to, dst, sizeof(T));
  if (from.size() == 0) return;
  std::vector<Dim> dims = merged_dims(from, to);
  src += from.offset();
  dst += to.offset();
  if (dims.empty()) {
    *dst = *src;
    return;
  }
  // A run contiguous on both sides (a whole block of the array-of-blocks layouts) is the unit
  // the loops move; the tiles are then made of runs (array of blocks -> interleaved: blocks of
  // 16-512 bytes reordered).
  std::int64_t run = 1;
  if (dims.size() > 1 && dims[0].src_stride == 1 && dims[0].dst_stride == 1) {
    run = dims[0].extent;
    dims.erase(dims.begin());
  }
  const bool tiled = place_tile_partner(dims);
  const Dim d0 = dims[0];
  const Dim d1 = tiled ? dims[1] : Dim{1, 0, 0};
  const std::size_t first_outer = tiled ? 2 : 1;
  // About a thousand runs per item: tiles as square as the partner's extent allows.
  const std::int64_t t1 = tiled ? std::min(tile_side, d1.extent) : 1;
  const std::int64_t t0 = tiled ? std::max(tile_side, tile_side * tile_side / t1)
                                : std::max<std::int64_t>(1, run_chunk / run);
  const std::int64_t blocks0 = (d0.extent + t0 - 1) / t0, blocks1 = (d1.extent + t1 - 1) / t1;
  std::int64_t outer = 1;
  for (std::size_t k = first_outer; k < dims.size(); ++k) outer *= dims[k].extent;
  const std::int64_t items = outer * blocks1 * blocks0;
#pragma omp parallel for schedule(static)
  for (std::int64_t item = 0; item < items; ++item) {
    const std::int64_t b0 = item % blocks0, b1 = (item / blocks0) % blocks1;
    std::int64_t o = item / blocks0 / blocks1;
    std::int64_t so = 0, dof = 0;
    for (std::size_t k = first_outer; k < dims.size(); ++k) {
      const std::int64_t i = o % dims[k].extent;
      o /= dims[k].extent;
      so += i * dims[k].src_stride;
      dof += i * dims[k].dst_stride;
    }
    const std::int64_t i0 = b0 * t0, i1 = std::min(d0.extent, i0 + t0);
    const std::int64_t j0 = b1 * t1, j1 = std::min(d1.extent, j0 + t1);
    for (std::int64_t j = j0; j < j1; ++j) {
      const T* s = src + so + j * d1.src_stride;
      T* d = dst + dof + j * d1.dst_stride;
      if (run == 1 && d0.src_stride == 1 && d0.dst_stride == 1) {
        std::memcpy(d + i0, s + i0, static_cast<std::size_t>(i1 - i0) * sizeof(T));
      } else if (run == 1) {
        for (std::int64_t i = i0; i < i1; ++i) d[i * d0.dst_stride] = s[i * d0.src_stride];
      } else {
        for (std::int64_t i = i0; i < i1; ++i) {
          const T* sr = s + i * d0.src_stride;
          T* dr = d + i * d0.dst_stride;
          for (std::int64_t e = 0; e < run; ++e) dr[e] = sr[e];
        }
      }
    }
  }
}

template TRIAX_API void convert<float>(const Layout&, const float*, const Layout&, float*);
template TRIAX_API void convert<double>(const Layout&, const double*, const Layout&, double*);

}  // namespace triax
