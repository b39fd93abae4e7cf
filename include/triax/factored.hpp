#pragma once
/// @file factored.hpp
/// One tridiagonal matrix, many right-hand sides: a plan that factors the matrix once.
///
/// triax::FactoredSolver is made from one system's diagonals a, b, c (n rows, host memory, copied
/// at plan time) and the layouts of d and x; every system of the batch shares that matrix. The
/// plan runs Thomas' LU without pivoting once (in long double, rounded to T) and keeps, per row,
/// the subdiagonal a[i], the reciprocal pivot 1 / m[i] and the eliminated c'[i] = c[i] / m[i].
/// Each solve then reads d and writes x only:
///
///   forward:  d'[i] = (d[i] - a[i] d'[i-1]) (1 / m[i]);   backward: x[i] = d'[i] - c'[i] x[i+1].
///
/// **Near-Toeplitz compression.** For a matrix with constant interior diagonals the factors
/// converge to a fixed point after a few rows (fast for a diagonally dominant matrix, slowly as
/// |b| approaches |a| + |c|, never for a non-dominant or varying one). The plan stores the rows
/// before the longest run of bit-identical consecutive factor rows, that run's value once (the
/// limit), and the rows after it (the boundary rows of the end). The compression is lossless:
/// every row reads back exactly the factors the uncompressed table would hold; a matrix whose
/// factors never repeat is stored row by row. stored_rows() says how many rows the plan keeps.
///
/// **Pivots.** The solve multiplies by reciprocal pivots. Where a pivot or its reciprocal is not
/// a normal number in T (a matrix near the ends of T's range) the plan solves (s A) x = s d
/// instead, s the power of two that brings the largest pivot near 1: every product with s is
/// exact, so a matrix scaled by 2^k is solved bit for bit as the unscaled one, at one more
/// multiplication per element (scaled(); docs/algorithms.md, "Factored and near-Toeplitz solves").
///
/// **Breakdown.** A zero or non-finite pivot (or a c' that overflows T) at row k does not throw:
/// the plan reports it as factor_info() = k + 1, every solve writes NaN into every x (u += NaN
/// for solve_increment) and, in checked mode, sets info = k + 1 for every system. With a clean
/// factorisation, checked mode's info is, per system, the first row whose d' is not finite, else
/// the last row whose stored solution is not finite, else 0 (as triax::Solver reports it).
///
/// @code
///   #include <triax/factored.hpp>
///   // The fourth-order Pade matrix (1/4, 1, 1/4) along y of a 64^3 grid.
///   std::vector<double> a(64, 0.25), b(64, 1.0), c(64, 0.25);
///   triax::FactoredSolver<double> solver(triax::Backend::cpu, a.data(), b.data(), c.data(), 64,
///                                        triax::Layout::packed({64, 64, 64}), /*axis=*/1);
///   solver.solve_in_place(d);  // d now holds x, every system solved with one matrix
/// @endcode
///
/// **One matrix per group of systems.** The second constructor takes a, b, c laid out over d's
/// dimensions by one Layout `coefficients` (the same for the three arrays, host memory, copied):
/// extent n along the axis (any stride, 0 for constant diagonals), and along every other
/// dimension either d's extent or 1. A batch dimension with extent > 1 and a non-zero stride is
/// a *group dimension*; stride 0 (or extent 1) shares. Systems whose coordinates differ only
/// along shared dimensions use one matrix, factored once: e.g. ADI on a 3-D grid along x with
/// coefficients that vary in z but not in y (strides {1, 0, nx}: nz groups), or s species with a
/// matrix each (a species dimension of stride n). At most 4096 groups; every algorithm takes
/// groups, CR included (its coefficients are per group too). Where the group dimensions are the
/// slowest of d's dimensions with extent > 1 and the algorithm is Thomas', one kernel launch (one
/// OpenMP region) solves every group from one table; otherwise each group is a plan of its own,
/// run one after another (a launch or OpenMP region per group). Breakdown is per group: factor_info() is
/// the first group's non-zero value, and only that group's systems get NaN and info = k + 1. On
/// cuda, checked mode needs the group dimensions to be the slowest of d's dimensions with extent
/// > 1 (each group's info is then one run); otherwise the constructor refuses it.
/// @code
///   // 16 species, each its own matrix along axis 0 of a 256 x 64 x 16 array d.
///   // a, b, c hold 256 x 16 values: row i of species s at i + 256 s.
///   triax::FactoredSolver<double> solver(triax::Backend::cpu, a, b, c,
///                                        triax::Layout::strided({256, 64, 16}, {1, 0, 256}),
///                                        triax::Layout::packed({256, 64, 16}), /*axis=*/0);
/// @endcode

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <type_traits>

