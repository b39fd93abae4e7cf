#pragma once
/// @file stencil.hpp
/// A banded operator B given as a stencil, for solves of A x = B f
/// (triax::FactoredSolver::solve_stencil): compact finite differences and filters, where the
/// right-hand side is a few-point combination of a field along the same line as the solve.
///
/// Row i (0 <= i < n) of B f along one system of n rows is
///
///   interior rows (2 <= i <= n-3):  sum_{k=-2..2} interior[k+2] f[i+k]
///   the first rows (i = 0, 1):      sum_{t=0..4}  first[i][t]   f[t]
///   the last rows (i = n-1-r, r = 0, 1): sum_{t=0..4} last[r][t] f[n-1-t]
///
/// so the closures' taps are counted inward from their edge: first[r][t] multiplies the t-th
/// point from the start, last[r][t] the t-th point from the end. A row that is both among the
/// first and among the last two (n <= 3) takes the closure of its nearer edge, the first on a
/// tie (n = 3: rows 0 and 1 take first[0], first[1], row 2 takes last[0]; n = 2: first[0] and
/// last[0]; n = 1: first[0]). Taps that fall outside the line (t >= n) are not read and count
/// as zero, so B never reads beyond a system's own n rows (ghost layers and padding are not
/// touched). Unused weights stay 0. Every tap inside the line is multiplied, a zero weight
/// included (a non-finite f there gives a non-finite row, as a dense B would). The example is
/// compiled and run in the tests (tests/support/factored_stencil.hpp).
///
/// @code
///   // The fourth-order Pade first derivative's right-hand side, spacing h:
///   //   interior (3/4h)(f[i+1] - f[i-1]); row 0 (-5 f0 + 4 f1 + f2)/(2h) and its mirror at n-1;
///   //   rows 1 and n-2 the interior formula.
///   triax::Stencil<double> B;
///   const double q = 3 / (4 * h), e = 1 / (2 * h);
///   B.interior[1] = -q;      B.interior[3] = q;       // offsets -1 and +1
///   B.first[0][0] = -5 * e;  B.first[0][1] = 4 * e;  B.first[0][2] = e;
///   B.first[1][0] = -q;      B.first[1][2] = q;
///   B.last[0][0] = 5 * e;    B.last[0][1] = -4 * e;  B.last[0][2] = -e;
///   B.last[1][0] = q;        B.last[1][2] = -q;
/// @endcode

namespace triax {

/// The weights of a five-point banded operator with its own first and last two rows (see the
/// file's notes for the rows each weight multiplies). A plain aggregate: zero-initialised
/// members, trivially copyable (a kernel takes it by value).
template <class T>
struct Stencil {
  /// Interior rows: interior[k + 2] multiplies f[i + k], k = -2..2.
  T interior[5] = {};
  /// Row r = 0, 1: first[r][t] multiplies f[t], t = 0..4.
  T first[2][5] = {};
  /// Row n-1-r, r = 0, 1: last[r][t] multiplies f[n-1-t], t = 0..4.
  T last[2][5] = {};
};

}  // namespace triax
