#pragma once
// The 3-D heat equation u_t = u_xx + u_yy + u_zz on the unit cube, u = 0 on the boundary,
// u(0) = sin(pi x) sin(pi y) sin(pi z), whose exact solution decays as exp(-3 pi^2 t).
//
// Douglas-Gunn ADI in delta form (Crank-Nicolson weights: second order in time and space,
// unconditionally stable):
//   (1 - dt/2 Lx) D1 = dt (Lx + Ly + Lz) u
//   (1 - dt/2 Ly) D2 = D1
//   (1 - dt/2 Lz) D3 = D2,   u += D3
// One batched triax solve per axis per step; the last one adds into u (increment mode). Every
// system has the same constant matrix, so a, b and c are broadcast: one value each, stride 0.

#include <array>
#include <cstdint>
#include <string>

#include "triax/triax.hpp"

namespace adi {

struct Settings {
  std::int64_t n = 128;  // interior points per dimension; h = 1 / (n + 1)
  int steps = 20;
  double dt = 0;         // 0: dt = h, so the O(dt^2) and O(h^2) errors shrink together
  std::string precision = "double";
  triax::Backend backend = triax::Backend::cpu;
  // --procs (under mpirun): the grid over procs[0] x procs[1] x procs[2] ranks, solved by
  // triax::mpi (dist_heat.hpp); otherwise one rank and triax::Solver.
  bool over_ranks = false;
  std::array<int, 3> procs{1, 1, 1};
  // --dist-method / --transport (with --procs): triax::mpi::Method and Transport by name
  // (to_string's spelling); "automatic" lets the plans choose. Rank 0 prints what they run.
  std::string dist_method = "automatic";
  std::string transport = "automatic";
  bool phase_times = false;  // --phase-times: the plans time their phases (GPU ranks synchronise)
};

struct AxisTiming {
  double seconds = 0;        // total over the timed steps
  double bytes = 0;          // bytes a perfect solver moves, summed over the timed steps
  int steps = 0;             // timed steps: all but the first where there are two or more
  double first_seconds = 0;  // the first step's solve, apart from the timed ones
};

struct Result {
  double max_error = 0;  // against the exact solution at t_end
  double dt = 0, t_end = 0;
  AxisTiming axis[3];
  double total_seconds = 0;  // the whole time loop, explicit operator included
};

// Throws triax::error (not_compiled for --backend cuda in a build without CUDA).
template <class T>
Result run(const Settings& s);

}  // namespace adi
