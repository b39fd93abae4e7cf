#pragma once
// Compact (Pade) finite differences on a 3-D field through triax::FactoredSolver (paper 004's
// application): the fourth-order first derivative
//   interior:   (1/4) f'[i-1] + f'[i] + (1/4) f'[i+1] = (3/2) (f[i+1] - f[i-1]) / (2h)
//   boundaries: f'[0] + 2 f'[1] = (-5 f[0] + 4 f[1] + f[2]) / (2h), mirrored at i = n-1
// (the third-order one-sided closure) along one axis of a packed n0 x n1 x n2 field (dimension 0
// fastest). The matrix is the same for every line, so it is factored once per axis; each
// derivative is one FactoredSolver::solve_stencil with the right-hand side's stencil: on the
// GPU's chunk table route one pass that reads f and writes f' (issue 32's bar: 1.3x a copy),
// elsewhere the stencil into the plan's workspace and a factored solve.

#include <array>
#include <cstdint>
#include <vector>

#include "triax/factored.hpp"
#include "triax/stencil.hpp"

namespace cfd {

using Extents = std::array<std::int64_t, 3>;

/// The Pade matrix with its closures for n >= 4 rows (a[0], c[n-1] unused, set to 0).
template <class T>
void pade_matrix(std::int64_t n, std::vector<T>& a, std::vector<T>& b, std::vector<T>& c);

/// The right-hand side's stencil (triax::Stencil) for spacing h: (3/4h)(f[i+1] - f[i-1]) inside
/// and on rows 1, n-2; (-5 f0 + 4 f1 + f2)/(2h) on row 0, mirrored on row n-1.
template <class T>
triax::Stencil<T> pade_rhs(T h);

/// The derivative along one axis, on the cpu or cuda backend (pointers in that memory).
template <class T>
class Derivative {
 public:
  Derivative(triax::Backend backend, const Extents& e, int axis, T h, void* stream = nullptr);
  /// df = d f / d x_axis (df must not overlap f).
  void operator()(const T* f, T* df) { solver_.solve_stencil(rhs_, f, df); }
  /// Whether the derivative runs in one pass (FactoredSolver::fuses_stencil).
  bool fused() const { return solver_.fuses_stencil(); }

 private:
  triax::Stencil<T> rhs_;
  triax::FactoredSolver<T> solver_;
};

}  // namespace cfd
