#pragma once
// The distributed tests' problems: a global N-D array of random diagonally dominant systems that
// every rank can generate element by element (a hash of the global index), split into uneven
// blocks over a Cartesian grid of ranks, each block in a local buffer with ghost layers. Every
// rank also solves the whole global problem on one rank (the reference backend, and the cpu
// backend for the single-rank error that the distributed error is held to).

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <vector>

#include "triax/mpi.hpp"
#include "triax/triax.hpp"

namespace triax::test::dist {

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
inline int world_size() {
  int s = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

/// The largest value over the world's ranks (every rank gets it).
inline double world_max(double v) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return v;
}

/// A value in [-1, 1) from (seed, operand, global index): splitmix64 of the three.
inline double unit_value(std::uint64_t seed, int operand, std::int64_t index) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ull * (static_cast<std::uint64_t>(index) * 8 +
                                                    static_cast<std::uint64_t>(operand) + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-52 - 1.0;
}

/// Which kind of systems a problem holds.
enum class Systems {
  dominant,      ///< |b| >= |a| + |c| + 0.5
  not_dominant,  ///< b = 1.2, a = c = 1: far from dominant, nonsingular for the sizes used
};

/// The coefficients of one global element.
template <class T>
struct Element {
  T a, b, c, d;
};

template <class T>
Element<T> element(std::uint64_t seed, std::int64_t g, Systems kind) {
  const double d = unit_value(seed, 3, g);
  if (kind == Systems::not_dominant) return {T(1), T(1.2), T(1), static_cast<T>(d)};
  const double a = unit_value(seed, 0, g), c = unit_value(seed, 2, g);
  const double sign = unit_value(seed, 1, g) < 0 ? -1 : 1;
  const double b = sign * (std::abs(a) + std::abs(c) + 1.0 + 0.5 * unit_value(seed, 4, g));
  return {static_cast<T>(a), static_cast<T>(b), static_cast<T>(c), static_cast<T>(d)};
}

/// The first index of piece i of p pieces of an extent: uneven on purpose, each piece two rows
/// and about (i + 1) shares of the rest (extent >= 2p).
inline std::int64_t piece_start(std::int64_t extent, int pieces, int i) {
  if (pieces == 1) return i == 0 ? 0 : extent;
  const std::int64_t shares = std::int64_t(pieces) * (pieces + 1) / 2;
  return 2 * i + (extent - 2 * pieces) * (std::int64_t(i) * (i + 1) / 2) / shares;
}

/// This rank's block of the global array on a Cartesian grid (cart dimension k splits array
/// dimension k).
struct Block {
  std::vector<std::int64_t> begin, extents;
};

inline Block block_of(MPI_Comm cart, const std::vector<std::int64_t>& global) {
  const int r = static_cast<int>(global.size());
  std::vector<int> dims(r), periods(r), coords(r);
  MPI_Cart_get(cart, r, dims.data(), periods.data(), coords.data());
  Block block;
  for (int k = 0; k < r; ++k) {
    const std::int64_t lo = piece_start(global[k], dims[k], coords[k]);
    const std::int64_t hi = piece_start(global[k], dims[k], coords[k] + 1);
    block.begin.push_back(lo);
    block.extents.push_back(hi - lo);
  }
  return block;
}

/// A Cartesian grid of the world's ranks over the dimensions marked splittable (the others get
/// one rank). The caller frees it.
inline MPI_Comm make_grid(const std::vector<bool>& splittable) {
  const int r = static_cast<int>(splittable.size());
  std::vector<int> dims(r), periods(r, 0);
  for (int k = 0; k < r; ++k) dims[k] = splittable[k] ? 0 : 1;
  MPI_Dims_create(world_size(), r, dims.data());
  MPI_Comm cart = MPI_COMM_NULL;
  MPI_Cart_create(MPI_COMM_WORLD, r, dims.data(), periods.data(), 0, &cart);
  return cart;
}

/// The global linear index (packed, dimension 0 fastest) of a global multi-index.
inline std::int64_t linear(const std::vector<std::int64_t>& global,
                           const std::vector<std::int64_t>& index) {
  std::int64_t g = 0, stride = 1;
  for (std::size_t k = 0; k < global.size(); ++k) {
    g += index[k] * stride;
    stride *= global[k];
  }
  return g;
}

/// Calls f(local offset, global linear index) for every interior element of a block stored
/// with `layout`.
template <class F>
void for_each_element(const std::vector<std::int64_t>& global, const Block& block,
                      const Layout& layout, F&& f) {
  const int r = static_cast<int>(global.size());
  std::vector<std::int64_t> local(r, 0), index(r);
  if (layout.size() == 0) return;
  while (true) {
    for (int k = 0; k < r; ++k) index[k] = block.begin[k] + local[k];
    f(layout.offset_of(local), linear(global, index));
    int k = 0;
    while (k < r && ++local[k] == block.extents[k]) local[k++] = 0;
    if (k == r) return;
  }
}

/// The whole global problem and its single-rank solutions.
template <class T>
struct GlobalProblem {
  std::vector<std::int64_t> extents;
  int axis;
  std::uint64_t seed;
  Systems kind;
  std::vector<T> reference;      // the reference backend's x
  double single_rank_error = 0;  // the cpu backend's max |x - reference| / max |reference|
  double scale = 0;              // max |reference|

