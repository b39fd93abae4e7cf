// The CPU ranks' local passes in strips (src/dist/cpu_lanes/strips.inc, issue 28) against the
// groups' order (TRIAX_DIST_STRIPS=0) bit for bit: the lane passes themselves on every compiled
// copy this processor runs (lines of systems a multiple of W long, several lines, batches that
// start inside a vector and so keep the groups, pieces long enough for drop_tiny, a NaN that
// revives a dropped coupling, checked mode's first bad row), and whole solves along y and z on
// a grid of the world's ranks with the switch read by the plan.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "dist/cpu_lanes/lane_passes.hpp"
#include "grid_solve.hpp"
#include "lane_copies.hpp"

namespace triax::test::dist {
namespace {

using triax::detail::Operands;
using triax::detail::PiecePlace;
using triax::detail::Problem;
using triax::detail::ReducedPair;
using triax::detail::dist_lanes::LaneJob;
using triax::detail::dist_lanes::LanePass;
using triax::detail::dist_lanes::test::Copy;
using triax::detail::dist_lanes::test::usable_copies;

/// The same bits, element by element, any NaN equal to any other: which operand's NaN an
/// operation passes on (and so its sign) depends on the order the compiler gave the operands in
/// each copy of the code, not on the arithmetic.
template <class T>
bool same_bits(const T* x, const T* y, std::size_t n) {
  for (std::size_t e = 0; e < n; ++e) {
    if (std::isnan(x[e]) && std::isnan(y[e])) continue;
    if (std::memcmp(x + e, y + e, sizeof(T)) != 0) return false;
  }
  return true;
}
template <class T>
bool same_bits(const std::vector<T>& x, const std::vector<T>& y) {
  return x.size() == y.size() && same_bits(x.data(), y.data(), x.size());
}
template <class T>
bool same_bits(const std::vector<ReducedPair<T>>& x, const std::vector<ReducedPair<T>>& y) {
  static_assert(sizeof(ReducedPair<T>) == 8 * sizeof(T));
  return x.size() == y.size() && same_bits(&x.data()->first.a, &y.data()->first.a, 8 * x.size());
}

/// `lines` lines of `line` systems along x, pieces of m rows along y (row stride `line`), the
/// lines along z; random diagonally dominant rows, with a zero pivot in system 1 (checked
/// mode's bad row) and, where `spoil`, a NaN in a at row m - 20 of system line + 2.
template <class T>
struct Grid {
  std::int64_t m, count;
  std::vector<T> a, b, c, d;
  Problem p;

