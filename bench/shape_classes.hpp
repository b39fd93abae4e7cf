#pragma once
// The shapes users have, drawn at random but reproducibly from a seed: odd system lengths along
// every axis of 2-D to 5-D arrays, padded arrays with ghost layers and misaligned base pointers,
// batches of 1 to 2^22 systems, few long systems, broadcast coefficients and the other solve
// modes. triax-bench's `--suite shapes` times them (shape_runner.hpp); the shape tests solve small
// draws of the same classes against the reference backend. Header-only, so that both use it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "case.hpp"
#include "inputs.hpp"

namespace triax::bench {

enum class ShapeClass { lengths, padded, batches, few_long, operands };

inline const char* to_string(ShapeClass k) {
  switch (k) {
    case ShapeClass::lengths: return "lengths";
    case ShapeClass::padded: return "padded";
    case ShapeClass::batches: return "batches";
    case ShapeClass::few_long: return "few_long";
    case ShapeClass::operands: return "operands";
  }
  return "?";
}

/// One drawn problem. Its interior `extents` lie in an allocation of `allocated` extents
/// (dimension 0 fastest) from index `begin`, and the allocation starts `base_offset` elements
/// past an aligned address (1: a base pointer off every 16-byte boundary).
struct ShapeDraw {
  ShapeClass klass = ShapeClass::lengths;
  Precision precision = Precision::f64;
  std::vector<std::int64_t> extents, allocated, begin;
  std::int64_t base_offset = 0;
  int axis = 0;
  Mode mode = Mode::in_place;
  /// a, b and c hold one system's coefficients for every system (stride 0 across the batch).
  bool broadcast = false;

