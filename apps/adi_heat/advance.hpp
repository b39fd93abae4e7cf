#pragma once
// The time loop of adi_heat, the same for host, device and distributed fields and for the
// single-rank (triax::Solver) and distributed (triax::mpi::Solver) plans, which share the solve
// signatures. The plans are made once, before it.

#include <chrono>

#include "heat_problem.hpp"

namespace adi {

template <class T, class Fields, class SolverX, class SolverY, class SolverZ>
void advance(Fields& fields, SolverX& solve_x, SolverY& solve_y, SolverZ& solve_z,
             const Settings& s, double mu, Result& r) {
  // With broadcast coefficients a perfect solver reads d and writes x; in increment mode it
  // also reads u. a, b and c are three numbers and are not counted. The whole grid's bytes,
  // however many ranks share it.
  const double cell_bytes = double(s.n) * double(s.n) * double(s.n) * sizeof(T);
  const double bytes[3] = {2 * cell_bytes, 2 * cell_bytes, 3 * cell_bytes};
  // The first step is reported apart from the rest where there are two or more: its solves
  // are the first launches of their kernels and the first passes over cold caches (before the
  // CUDA plans loaded their kernels when made, the first x solve took 6-9 ms on the H100).
  const int untimed = s.steps > 1 ? 1 : 0;
  double seconds[3] = {0, 0, 0}, first[3] = {0, 0, 0};
  const auto start = std::chrono::steady_clock::now();
  for (int step = 0; step < s.steps; ++step) {
    fields.explicit_rhs(T(mu));
    fields.mark(0);
    solve_x.solve_in_place(fields.a(), fields.b(), fields.c(), fields.d1());
    fields.mark(1);
    solve_y.solve(fields.a(), fields.b(), fields.c(), fields.d1(), fields.d2());
    fields.mark(2);
    solve_z.solve_increment(fields.a(), fields.b(), fields.c(), fields.d2(), fields.u());
    fields.mark(3);
    fields.add_elapsed(step < untimed ? first : seconds);  // on the GPU: waits for this step
  }
  r.total_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (int axis = 0; axis < 3; ++axis) {
    r.axis[axis].seconds = seconds[axis];
    r.axis[axis].steps = s.steps - untimed;
    r.axis[axis].bytes = bytes[axis] * r.axis[axis].steps;
    r.axis[axis].first_seconds = first[axis];
  }
}

}  // namespace adi