  Grid(std::int64_t rows, std::int64_t line, std::int64_t lines, bool spoil, std::uint64_t seed)
      : m(rows), count(line * lines) {
    const auto n = static_cast<std::size_t>(m * count);
    a.resize(n), b.resize(n), c.resize(n), d.resize(n);
    std::uint64_t state = seed;
    const auto next = [&] {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      return double(state >> 11) / double(1ull << 53) - 0.5;
    };
    for (std::size_t e = 0; e < n; ++e) {
      a[e] = T(next()), c[e] = T(next()), b[e] = T(2.1 + next()), d[e] = T(100 * next());
    }
    p.n = m;
    p.count = count;
    p.batch_rank = lines > 1 ? 2 : 1;
    p.batch_extents[0] = line;
    p.batch_extents[1] = lines;
    for (auto& map : p.map) {
      map.offset = 0, map.row_stride = line, map.batch_strides[0] = 1;
      map.batch_strides[1] = line * m;
    }
    if (m >= 2 && count > 1)
      b[static_cast<std::size_t>(p.system_offset(detail::op_b, 1) + line)] = 0;
    if (spoil && m > 20 && count > line + 2) {
      a[static_cast<std::size_t>(p.system_offset(detail::op_a, line + 2) + (m - 20) * line)] =
          std::numeric_limits<T>::quiet_NaN();
    }
  }
};

/// What one order of the passes gave: x, the reduced rows, the first bad rows.
template <class T>
struct PassResult {
  std::vector<T> x;
  std::vector<ReducedPair<T>> rows;
  std::vector<std::int64_t> bad;
};

template <class T>
PassResult<T> run_passes(LanePass<T> reduce, LanePass<T> finish, const Grid<T>& g, bool strips,
                         PiecePlace place, bool accumulate, bool checked, int batches,
                         int threads) {
  const T nan = std::numeric_limits<T>::quiet_NaN();
  PassResult<T> r;
  r.x.assign(g.a.size(), accumulate ? T(0.25) : nan);
  r.rows.assign(static_cast<std::size_t>(g.count), {{nan, nan, nan, nan}, {nan, nan, nan, nan}});
  r.bad.assign(static_cast<std::size_t>(g.count), -5);
  std::vector<T> work(static_cast<std::size_t>(3 * g.m * g.count), nan);
  std::vector<T> ends(static_cast<std::size_t>(2 * g.count));
  for (std::int64_t s = 0; s < g.count; ++s) {
    ends[2 * s] = T(0.5) + T(s % 3), ends[2 * s + 1] = T(-0.75) + T(s % 5);
  }
  const Operands<T> ops{g.a.data(), g.b.data(), g.c.data(), g.d.data(),
                        r.x.data(), accumulate, nullptr};
  LaneJob<T> job{
      g.p, ops,    place, work.data(), r.rows.data(), ends.data(), checked ? r.bad.data() : nullptr,
      40,  threads};
  job.strips = strips;
  std::vector<std::int64_t> starts;
  for (int k = 0; k <= batches; ++k) {
    starts.push_back(k == 0 ? 0 : g.count - (g.count * (batches - k)) / batches);
  }
  for (int k = 0; k < batches; ++k) reduce(job, starts[k], starts[k + 1] - starts[k]);
  for (int k = 0; k < batches; ++k) finish(job, starts[k], starts[k + 1] - starts[k]);
  return r;
}

template <class T>
void expect_strips_equal_groups(LanePass<T> reduce, LanePass<T> finish, int width) {
  struct Case {
    std::int64_t m, line, lines;
    int batches, threads;
    bool spoil;
  };
  const Case cases[] = {
      {2, 2 * width, 3, 1, 1, false},       // the shortest pieces, several lines
      {17, 3 * width, 4, 1, 1, false},      // lines of 3 vectors
      {17, 3 * width, 4, 3, 2, false},      // batches cutting lines (some start inside a vector)
      {9, 64 * width, 1, 2, 3, false},      // one line of several strips
      {300, 5 * width, 3, 1, 2, true},      // couplings dropped, then revived by a NaN
      {300, 2 * width, 3, 4, 1, false},     // batches of whole vectors, long pieces
      {33, 4 * width + 4, 2, 1, 1, false},  // lines not whole vectors: the groups' order
  };
  for (const Case& k : cases) {
    const Grid<T> g(k.m, k.line, k.lines, k.spoil, 900 + k.m + k.line);
    for (int place = 0; place < 4; ++place) {
      const PiecePlace where{(place & 1) != 0, (place & 2) != 0};
      for (bool accumulate : {false, true}) {
        for (bool checked : {false, true}) {
          SCOPED_TRACE("m " + std::to_string(k.m) + ", line " + std::to_string(k.line) +
                       ", lines " + std::to_string(k.lines) + ", batches " +
                       std::to_string(k.batches) + ", place " + std::to_string(place) +
                       (accumulate ? ", increment" : "") + (checked ? ", checked" : ""));
          const PassResult<T> groups = run_passes(reduce, finish, g, false, where, accumulate,
                                                  checked, k.batches, k.threads);
          const PassResult<T> strips =
              run_passes(reduce, finish, g, true, where, accumulate, checked, k.batches, k.threads);
          EXPECT_TRUE(same_bits(groups.x, strips.x)) << "x differs";
          EXPECT_TRUE(same_bits(groups.rows, strips.rows)) << "reduced rows differ";
          EXPECT_EQ(groups.bad, strips.bad);
          int nans = 0;
          for (T v : strips.x) nans += std::isnan(v) ? 1 : 0;
          // Every element written (poisoned with NaN before): NaN only in the spoiled system
          // and the one with the zero pivot.
          EXPECT_LE(nans, 2 * k.m);
          if (checked && k.m >= 3)
            EXPECT_LT(strips.bad[1], std::numeric_limits<std::int64_t>::max());
        }
      }
    }
  }
}

TEST(DistStrips, LanePassesEqualTheGroupsBitForBit) {
  for (const Copy& copy : usable_copies()) {
    if (!copy.usable) continue;
    SCOPED_TRACE(copy.name);
    expect_strips_equal_groups<double>(copy.reduce_d, copy.finish_d, copy.width_d);
    expect_strips_equal_groups<float>(copy.reduce_f, copy.finish_f, copy.width_f);
  }
}

/// Sets TRIAX_DIST_STRIPS for the scope, restoring "unset" after.
struct StripsVariable {
  explicit StripsVariable(const char* value) { setenv("TRIAX_DIST_STRIPS", value, 1); }
  ~StripsVariable() { unsetenv("TRIAX_DIST_STRIPS"); }
  StripsVariable(const StripsVariable&) = delete;
  StripsVariable& operator=(const StripsVariable&) = delete;
};

/// Whole solves: plans made with TRIAX_DIST_STRIPS=0 (the groups) and unset (strips) give the
/// same bits and info on every rank, within the allowed error.
template <class T>
void expect_switch_changes_nothing(const GlobalProblem<T>& p, const std::vector<bool>& splittable,
                                   Mode mode, int threads) {
  for (mpi::Method method : {mpi::Method::gather_scatter, mpi::Method::pcr}) {
    for (bool checked : {false, true}) {
      SCOPED_TRACE(std::string(mpi::to_string(method)) + ", axis " + std::to_string(p.axis) +
                   (checked ? ", checked" : ""));
      mpi::Options options;
      options.num_threads = threads;
      options.method = method;
      options.checked = checked;
      options.batches = 2;
      GridSolve<T> groups;
      {
        const StripsVariable off("0");
        groups = solve_on_grid(p, splittable, mode, 1, options);
      }
      const GridSolve<T> strips = solve_on_grid(p, splittable, mode, 1, options);
      const bool same = same_bits(groups.values, strips.values) && groups.info == strips.info;
      EXPECT_EQ(world_max(same ? 0 : 1), 0) << "the strips changed the results";
      EXPECT_LE(strips.error, p.allowed_error()) << "single-rank error " << p.single_rank_error;
      EXPECT_TRUE(strips.ghosts_clean);
    }
  }
}

TEST(DistStrips, SwitchKeepsTheBitsAlongYAndZ) {
  // x lines of 32 (whole vectors of every copy), split along the solve axis, and along y with
  // the ranks along z (an axis that is not split keeps the distributed path in checked mode).
  const GlobalProblem<double> y({32, 24, 6}, 1, 930);
  expect_switch_changes_nothing(y, {false, true, false}, Mode::separate, 1);
  expect_switch_changes_nothing(y, {false, false, true}, Mode::in_place, 2);
  const GlobalProblem<float> z({32, 5, 40}, 2, 931);
  expect_switch_changes_nothing(z, {false, false, true}, Mode::increment, 2);
  const GlobalProblem<double> zd({48, 3, 30}, 2, 932);
  expect_switch_changes_nothing(zd, {false, false, true}, Mode::separate, 1);
}

}  // namespace
}  // namespace triax::test::dist