  std::int64_t points() const { return product(extents); }
  /// Elements the allocation spans from the aligned address.
  std::int64_t span() const { return base_offset + product(allocated); }
  std::int64_t n() const { return extents[axis]; }
  std::int64_t systems() const { return n() == 0 ? 0 : points() / n(); }
  bool padded() const { return allocated != extents || base_offset != 0; }
};

/// How large the drawn problems are: interior points log-uniform in [min_points, max_points],
/// few long systems of long_min to long_max rows.
struct ShapeBudget {
  std::int64_t min_points = std::int64_t(1) << 21;
  std::int64_t max_points = std::int64_t(1) << 26;
  std::int64_t long_min = 10'000;
  std::int64_t long_max = 10'000'000;
  std::int64_t max_n = 8192;  // longest system outside the few-long class
};

/// Draws per precision of each class in the default suite (x 2 precisions = 240 cases).
struct ShapeCounts {
  int lengths = 40, padded = 30, batches = 25, few_long = 10, operands = 15;
};

/// splitmix64: a small, seedable generator whose sequence is the same on every platform.
class ShapeRandom {
 public:
  explicit ShapeRandom(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [lo, hi].
  std::int64_t uniform(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Log-uniform in [lo, hi] (lo >= 1).
  std::int64_t log_uniform(std::int64_t lo, std::int64_t hi) {
    const double v = std::exp(std::log(double(lo)) + unit() * (std::log(double(hi)) - std::log(double(lo))));
    return std::clamp(static_cast<std::int64_t>(std::llround(v)), lo, hi);
  }
  bool coin() { return next() & 1; }

 private:
  std::uint64_t state_;
};

namespace shape_detail {

inline bool is_prime(std::int64_t v) {
  if (v < 2) return false;
  for (std::int64_t d = 2; d * d <= v; ++d)
    if (v % d == 0) return false;
  return true;
}

/// A system length users have and power-of-two kernels dislike: a prime, 2^k +- 1, or a length
/// that is not a multiple of 4, 8 or 32 (log-uniform in [lo, hi]).
inline std::int64_t odd_length(ShapeRandom& r, std::int64_t lo, std::int64_t hi) {
  switch (r.uniform(0, 3)) {
    case 0: {  // a prime
      std::int64_t v = r.log_uniform(std::max<std::int64_t>(lo, 2), hi);
      while (v > lo && !is_prime(v)) --v;
      while (!is_prime(v) && v < hi) ++v;
      return v;
    }
    case 1: {  // 2^k +- 1
      const int kmin = std::max(1, static_cast<int>(std::ceil(std::log2(double(lo)))));
      const int kmax = std::max(kmin, static_cast<int>(std::floor(std::log2(double(hi)))));
      const std::int64_t p = std::int64_t(1) << r.uniform(kmin, kmax);
      return std::clamp(r.coin() ? p + 1 : p - 1, lo, hi);
    }
    case 2: {  // not a multiple of 4
      std::int64_t v = r.log_uniform(lo, hi);
      if (v % 4 == 0) v += v + 1 <= hi ? 1 : -1;
      return v;
    }
    default: {  // a multiple of 4 or 8 but not of 32: rows of whole vectors, chunks not
      std::int64_t v = r.log_uniform(std::max<std::int64_t>(lo, 4), hi) / 4 * 4;
      if (v % 32 == 0) v = v + 4 <= hi ? v + 4 : v - 4;
      return std::clamp<std::int64_t>(v, lo, hi);
    }
  }
}

/// `rank` extents with extents[axis] = n and about `points` in all: the batch split over the
/// other dimensions in random proportions (every extent >= 1; >= 2 where the batch allows).
inline std::vector<std::int64_t> spread(ShapeRandom& r, int rank, int axis, std::int64_t n,
                                        std::int64_t points) {
  std::vector<std::int64_t> e(rank, 1);
  e[axis] = n;
  double batch = std::max(1.0, double(points) / double(n));
  int left = rank - 1;
  for (int k = 0; k < rank; ++k) {
    if (k == axis) continue;
    if (left == 1) {
      e[k] = std::max<std::int64_t>(1, std::llround(batch));
    } else {
      const double share = std::pow(batch, 1.0 / left) * (0.6 + 0.8 * r.unit());
      e[k] = std::max<std::int64_t>(batch >= 2 * left ? 2 : 1, std::llround(share));
      // Odd and even alike: an extent 1 off a round number half the time.
      if (e[k] > 8 && r.coin()) e[k] += r.coin() ? 1 : -1;
      batch = std::max(1.0, batch / double(e[k]));
    }
    --left;
  }
  return e;
}

inline ShapeDraw packed_draw(ShapeClass k, Precision p, std::vector<std::int64_t> extents, int axis) {
  ShapeDraw d;
  d.klass = k;
  d.precision = p;
  d.allocated = extents;
  d.begin.assign(extents.size(), 0);
  d.extents = std::move(extents);
  d.axis = axis;
  return d;
}

/// Any class but few_long: length n along `axis` of a rank-`rank` array of about `points`.
inline ShapeDraw lengths_draw(ShapeRandom& r, ShapeClass k, Precision p, const ShapeBudget& b,
                              int min_rank, int max_rank) {
  const int rank = static_cast<int>(r.uniform(min_rank, max_rank));
  const int axis = static_cast<int>(r.uniform(0, rank - 1));
  const std::int64_t points = r.log_uniform(b.min_points, b.max_points);
  const std::int64_t n = odd_length(r, 2, std::min(b.max_n, points));
  return packed_draw(k, p, spread(r, rank, axis, n, points), axis);
}

/// 1 to 4 ghost layers on each side of every dimension, allocated extents often not a multiple
/// of 4, and half the time a base pointer one element past an aligned address.
inline void add_padding(ShapeRandom& r, ShapeDraw& d) {
  for (std::size_t k = 0; k < d.extents.size(); ++k) {
    const std::int64_t lo = r.uniform(1, 4), hi = r.uniform(1, 4);
    d.begin[k] = lo;
    d.allocated[k] = d.extents[k] + lo + hi + (r.coin() ? r.uniform(0, 3) : 0);
  }
  d.base_offset = r.coin() ? 1 : 0;
}

}  // namespace shape_detail

/// The suite's draws: `counts` of each class in each precision, the same for the same seed.
inline std::vector<ShapeDraw> draw_shapes(std::uint64_t seed, const ShapeBudget& b,
                                          const ShapeCounts& counts = {}) {
  using namespace shape_detail;
  ShapeRandom r(seed);
  std::vector<ShapeDraw> out;
  for (Precision p : {Precision::f32, Precision::f64}) {
    for (int i = 0; i < counts.lengths; ++i)
      out.push_back(lengths_draw(r, ShapeClass::lengths, p, b, 2, 5));
    for (int i = 0; i < counts.padded; ++i) {
      ShapeDraw d = lengths_draw(r, ShapeClass::padded, p, b, 2, 4);
      add_padding(r, d);
      out.push_back(d);
    }
    for (int i = 0; i < counts.batches; ++i) {
      // 1 to 2^22 systems of whatever length the budget leaves (2 to max_n rows).
      const std::int64_t systems = r.log_uniform(1, std::int64_t(1) << 22);
      const std::int64_t points = r.log_uniform(b.min_points, b.max_points);
      const std::int64_t n = std::clamp<std::int64_t>(points / systems, 2, b.max_n);
      const int rank = systems > 64 && r.coin() ? 3 : 2;
      const int axis = static_cast<int>(r.uniform(0, rank - 1));
      out.push_back(packed_draw(ShapeClass::batches, p, spread(r, rank, axis, n, n * systems), axis));
    }
    for (int i = 0; i < counts.few_long; ++i) {
      // 1 to 256 systems of long_min to long_max rows.
      // Rows for about min_points to max_points in all, where the row range allows.
      const std::int64_t systems = r.log_uniform(1, 256);
      const std::int64_t hi = std::max(b.long_min, std::min(b.long_max, b.max_points / systems));
      const std::int64_t lo = std::clamp(b.min_points / systems, b.long_min, hi);
      const std::int64_t n = r.log_uniform(lo, hi);
      if (systems == 1) {
        out.push_back(packed_draw(ShapeClass::few_long, p, {n}, 0));
      } else {
        const int axis = static_cast<int>(r.uniform(0, 1));
        std::vector<std::int64_t> e = axis == 0 ? std::vector<std::int64_t>{n, systems}
                                                : std::vector<std::int64_t>{systems, n};
        out.push_back(packed_draw(ShapeClass::few_long, p, e, axis));
      }
    }
    for (int i = 0; i < counts.operands; ++i) {
      ShapeDraw d = lengths_draw(r, ShapeClass::operands, p, b, 2, 4);
      switch (i % 5) {
        case 0: d.broadcast = true; break;
        case 1: d.broadcast = true; d.mode = Mode::separate; break;
        case 2: d.mode = Mode::separate; break;
        case 3: d.mode = Mode::increment; break;
        default: d.broadcast = true; d.mode = Mode::increment; break;
      }
      out.push_back(d);
    }
  }
  return out;
}

/// Effective bytes of one solve of a draw: what a perfect solver must move. a, b and c count
/// only where they are arrays (broadcast: one system's, negligible and not counted); d read and
/// x written; increment mode also reads u.
inline double shape_bytes(const ShapeDraw& d) {
  const double pts = double(d.points()) * double(size_of(d.precision));
  const double coefficients = d.broadcast ? 0 : 3;
  return pts * (coefficients + 2 + (d.mode == Mode::increment ? 1 : 0));
}

/// "lengths 300x240x240 axis 0 n=300 ghosts +1" and the like, for the table.
inline std::string describe(const ShapeDraw& d) {
  const auto dims = [](std::string& s, const std::vector<std::int64_t>& e) {
    for (std::size_t k = 0; k < e.size(); ++k) {
      if (k) s += 'x';
      s += std::to_string(e[k]);
    }
  };
  std::string s;
  dims(s, d.extents);
  if (d.padded()) {
    s += " in ";
    dims(s, d.allocated);
    if (d.base_offset) {
      s += '+';
      s += std::to_string(d.base_offset);
    }
  }
  if (d.broadcast) s += " bcast";
  return s;
}

}  // namespace triax::bench
