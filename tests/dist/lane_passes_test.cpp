// The CPU ranks' local passes in SIMD lanes (src/dist/cpu_lanes) against the scalar passes
// (reduce_piece, finish_piece) bit for bit, on the host, every compiled copy this processor
// runs: rows contiguous (split axis 0: register transposes), systems adjacent (split axis >= 1:
// vector loads) and systems in lines shorter than a group (element loads), system counts around
// the lane width W, piece lengths 1, 2, 3 and 17, every place of a piece, separate, in place and
// increment, batches that cut groups, and checked mode's first bad row with a zero pivot in one
// system of a group. The copies run without contraction into FMA, so bits must agree.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "dist/cpu_lanes/lane_passes.hpp"
#include "dist/local_passes.hpp"
#include "lane_copies.hpp"

namespace triax::detail::dist_lanes {
namespace {

enum class Shape { contiguous_rows, adjacent_systems, short_lines };
enum class Mode { separate, in_place, increment };

using test::Copy;
using test::usable_copies;

/// `count` systems of m rows in one of the shapes, random diagonally dominant values (hard
/// ones: the diagonal may be small where `weak`).
template <class T>
struct Pieces {
  std::int64_t m, count;
  std::vector<T> a, b, c, d, x;
  Problem p;

  Pieces(std::int64_t rows, std::int64_t systems, Shape shape, std::uint64_t seed)
      : m(rows), count(systems) {
    const auto n = static_cast<std::size_t>(m * count);
    a.resize(n), b.resize(n), c.resize(n), d.resize(n), x.resize(n);
    std::uint64_t state = seed;
    const auto next = [&] {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      return double(state >> 11) / double(1ull << 53) - 0.5;
    };
    const auto off_diagonal = [&] {
      const double u = next();
      return u < 0 ? 0.4 * u - 0.4 : 0.4 * u + 0.4;  // magnitude in [0.4, 0.6]
    };
    for (std::size_t e = 0; e < n; ++e) {
      // Off-diagonals of 0.4 to 0.6 beside a diagonal of 1.6 to 2.6: the sweep's couplings
      // (products of ratios >= 0.139) stay above float's eps^2 over 17 rows, where the lanes drop
      // them (lanes.inc, drop_tiny), so that every element is compared bit for bit; LongPieces
      // below crosses that threshold.
      a[e] = T(off_diagonal()), c[e] = T(off_diagonal()), b[e] = T(2.1 + next());
      d[e] = T(next() * 100);
    }
    p.n = m;
    p.count = count;
    for (auto& map : p.map) map.offset = 0;
    if (shape == Shape::contiguous_rows) {
      p.batch_rank = 1;
      p.batch_extents[0] = count;
      for (auto& map : p.map) map.row_stride = 1, map.batch_strides[0] = m;
    } else if (shape == Shape::adjacent_systems) {
      p.batch_rank = 1;
      p.batch_extents[0] = count;
      for (auto& map : p.map) map.row_stride = count, map.batch_strides[0] = 1;
    } else {
      // Lines of 3 systems along x, rows along y, the lines along z: a group spans lines.
      const std::int64_t e0 = count < 3 ? count : 3, e1 = (count + e0 - 1) / e0;
      p.count = e0 * e1;
      count = p.count;
      const auto n2 = static_cast<std::size_t>(m * count);
      a.resize(n2, T(0.5)), b.resize(n2, T(2)), c.resize(n2, T(-0.5)), d.resize(n2, T(1));
      x.resize(n2);
      p.batch_rank = 2;
      p.batch_extents[0] = e0;
      p.batch_extents[1] = e1;
      for (auto& map : p.map) {
        map.row_stride = e0, map.batch_strides[0] = 1, map.batch_strides[1] = e0 * m;
      }
    }
  }
};

template <class T>
bool same_bits(T u, T v) {
  if (std::isnan(u) && std::isnan(v)) return true;
  return std::bit_cast<
             typename std::conditional<sizeof(T) == 4, std::uint32_t, std::uint64_t>::type>(u) ==
         std::bit_cast<
             typename std::conditional<sizeof(T) == 4, std::uint32_t, std::uint64_t>::type>(v);
}

template <class T>
bool same_pair(const ReducedPair<T>& u, const ReducedPair<T>& v) {
  const T us[] = {u.first.a, u.first.b, u.first.c, u.first.d,
                  u.last.a,  u.last.b,  u.last.c,  u.last.d};
  const T vs[] = {v.first.a, v.first.b, v.first.c, v.first.d,
                  v.last.a,  v.last.b,  v.last.c,  v.last.d};
  for (int k = 0; k < 8; ++k) {
    if (!same_bits(us[k], vs[k])) return false;
  }
  return true;
}

/// One case: the lane copy's passes over the systems in `batches` batches against the scalar
/// passes, system by system.
template <class T>
void expect_lanes_equal(LanePass<T> reduce, LanePass<T> finish, std::int64_t m, std::int64_t count,
                        Shape shape, PiecePlace place, Mode mode, bool checked, int batches,
                        int threads) {
  Pieces<T> in(m, count, shape, 77 + m * 1000 + count);
  count = in.count;
  // A zero pivot (row 1's diagonal, with no a to fix it) in system 1 of the first group.
  const std::int64_t spoiled = count > 1 ? 1 : 0;
  if (checked && m >= 2) {
    const std::int64_t o1 = in.p.system_offset(op_b, spoiled) + in.p.map[op_b].row_stride;
    in.b[static_cast<std::size_t>(o1)] = T(0);
  }
  const T nan = std::numeric_limits<T>::quiet_NaN();
  std::vector<T> x_scalar(in.x.size()), x_lanes(in.x.size());
  for (std::size_t e = 0; e < in.x.size(); ++e) {
    x_scalar[e] = x_lanes[e] = mode == Mode::increment ? T(0.25) + T(e % 7) : nan;
  }
  std::vector<T> d_scalar = in.d, d_lanes = in.d;
  Problem p = in.p;
  if (mode == Mode::in_place) p.map[op_x] = p.map[op_d];
  const auto operands = [&](std::vector<T>& dv, std::vector<T>& xv) {
    return Operands<T>{in.a.data(),
                       in.b.data(),
                       in.c.data(),
                       dv.data(),
                       mode == Mode::in_place ? dv.data() : xv.data(),
                       mode == Mode::increment,
                       nullptr};
  };
  const Operands<T> ops_scalar = operands(d_scalar, x_scalar);
  const Operands<T> ops_lanes = operands(d_lanes, x_lanes);

  // The scalar passes, with ends made up from each system's reduced rows (any do: both passes
  // get the same).
  std::vector<T> work_scalar(static_cast<std::size_t>(3 * m), T(-7));
  std::vector<ReducedPair<T>> rows_scalar(count);
  std::vector<T> ends(2 * count);
  std::vector<std::int64_t> bad_scalar(count);
  const std::int64_t first_row = 40;
  for (std::int64_t s = 0; s < count; ++s) {
    const PieceWork<T> w{work_scalar.data(), work_scalar.data() + m, work_scalar.data() + 2 * m};
    rows_scalar[s] = reduce_piece(p, ops_scalar, s, place, w);
    ends[2 * s] = T(0.5) + T(s % 3);
    ends[2 * s + 1] = m > 1 ? T(-0.75) : T(0);
    const std::int64_t bad = finish_piece(p, ops_scalar, s, w, ends[2 * s], ends[2 * s + 1]);
    bad_scalar[s] = bad < 0 ? std::numeric_limits<std::int64_t>::max() : first_row + bad;
  }

  // The lanes, with a workspace poisoned and the outputs poisoned.
  std::vector<T> work(static_cast<std::size_t>(3 * m * count), nan);
  std::vector<ReducedPair<T>> rows(count,
                                   ReducedPair<T>{{nan, nan, nan, nan}, {nan, nan, nan, nan}});
  std::vector<std::int64_t> bad(count, -5);
  const LaneJob<T> job{p,
                       ops_lanes,
                       place,
                       work.data(),
                       rows.data(),
                       ends.data(),
                       checked ? bad.data() : nullptr,
                       first_row,
                       threads};
  // Batches as the plan cuts them: the first the largest.
  std::vector<std::int64_t> starts;
  for (int k = 0; k <= batches; ++k) {
    starts.push_back(k == 0 ? 0 : count - (count * (batches - k)) / batches);
  }
  for (int k = 0; k < batches; ++k) reduce(job, starts[k], starts[k + 1] - starts[k]);
  for (int k = 0; k < batches; ++k) finish(job, starts[k], starts[k + 1] - starts[k]);

  for (std::int64_t s = 0; s < count; ++s) {
    EXPECT_TRUE(same_pair(rows[s], rows_scalar[s])) << "reduced rows of system " << s;
    if (checked) {
      EXPECT_EQ(bad[s], bad_scalar[s]) << "first bad row of system " << s;
      if (m >= 3) {
        // The zero pivot spoils its own system only.
        if (s == spoiled) {
          EXPECT_LT(bad[s], std::numeric_limits<std::int64_t>::max());
        } else {
          EXPECT_EQ(bad[s], std::numeric_limits<std::int64_t>::max()) << "system " << s;
        }
      }
    }
  }
  const std::vector<T>& out_scalar = mode == Mode::in_place ? d_scalar : x_scalar;
  const std::vector<T>& out_lanes = mode == Mode::in_place ? d_lanes : x_lanes;
  int wrong = 0;
  for (std::size_t e = 0; e < out_scalar.size(); ++e) {
    if (!same_bits(out_scalar[e], out_lanes[e]) && ++wrong <= 3) {
      ADD_FAILURE() << "x element " << e << ": scalar " << out_scalar[e] << ", lanes "
                    << out_lanes[e];
    }
    if (!checked && m >= 2) {
      // Every element written and finite (the regular systems).
      EXPECT_TRUE(std::isfinite(out_lanes[e])) << "element " << e;
    }
  }
  EXPECT_EQ(wrong, 0);
}

const char* shape_name(Shape s) {
  return s == Shape::contiguous_rows    ? "contiguous rows"
         : s == Shape::adjacent_systems ? "adjacent systems"
                                        : "short lines";
}

template <class T>
void expect_every_case(LanePass<T> reduce, LanePass<T> finish, int width) {
  // 9W + 3: groups of 4 vectors (adjacent systems) and of 2 (the others), then of one.
  const std::int64_t counts[] = {1, width - 1, width, width + 1, 3 * width + 5, 9 * width + 3};
  for (Shape shape : {Shape::contiguous_rows, Shape::adjacent_systems, Shape::short_lines}) {
    for (std::int64_t count : counts) {
      if (count < 1) continue;
      for (std::int64_t m : {1, 2, 3, 17}) {
        for (int place = 0; place < 4; ++place) {
          const PiecePlace where{(place & 1) != 0, (place & 2) != 0};
          // One row only where a rank holds whole systems.
          if (m == 1 && !(where.first_piece && where.last_piece)) continue;
          for (Mode mode : {Mode::separate, Mode::in_place, Mode::increment}) {
            for (bool checked : {false, true}) {
              SCOPED_TRACE(std::string(shape_name(shape)) + ", count " + std::to_string(count) +
                           ", m " + std::to_string(m) + ", place " + std::to_string(place) +
                           ", mode " + std::to_string(static_cast<int>(mode)) +
                           (checked ? ", checked" : ""));
              expect_lanes_equal<T>(reduce, finish, m, count, shape, where, mode, checked, 1, 1);
            }
          }
        }
      }
    }
  }
  // Batches that cut groups, and several threads.
  for (int batches : {2, 3}) {
    for (int threads : {1, 3}) {
      SCOPED_TRACE("batches " + std::to_string(batches) + ", threads " + std::to_string(threads));
      expect_lanes_equal<T>(reduce, finish, 17, 3 * width + 5, Shape::contiguous_rows,
                            {false, false}, Mode::separate, true, batches, threads);
      expect_lanes_equal<T>(reduce, finish, 9, 9 * width + 5, Shape::adjacent_systems,
                            {true, false}, Mode::increment, false, batches, threads);
    }
  }
}

TEST(LanePasses, DoubleEqualsScalarPassesBitForBit) {
  for (const Copy& copy : usable_copies()) {
    if (!copy.usable) continue;
    SCOPED_TRACE(copy.name);
    expect_every_case<double>(copy.reduce_d, copy.finish_d, copy.width_d);
  }
}

TEST(LanePasses, FloatEqualsScalarPassesBitForBit) {
  for (const Copy& copy : usable_copies()) {
    if (!copy.usable) continue;
    SCOPED_TRACE(copy.name);
    expect_every_case<float>(copy.reduce_f, copy.finish_f, copy.width_f);
  }
}

/// Pieces of 300 rows: the couplings fall below eps^2, which the lanes drop (drop_tiny) and the
/// scalar passes carry into the subnormals; x agrees to T's rounding, and the lanes' workspace
/// holds no subnormal value.
/// With `spoil`, a NaN in a at row 200 of system 1 turns its as from 0 back into NaN there (the
/// lanes then write the rows of as they had skipped): NaN in the same elements as the scalar
/// passes.
template <class T>
void expect_long_pieces_close(LanePass<T> reduce, LanePass<T> finish, int width, bool spoil) {
  for (Shape shape : {Shape::contiguous_rows, Shape::adjacent_systems}) {
    SCOPED_TRACE(std::string(shape_name(shape)) + (spoil ? ", NaN in a" : ""));
    constexpr std::int64_t m = 300;
    const std::int64_t count = 4 * width + 3;
    Pieces<T> in(m, count, shape, 5);
    if (spoil) {
      const std::int64_t o = in.p.system_offset(op_a, 1) + 200 * in.p.map[op_a].row_stride;
      in.a[static_cast<std::size_t>(o)] = std::numeric_limits<T>::quiet_NaN();
    }
    std::vector<T> x_scalar(in.x.size()), x_lanes(in.x.size());
    const Operands<T> ops_scalar{in.a.data(),     in.b.data(), in.c.data(), in.d.data(),
                                 x_scalar.data(), false,       nullptr};
    const Operands<T> ops_lanes{in.a.data(),    in.b.data(), in.c.data(), in.d.data(),
                                x_lanes.data(), false,       nullptr};
    const PiecePlace place{false, false};
    std::vector<T> work_scalar(3 * m), ends(2 * count), work(3 * m * count);
    std::vector<ReducedPair<T>> rows(count), rows_scalar(count);
    for (std::int64_t s = 0; s < count; ++s) {
      const PieceWork<T> w{work_scalar.data(), work_scalar.data() + m, work_scalar.data() + 2 * m};
      rows_scalar[s] = reduce_piece(in.p, ops_scalar, s, place, w);
      ends[2 * s] = T(1.5), ends[2 * s + 1] = T(-0.5);
      finish_piece(in.p, ops_scalar, s, w, ends[2 * s], ends[2 * s + 1]);
    }
    const LaneJob<T> job{in.p,    ops_lanes, place, work.data(), rows.data(), ends.data(),
                         nullptr, 0,         1};
    reduce(job, 0, count);
    finish(job, 0, count);
    double scale = 0, diff = 0;
    int nan_mismatch = 0, nans = 0;
    for (std::size_t e = 0; e < x_scalar.size(); ++e) {
      if (std::isnan(x_scalar[e]) || std::isnan(x_lanes[e])) {
        nan_mismatch += std::isnan(x_scalar[e]) == std::isnan(x_lanes[e]) ? 0 : 1;
        ++nans;
        continue;
      }
      scale = std::max(scale, std::abs(double(x_scalar[e])));
      diff = std::max(diff, std::abs(double(x_lanes[e]) - double(x_scalar[e])));
    }
    EXPECT_LE(diff, 2 * std::numeric_limits<T>::epsilon() * scale);
    EXPECT_EQ(nan_mismatch, 0);
    if (spoil) {
      EXPECT_GT(nans, 0);
    } else {
      EXPECT_EQ(nans, 0);
    }
    for (std::int64_t s = 0; s < count; ++s) {
      const T u[] = {rows[s].first.a, rows[s].first.b, rows[s].first.c, rows[s].first.d,
                     rows[s].last.a,  rows[s].last.b,  rows[s].last.c,  rows[s].last.d};
      const T v[] = {rows_scalar[s].first.a, rows_scalar[s].first.b, rows_scalar[s].first.c,
                     rows_scalar[s].first.d, rows_scalar[s].last.a,  rows_scalar[s].last.b,
                     rows_scalar[s].last.c,  rows_scalar[s].last.d};
      for (int k = 0; k < 8; ++k) {
        if (std::isnan(u[k]) || std::isnan(v[k])) {
          EXPECT_EQ(std::isnan(u[k]), std::isnan(v[k])) << "system " << s << ", entry " << k;
          continue;
        }
        EXPECT_LE(std::abs(double(u[k]) - double(v[k])),
                  2 * std::numeric_limits<T>::epsilon() * (1 + std::abs(double(v[k]))))
            << "system " << s << ", entry " << k;
      }
    }
    // The groups' part (the 3 tail systems run the scalar passes, subnormals and all).
    int subnormal = 0;
    // Groups of 4 vectors where systems are adjacent, else of 2 (lanes.inc); row 0 of a
    // group's as holds an integer (the last row of as written), not a value.
    const std::int64_t lanes = (shape == Shape::adjacent_systems ? 4 : 2) * width;
    for (std::int64_t e = 0; e < 3 * m * 4 * width; ++e) {
      if (e % (3 * m * lanes) < lanes) continue;
      subnormal += std::fpclassify(work[static_cast<std::size_t>(e)]) == FP_SUBNORMAL ? 1 : 0;
    }
    EXPECT_EQ(subnormal, 0);
  }
}

TEST(LanePasses, LongPiecesAgreeToRoundingWithoutSubnormals) {
  for (const Copy& copy : usable_copies()) {
    if (!copy.usable) continue;
    SCOPED_TRACE(copy.name);
    for (bool spoil : {false, true}) {
      expect_long_pieces_close<float>(copy.reduce_f, copy.finish_f, copy.width_f, spoil);
      expect_long_pieces_close<double>(copy.reduce_d, copy.finish_d, copy.width_d, spoil);
    }
  }
}

TEST(LanePasses, WidthIsTheCopysVectorLength) {
  for (const Copy& copy : usable_copies()) {
    if (!copy.usable) continue;
    SCOPED_TRACE(copy.name);
    EXPECT_EQ(copy.width_f, 2 * copy.width_d);
    EXPECT_GE(copy.width_d, 2);
  }
}

}  // namespace
}  // namespace triax::detail::dist_lanes
