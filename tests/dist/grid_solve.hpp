#pragma once
// The distributed tests' shared fixture: one solve of a GlobalProblem on a Cartesian grid of the
// world's ranks (exact methods, one row per rank, Jacobi and overlap tests all run it), with
// what it gave: the error against the reference backend, whether the ghosts survived, this
// rank's output values (for bit-for-bit comparisons), info and the Jacobi report.

#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "dist_problems.hpp"

namespace triax::test::dist {

enum class Mode { in_place, separate, increment };

template <class T>
struct GridSolve {
  double error = 0;          ///< max |x - reference| / max |reference| over every rank's block
  bool ghosts_clean = true;  ///< no rank wrote outside its block (agreed over the world)
  std::vector<T> values;     ///< this rank's output, in the block's element order
  std::vector<int> info;     ///< checked mode's info (empty otherwise)
  mpi::JacobiReport report;  ///< the solver's last_jacobi()
  mpi::Method method = mpi::Method::automatic;  ///< what the plan resolved to
  mpi::ReducedRows reduced_rows = mpi::ReducedRows::two_per_rank;
};

/// Solves p on a grid of the world's ranks over the splittable dimensions, the systems' pieces
/// along p.axis. The output is poisoned with NaN before the solve (increment: holds a known u).
template <class T>
GridSolve<T> solve_on_grid(const GlobalProblem<T>& p, const std::vector<bool>& splittable,
                           Mode mode, std::int64_t ghost, const mpi::Options& options) {
  const MPI_Comm cart = make_grid(splittable);
  const Block block = block_of(cart, p.extents);
  LocalBuffers<T> buf(p, block, ghost);
  mpi::Solver<T> solver(mpi::Decomposition::cartesian(cart, p.axis), buf.layout, p.axis, options);
  EXPECT_EQ(solver.first_global_row(), block.begin[p.axis]);
  EXPECT_EQ(solver.global_system_length(), p.extents[p.axis]);
  GridSolve<T> got;
  got.method = solver.method();
  got.reduced_rows = solver.reduced_rows();
  if (options.checked) got.info.assign(static_cast<std::size_t>(solver.system_count()), 99);
  int* info = options.checked ? got.info.data() : nullptr;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  std::vector<T> u0(buf.x.size(), T(0));
  for_each_element(p.extents, block, buf.layout, [&](std::int64_t o, std::int64_t g) {
    // increment adds to a known u; the other modes must write every element.
    u0[o] = mode == Mode::increment ? static_cast<T>(unit_value(p.seed, 7, g)) : T(0);
    buf.x[o] = mode == Mode::increment ? u0[o] : nan;
  });
  switch (mode) {
    case Mode::in_place:
      solver.solve_in_place(buf.a.data(), buf.b.data(), buf.c.data(), buf.d.data(), info);
      break;
    case Mode::separate:
      solver.solve(buf.a.data(), buf.b.data(), buf.c.data(), buf.d.data(), buf.x.data(), info);
      break;
    case Mode::increment:
      solver.solve_increment(buf.a.data(), buf.b.data(), buf.c.data(), buf.d.data(), buf.x.data(),
                             info);
      break;
  }
  got.report = solver.last_jacobi();
  const std::vector<T>& out = mode == Mode::in_place ? buf.d : buf.x;
  double error = 0;
  for_each_element(p.extents, block, buf.layout, [&](std::int64_t o, std::int64_t g) {
    got.values.push_back(out[o]);
    const double want = double(p.reference[g]) + double(u0[o]);
    const double e = std::abs(double(out[o]) - want) / p.scale;
    error = std::isnan(e) ? INFINITY : std::max(error, e);
  });
  const bool clean =
      buf.ghosts_hold(out, mode == Mode::in_place ? nan : LocalBuffers<T>::sentinel, p, block);
  got.error = world_max(error);
  got.ghosts_clean = world_max(clean ? 0 : 1) == 0;
  MPI_Comm free_me = cart;
  MPI_Comm_free(&free_me);
  return got;
}

/// Whether two solves' outputs are the same bits.
template <class T>
bool same_bits(const std::vector<T>& x, const std::vector<T>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(T)) == 0;
}

/// solve_on_grid split over every dimension, or with `along_axis_only` over the axis alone, into
/// a separate x (the Jacobi tests' solve).
template <class T>
GridSolve<T> solve_separate(const GlobalProblem<T>& p, const mpi::Options& options,
                            bool along_axis_only = false) {
  std::vector<bool> splittable(p.extents.size(), !along_axis_only);
  splittable[static_cast<std::size_t>(p.axis)] = true;
  return solve_on_grid(p, splittable, Mode::separate, 1, options);
}

}  // namespace triax::test::dist
