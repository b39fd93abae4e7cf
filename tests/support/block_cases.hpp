#pragma once
// The cases of the block tridiagonal tests, shared by every backend's suite: the three named
// storages (with ghost layers or not, d and x in different ones), a solve in any output mode on
// buffers of any memory, and the check of one solve against the dense long double oracle
// (solution within epsilon x condition, output padding and inputs untouched).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "support/block_problems.hpp"
#include "support/compare.hpp"

namespace triax::test {

enum class Storage { array_of_blocks, structure_of_arrays, interleaved };
inline constexpr Storage storages[] = {Storage::array_of_blocks, Storage::structure_of_arrays,
                                       Storage::interleaved};
inline const char* to_string(Storage s) {
  return s == Storage::array_of_blocks       ? "array_of_blocks"
         : s == Storage::structure_of_arrays ? "structure_of_arrays"
                                             : "interleaved";
}

inline BlockLayouts named_layouts(Storage s, int m, const std::vector<std::int64_t>& grid, int axis,
                                  bool ghost) {
  std::vector<std::int64_t> allocated, begin;
  if (ghost) {  // one ghost layer on every side
    for (auto e : grid) {
      allocated.push_back(e + 2);
      begin.push_back(1);
    }
  }
  switch (s) {
    case Storage::array_of_blocks:
      return BlockLayouts::array_of_blocks(m, grid, allocated, begin);
    case Storage::structure_of_arrays:
      return BlockLayouts::structure_of_arrays(m, grid, allocated, begin);
    default:
      return BlockLayouts::interleaved(m, grid, axis, allocated, begin);
  }
}

/// d in one storage and x in the next, so that every solve also converts between layouts.
inline BlockGeometry geometry(Storage s, int m, const std::vector<std::int64_t>& grid, int axis,
                              bool ghost) {
  BlockLayouts l = named_layouts(s, m, grid, axis, ghost);
  l.x = named_layouts(storages[(static_cast<int>(s) + 1) % 3], m, grid, axis, !ghost).x;
  return {m, grid, axis, l};
}

/// The grids of the sweeps over every axis of 1-D to 4-D grids.
inline const std::vector<std::vector<std::int64_t>> block_test_grids = {
    {5}, {4, 3}, {3, 4, 2}, {2, 3, 2, 3}};

/// Runs `mode` on a block solver over the batch's buffers (host memory).
template <class T>
void run_block_mode(BlockSolver<T>& solver, BlockBatch<T>& batch, Mode mode, int* info = nullptr) {
  solve_in_mode(solver, mode, std::tuple(batch.a.data(), batch.b.data(), batch.c.data()),
                batch.d.data(), batch.x.data(), info);
}

/// One case's inputs (random systems of a kind; the output's padding a finite sentinel; x
/// random for increments) and the oracle's answer for each system.
template <class T>
struct BlockCase {
  static constexpr T sentinel = T(-1234.5);
  BlockBatch<T> before;
  Mode mode;
  std::vector<DenseAnswer> answers;
  bool some_not_dominant = false;

  BlockCase(const BlockGeometry& g, BlockKind kind, Mode mode_, std::uint64_t seed)
      : before(g), mode(mode_) {
    before.fill(kind, seed);
    fill_outside(output_layout(), mode == Mode::in_place ? before.d : before.x, sentinel);
    if (mode == Mode::increment) {
      std::mt19937_64 gen(seed ^ 0x5bd1e995u);
      std::uniform_real_distribution<double> u(-1, 1);
      for_each_offset(g.layouts.x, [&](std::int64_t o) { before.x[o] = static_cast<T>(u(gen)); });
    }
    for (std::int64_t s = 0; s < g.systems(); ++s) {
      answers.push_back(dense_answer(before, s));
      some_not_dominant |= !answers.back().row_dominant;
    }
  }

  const Layout& output_layout() const {
    return mode == Mode::in_place ? before.g.layouts.d : before.g.layouts.x;
  }