#include "triax/errors.hpp"
#include "triax/export.hpp"
#include "triax/layout.hpp"
#include "triax/options.hpp"
#include "triax/stencil.hpp"

namespace triax {

/// The algorithm of a factored plan (the plan's options.algorithm must stay automatic, as for
/// triax::BlockSolver). `automatic` runs Thomas' factors (cpu_thomas, cuda_thread_thomas), except
/// that on cuda one matrix of 64 <= n <= 1024 rows, diagonally dominant in rows 1 .. n-2,
/// unchecked, with a clean unscaled factorisation runs cuda_hybrid (TRIAX_CUDA_FACTORED_ROUTE=thomas
/// keeps cuda_thread_thomas, =hybrid takes cuda_hybrid for any such plan at any n;
/// docs/algorithms.md, "Factored and near-Toeplitz solves"). Such a plan solves with a precomputed
/// chunk table in double, and in float along strided axes past 256 rows (where it measured
/// faster), else through the general hybrid (=table forces the table wherever it holds).
enum class FactoredAlgorithm {
  automatic,
  cpu_thomas,            ///< the stored (compressed) Thomas factors, vectorised strips of systems
  cpu_cr,                ///< paper 004's cyclic reduction with precomputed coefficients, one
                         ///< system at a time (the clear statement of the algorithm)
  cuda_thread_thomas,    ///< the stored Thomas factors, one thread per system (tiled along x)
  cuda_block_cr_shared,  ///< paper 004's CR, a thread block per group of neighbouring systems,
                         ///< the systems in shared memory: n <= 12032 (float) / 6016 (double)
  cuda_block_cr_global,  ///< the same reduction working in global memory (x's rows, or a
                         ///< workspace for u += x): any n
  // Appended (the values above stay).
  cuda_hybrid,  ///< one matrix (no groups): triax::Solver's Thomas-PCR hybrid given the matrix
                ///< broadcast to every system (d and x are the only arrays per system); checked
                ///< mode, a breakdown or a scaled table run the cuda_thread_thomas kernels
};

/// The name of a factored algorithm, as written above (e.g. "cuda_block_cr_shared").
TRIAX_API std::string_view to_string(FactoredAlgorithm algorithm);

/// The layouts of the right-hand side d and of the output x (x of solve(), u of
/// solve_increment(); ignored by solve_in_place(), which writes d). Same rank and extents.
struct FactoredLayouts {
  Layout d, x;
  FactoredLayouts(const Layout& all) : d(all), x(all) {}  // NOLINT
  FactoredLayouts(const Layout& d_, const Layout& x_) : d(d_), x(x_) {}
};

/// A plan for solving many systems that share one tridiagonal matrix along one axis.
///
/// **Cyclic reduction (paper 004).** FactoredAlgorithm::cpu_cr and the cuda_block_cr ones run
/// cyclic reduction whose coefficients (per level: k1, k2 of the kept rows; 1/b, a/b, c/b of
/// the eliminated ones) are computed once here, in long double, and compressed per level as the
/// Thomas factors are. Checked mode reports, per system, the first row whose d is not finite,
/// else the first row whose stored result is not finite, else 0 (and the breakdown row of the
/// coefficients, with NaN in every x, where a reduced pivot is zero or not finite).
///
/// Preconditions checked at construction (triax::invalid_argument naming the argument and value):
/// those of triax::Solver for the layouts of d and x and for options (algorithm must be
/// automatic), n equal to the extent of the axis, and non-null a, b, c when n > 0 (a[0] and
/// c[n-1] are never read). The cuda backend copies the factors to device memory here (which
/// may throw triax::out_of_memory or triax::cuda_error) and runs on options.stream.
///
/// Preconditions checked at every solve, before anything is written: those of triax::Solver for
/// d, x and info (null, alignment, memory space, overlap of the output with d unless in place,
/// info over an operand, checked mode without info). One solve at a time per plan.
template <class T>
class TRIAX_API FactoredSolver {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "triax::FactoredSolver supports float and double");