  GlobalProblem(std::vector<std::int64_t> global, int axis_, std::uint64_t seed_,
                Systems kind_ = Systems::dominant)
      : extents(std::move(global)), axis(axis_), seed(seed_), kind(kind_) {
    const Layout packed = Layout::packed(extents);
    const auto n = static_cast<std::size_t>(packed.size());
    std::vector<T> a(n), b(n), c(n), d(n), x(n);
    for (std::size_t g = 0; g < n; ++g) {
      const Element<T> e = element<T>(seed, static_cast<std::int64_t>(g), kind);
      a[g] = e.a, b[g] = e.b, c[g] = e.c, d[g] = e.d;
    }
    reference.resize(n);
    Solver<T>(Backend::reference, packed, axis)
        .solve(a.data(), b.data(), c.data(), d.data(), reference.data());
    Solver<T>(Backend::cpu, packed, axis, {.num_threads = 1})
        .solve(a.data(), b.data(), c.data(), d.data(), x.data());
    for (std::size_t g = 0; g < n; ++g) scale = std::max(scale, std::abs(double(reference[g])));
    for (std::size_t g = 0; g < n; ++g) {
      single_rank_error =
          std::max(single_rank_error, std::abs(double(x[g]) - double(reference[g])) / scale);
    }
  }

  /// What the distributed error may be: 10x the single-rank error, or 10 epsilon where the
  /// single-rank solve happened to be exact.
  double allowed_error() const {
    return 10 * std::max(single_rank_error, double(std::numeric_limits<T>::epsilon()));
  }
};

/// One rank's buffers: its block of a, b, c, d and an output, with `ghost` layers around it
/// (NaN in the inputs' ghosts, so that a read there spoils the result; a finite sentinel in the
/// output's, which must survive).
template <class T>
struct LocalBuffers {
  Layout layout;
  std::vector<T> a, b, c, d, x;
  static constexpr T sentinel = T(-1234.5);

  static Layout layout_of(const Block& block, std::int64_t ghost) {
    std::vector<std::int64_t> allocated, begin;
    for (std::int64_t e : block.extents) {
      allocated.push_back(e + 2 * ghost);
      begin.push_back(ghost);
    }
    return Layout::padded(block.extents, allocated, begin);
  }

  LocalBuffers(const GlobalProblem<T>& p, const Block& block, std::int64_t ghost)
      : layout(layout_of(block, ghost)) {
    std::size_t size = 1;
    for (std::int64_t e : block.extents) size *= static_cast<std::size_t>(e + 2 * ghost);
    const T nan = std::numeric_limits<T>::quiet_NaN();
    a.assign(size, nan), b.assign(size, nan), c.assign(size, nan), d.assign(size, nan);
    x.assign(size, sentinel);
    for_each_element(p.extents, block, layout, [&](std::int64_t o, std::int64_t g) {
      const Element<T> e = element<T>(p.seed, g, p.kind);
      a[o] = e.a, b[o] = e.b, c[o] = e.c, d[o] = e.d;
    });
  }

  /// Whether every ghost element of an output buffer still holds `ghost` (bit for bit: the
  /// sentinel of x, the NaN of d).
  bool ghosts_hold(const std::vector<T>& out, T ghost, const GlobalProblem<T>& p,
                   const Block& block) const {
    std::vector<bool> interior(out.size(), false);
    for_each_element(p.extents, block, layout,
                     [&](std::int64_t o, std::int64_t) { interior[o] = true; });
    for (std::size_t o = 0; o < out.size(); ++o) {
      if (!interior[o] && std::memcmp(&out[o], &ghost, sizeof(T)) != 0) return false;
    }
    return true;
  }
};

}  // namespace triax::test::dist