  /// Checks a batch solved from `before`: every component of every system within epsilon x
  /// condition; the output's padding untouched bit for bit; a, b, c (and d unless in place)
  /// untouched. Returns false at the first wrong component.
  bool check(BlockBatch<T>& batch) {
    const BlockGeometry& g = before.g;
    const bool in_place = mode == Mode::in_place;
    const double eps = std::numeric_limits<T>::epsilon();
    for (std::int64_t s = 0; s < g.systems(); ++s) {
      double scale = 0;
      for (Wide v : answers[s].x) scale = std::max(scale, std::abs(double(v)));
      const double tol = block_tolerance<T>(answers[s].condition, scale, g.m);
      for (std::int64_t i = 0; i < g.n(); ++i) {
        for (int r = 0; r < g.m; ++r) {
          const double value = in_place ? double(batch.D(s, i, r)) : double(batch.X(s, i, r));
          double want = double(answers[s].x[i * g.m + r]), allowed = tol;
          if (mode == Mode::increment) {
            const double u0 = double(before.X(s, i, r));
            want += u0;
            allowed += 2 * eps * (std::abs(u0) + std::abs(want));
          }
          if (!(std::abs(value - want) <= allowed)) {
            ADD_FAILURE() << "system " << s << ", block row " << i << ", component " << r
                          << ": got " << value << ", want " << want << " (tolerance " << allowed
                          << ", condition " << answers[s].condition << ")";
            return false;
          }
        }
      }
    }
    const std::vector<T>& out = in_place ? batch.d : batch.x;
    const std::vector<bool> in = covered(output_layout(), out.size());
    for (std::size_t o = 0; o < out.size(); ++o) {
      if (!in[o] && std::memcmp(&out[o], &sentinel, sizeof(T)) != 0) {
        ADD_FAILURE() << "padding at " << o << " written: " << out[o];
        break;
      }
    }
    EXPECT_TRUE(same_bits(batch.a, before.a) && same_bits(batch.b, before.b) &&
                same_bits(batch.c, before.c))
        << "a, b or c written";
    if (!in_place) EXPECT_TRUE(same_bits(batch.d, before.d)) << "d written";
    return true;
  }
};

/// The checked-mode cases: a block diagonally dominant batch of 8 block rows and 11 systems
/// (systems along grid axis 0 or 1, with ghost layers), four of them spoilt at a known row; x
/// zeroed, so that increments add to zeros.
template <class T>
struct FaultyBlocks {
  struct Fault {
    std::int64_t system, row;
    enum Kind { zero_row_b, singular_schur, nan_d, inf_b } kind;
  };
  static constexpr Fault faults[] = {
      {1, 0, Fault::zero_row_b},      // a zero row of B[0]: the first pivot block is singular
      {4, 3, Fault::singular_schur},  // a row of A[3] and B[3] zero: so is that pivot block's
      {6, 5, Fault::nan_d},           // d*[5] is NaN
      {9, 7, Fault::inf_b},           // an infinite pivot-block entry at the last row
  };
  BlockBatch<T> batch;

  FaultyBlocks(Storage s, int m, int axis)
      : batch(geometry(
            s, m, axis == 0 ? std::vector<std::int64_t>{8, 11} : std::vector<std::int64_t>{11, 8},
            axis, true)) {
    batch.fill(BlockKind::dominant, test_seed(axis));
    const int r1 = std::min(1, m - 1), r2 = std::min(2, m - 1);  // rows a block has
    for (const Fault& f : faults) {
      switch (f.kind) {
        case Fault::zero_row_b:
          for (int c = 0; c < m; ++c) batch.B(f.system, f.row, r1, c) = 0;
          break;
        case Fault::singular_schur:
          for (int c = 0; c < m; ++c)
            batch.A(f.system, f.row, r2, c) = batch.B(f.system, f.row, r2, c) = 0;
          break;
        case Fault::nan_d:
          batch.D(f.system, f.row, r2) = std::numeric_limits<T>::quiet_NaN();
          break;
        case Fault::inf_b:
          batch.B(f.system, f.row, 0, 0) = std::numeric_limits<T>::infinity();
          break;
      }
    }
    for_each_offset(batch.g.layouts.x, [&](std::int64_t o) { batch.x[o] = T(0); });
  }

  /// Checked mode's info: row + 1 for each spoilt system, 0 for the others.
  void expect_info(const std::vector<int>& info) const {
    for (std::int64_t sys = 0; sys < batch.g.systems(); ++sys) {
      int want = 0;
      for (const Fault& f : faults)
        if (f.system == sys) want = static_cast<int>(f.row + 1);
      EXPECT_EQ(info[sys], want) << "system " << sys;
    }
  }

  /// Without checked mode a singular pivot block or NaN data never comes back as finite numbers
  /// (an infinite entry is not a singularity: the solution is its finite limit, as for scalars,
  /// and only checked mode reports it).
  void expect_breakdowns_visible(BlockBatch<T>& unchecked, Mode mode) const {
    for (const Fault& f : faults) {
      if (f.kind == Fault::inf_b) continue;
      bool some_non_finite = false;
      for (std::int64_t i = 0; i < unchecked.g.n(); ++i)
        for (int r = 0; r < unchecked.g.m; ++r) {
          const T v =
              mode == Mode::in_place ? unchecked.D(f.system, i, r) : unchecked.X(f.system, i, r);
          some_non_finite |= !std::isfinite(v);
        }
      EXPECT_TRUE(some_non_finite) << "system " << f.system << " looks solved";
    }
  }
};

}  // namespace triax::test