 public:
  FactoredSolver(Backend backend, const T* a, const T* b, const T* c, std::int64_t n,
                 const FactoredLayouts& layouts, int axis, const Options& options = {},
                 FactoredAlgorithm algorithm = FactoredAlgorithm::automatic);
  /// One matrix per group of systems: a, b, c laid out by `coefficients` (see the file's notes).
  /// Besides the checks above: coefficients' rank must be d's and each extent d's (or 1 off the
  /// axis), at most 4096 groups, and (cuda, checked) the group dimensions the slowest.
  FactoredSolver(Backend backend, const T* a, const T* b, const T* c, const Layout& coefficients,
                 const FactoredLayouts& layouts, int axis, const Options& options = {},
                 FactoredAlgorithm algorithm = FactoredAlgorithm::automatic);
  ~FactoredSolver();
  FactoredSolver(FactoredSolver&&) noexcept;
  FactoredSolver& operator=(FactoredSolver&&) noexcept;
  FactoredSolver(const FactoredSolver&) = delete;
  FactoredSolver& operator=(const FactoredSolver&) = delete;

  /// Solves in place: d is overwritten by x (laid out as d).
  void solve_in_place(T* d, int* info = nullptr);
  /// Solves into x (laid out as layouts.x); d is not modified.
  void solve(const T* d, T* x, int* info = nullptr);
  /// u += x (u laid out as layouts.x); u must not share elements with d.
  void solve_increment(const T* d, T* u, int* info = nullptr);
  /// x = A^{-1} (B f): the right-hand side is the banded operator B (a triax::Stencil, see
  /// stencil.hpp for its rows) applied to f along each system, e.g. a compact finite difference.
  /// f is laid out as layouts.d, x as layouts.x; f is read inside each system's n rows only.
  /// f and x must not share an element (B reads f's neighbouring rows while x is written):
  /// triax::invalid_argument naming f otherwise, and for a null, misaligned or wrong-space f.
  /// Where fuses_stencil(), B f is formed inside the solve and never stored (f read once, x
  /// written once). Elsewhere the plan writes B f into a workspace laid out as d, in the
  /// backend's memory (allocated at the first such call and kept: workspace_bytes() then counts
  /// it), and solves from it as solve() does; checked mode and info as for solve(). B is taken
  /// per call (25 values, passed to the kernel by value), so one plan of A serves any B.
  void solve_stencil(const Stencil<T>& B, const T* f, T* x, int* info = nullptr);
  /// Whether solve_stencil() runs in one pass: the cuda chunk table route (a cuda_hybrid plan
  /// whose matrix has a chunk table, route.hpp; unchecked, one matrix). Every other plan takes
  /// the workspace.
  bool fuses_stencil() const;

  Backend backend() const;
  /// The algorithm the plan runs (never automatic: the one automatic picked).
  FactoredAlgorithm algorithm() const;
  /// Rows per system (n).
  std::int64_t system_length() const;
  /// Number of systems; the length of `info`.
  std::int64_t system_count() const;
  /// Factor rows the plan stores: rows before the limit, the limit, rows after. A table that
  /// does not compress keeps every row and one limit slot it never reads (n + 1). For the CR
  /// algorithms: the coefficient entries stored over all levels (O(log n) for a near-Toeplitz
  /// matrix, about 2n + 2 log2 n otherwise).
  std::int64_t stored_rows() const;
  /// Rows before the converged run (those stored from the start of the system).
  std::int64_t head_rows() const;
  /// Rows after the converged run (stored from the end of the system); 0 when not compressed.
  std::int64_t tail_rows() const;
  /// Whether the factors were compressed (a run of at least 3 identical rows was found).
  bool compressed() const;
  /// Whether the solve scales d by a power of two (pivots outside T's normal range).
  bool scaled() const;
  /// 0 when the factorisation is clean, else k + 1 for the first row k with a zero or
  /// non-finite pivot (or a c' that overflows T). For the CR algorithms: k is the row whose
  /// reduced pivot (or a coefficient divided by it) broke down first, level by level.
  std::int64_t factor_info() const;
  /// Groups of systems with a matrix of their own (1 for the one-matrix constructor). For
  /// several groups, stored_rows() and workspace_bytes() sum over the groups, head_rows() and
  /// tail_rows() are the largest, compressed() says whether every group's table is, scaled()
  /// whether any is.
  std::int64_t group_count() const;
  /// Bytes of memory the plan owns for its factors and workspace (device memory on cuda).
  std::size_t workspace_bytes() const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

extern template class TRIAX_API FactoredSolver<float>;
extern template class TRIAX_API FactoredSolver<double>;

}  // namespace triax
