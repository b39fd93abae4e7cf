#pragma once
// Row i of B f for a triax::Stencil B (include/triax/stencil.hpp states the rows). One
// definition for every route that applies a stencil: the host workspace pass, the cuda
// workspace kernel and the fused chunk table kernels, so that all of them form each row with
// the same products summed in the same order.
#include <cstdint>

#include "core/problem.hpp"  // TRIAX_HOST_DEVICE
#include "triax/stencil.hpp"

namespace triax::detail {

/// Whether row i of n takes the interior weights: its taps i-2 .. i+2 all lie inside the line.
template <class I>
TRIAX_HOST_DEVICE constexpr bool stencil_interior_row(I i, I n) {
  return i >= 2 && i + 2 < n;
}

/// An interior row: sum over k = -2..2 of interior[k+2] win(k), win(k) = f[i+k].
template <class T, class Win>
TRIAX_HOST_DEVICE T stencil_interior_value(const Stencil<T>& s, Win win) {
  T sum = T(0);
  for (int k = -2; k <= 2; ++k) sum += s.interior[k + 2] * win(k);
  return sum;
}

/// A row that is not interior (i < 2 or i >= n-2): its nearer edge's closure (the first on a
/// tie), taps inside the line only; line(r) = f[r] for 0 <= r < n.
template <class T, class I, class Line>
TRIAX_HOST_DEVICE T stencil_edge_value(const Stencil<T>& s, I i, I n, Line line) {
  const I from_end = n - 1 - i;
  const bool head = i <= from_end;  // then i < 2; else from_end < 2
  const T* w = head ? s.first[i] : s.last[from_end];
  T sum = T(0);
  for (I t = 0; t < 5 && t < n; ++t) sum += w[t] * line(head ? t : n - 1 - t);
  return sum;
}

/// Row i of B f: win(k) = f[i+k] (read for interior rows only), line(r) = f[r].
template <class T, class I, class Win, class Line>
TRIAX_HOST_DEVICE T stencil_row(const Stencil<T>& s, I i, I n, Win win, Line line) {
  return stencil_interior_row(i, n) ? stencil_interior_value(s, win)
                                    : stencil_edge_value(s, i, n, line);
}

}  // namespace triax::detail
