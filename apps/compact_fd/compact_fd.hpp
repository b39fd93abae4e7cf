#pragma once
// Compact (Pade) finite differences on a 3-D field through triax::FactoredSolver (paper 004's
// application): the fourth-order first derivative
//   interior:   (1/4) f'[i-1] + f'[i] + (1/4) f'[i+1] = (3/2) (f[i+1] - f[i-1]) / (2h)
//   boundaries: f'[0] + 2 f'[1] = (-5 f[0] + 4 f[1] + f[2]) / (2h), mirrored at i = n-1
// (the third-order one-sided closure) along one axis of a packed n0 x n1 x n2 field (dimension 0
// fastest). The matrix is the same for every line, so it is factored once per axis; each
// derivative is one stencil pass (f -> right-hand side in df) and one in-place factored solve.

#include <array>
#include <cstdint>
#include <vector>

#include "triax/factored.hpp"

namespace cfd {

using Extents = std::array<std::int64_t, 3>;

/// The Pade matrix with its closures for n >= 4 rows (a[0], c[n-1] unused, set to 0).
template <class T>
void pade_matrix(std::int64_t n, std::vector<T>& a, std::vector<T>& b, std::vector<T>& c);

/// The right-hand side of the derivative along `axis` of f (packed over `e`) into r, on the host.
template <class T>
void rhs_host(const T* f, T* r, const Extents& e, int axis, T h);

#ifdef TRIAX_HAS_CUDA
/// The same on the device, on `stream` (f and r device pointers).
template <class T>
void rhs_cuda(const T* f, T* r, const Extents& e, int axis, T h, void* stream);
#endif

/// The derivative along one axis, on the cpu or cuda backend (pointers in that memory).
template <class T>
class Derivative {
 public:
  Derivative(triax::Backend backend, const Extents& e, int axis, T h, void* stream = nullptr);
  /// df = d f / d x_axis (df must not overlap f).
  void operator()(const T* f, T* df);

 private:
  triax::Backend backend_;
  Extents e_;
  int axis_;
  T h_;
  void* stream_;
  triax::FactoredSolver<T> solver_;
};

}  // namespace cfd
