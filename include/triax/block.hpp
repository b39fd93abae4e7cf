#pragma once
/// @file block.hpp
/// Batches of block tridiagonal systems along any axis of an N-dimensional grid.
///
/// Each system is `A[i] u[i-1] + B[i] u[i] + C[i] u[i+1] = d[i]` for block rows i = 0..n-1, with
/// M x M blocks A[i], B[i], C[i] and vectors u[i], d[i] of M components (paper 000, Eq. 4-5).
/// `A[0]` and `C[n-1]` are never read. M = 1 is the scalar system.
///
/// **Layouts.** The grid has rank r (1..6). A block operand (A, B, C) is a triax::Layout of rank
/// r + 2: dimension 0 is the row within the block, dimension 1 the column (extent M each), and
/// dimensions 2..r+1 the grid. A vector operand (d, x) has rank r + 1: dimension 0 is the
/// component (extent M), dimensions 1..r the grid. `axis` counts grid dimensions (0..r-1). Every
/// storage scheme is then just a set of strides: BlockLayouts builds the three usual ones (array
/// of blocks, structure of arrays, the paper's interleaved GPU layout), with ghost layers like
/// Layout::padded, and triax::convert copies an operand from one layout to another.
///
/// @code
///   #include <triax/block.hpp>
///   // A 32 x 16 grid with 5 unknowns per point, systems along y (grid axis 1).
///   const auto l = triax::BlockLayouts::array_of_blocks(5, {32, 16});
///   std::vector<double> A(l.a.size()), B(l.b.size()), C(l.c.size()), d(l.d.size());
///   // ... fill ...
///   triax::BlockSolver<double> solver(triax::Backend::cpu, 5, l, /*axis=*/1);
///   solver.solve_in_place(A.data(), B.data(), C.data(), d.data());  // d now holds u
/// @endcode

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <type_traits>
#include <vector>

#include "triax/errors.hpp"
#include "triax/export.hpp"
#include "triax/layout.hpp"
#include "triax/options.hpp"

namespace triax {

/// The largest grid rank of a block system (a block operand then has rank 6 + 2 = max_rank).
inline constexpr int max_block_grid_rank = max_rank - 2;

/// The layouts of the five operands of a block solve: blocks a, b, c (rank r + 2) and vectors d
/// and x (rank r + 1); x is the output of solve() or the u of solve_increment(), ignored by
/// solve_in_place().
///
/// The named constructors lay out a grid of `extents` (rank 1..6) inside an allocation of
/// `allocated` grid points (empty = the extents: packed), the first interior point at grid index
/// `begin` (empty = 0), as Layout::padded does for scalars. Each operand is its own allocation
/// of M * M (blocks) or M (vectors) values per allocated grid point:
/// - array_of_blocks: each block contiguous and row-major (column stride 1, row stride M), each
///   vector contiguous; grid points in the order of the grid (dimension 0 fastest). Solving along
///   grid axis 0 gives the per-system contiguous layout of paper 000's CPU solver (Fig. 17).
/// - structure_of_arrays: entry (row, column) of every block is one full grid, entry after entry
///   (row-major); component k of every vector likewise.
/// - interleaved: array_of_blocks with the solve axis outermost in memory, so that block row i
///   of neighbouring systems lies side by side (paper 000, Fig. 14-15: the GPU layout). The other
///   grid dimensions keep their order.
struct TRIAX_API BlockLayouts {
  Layout a, b, c, d, x;

  /// Blocks a, b, c alike and vectors d, x alike.
  BlockLayouts(const Layout& blocks, const Layout& vectors)
      : a(blocks), b(blocks), c(blocks), d(vectors), x(vectors) {}
  BlockLayouts(const Layout& a_, const Layout& b_, const Layout& c_, const Layout& d_,
               const Layout& x_)
      : a(a_), b(b_), c(c_), d(d_), x(x_) {}

  static BlockLayouts array_of_blocks(int m, const std::vector<std::int64_t>& extents,
                                      const std::vector<std::int64_t>& allocated = {},
                                      const std::vector<std::int64_t>& begin = {});
  static BlockLayouts structure_of_arrays(int m, const std::vector<std::int64_t>& extents,
                                          const std::vector<std::int64_t>& allocated = {},
                                          const std::vector<std::int64_t>& begin = {});
  static BlockLayouts interleaved(int m, const std::vector<std::int64_t>& extents, int axis,
                                  const std::vector<std::int64_t>& allocated = {},
                                  const std::vector<std::int64_t>& begin = {});
};

/// The algorithm a block plan runs. `automatic` asks the backend for its default (a plan never
/// reports it); a named algorithm must belong to the plan's backend.
enum class BlockAlgorithm {
  automatic,               ///< the backend's choice: one per host backend, the coop kernel on cuda
  reference_block_thomas,  ///< Algorithm 12 in long double, LU with partial pivoting per block
  cpu_block_thomas,        ///< Algorithm 12 on neighbouring systems side by side (SIMD lanes),
                           ///< LU of each pivot block without pivoting
  cuda_block_thread_thomas,  ///< cuda: one thread per system, Algorithm 12 with LU without
                             ///< pivoting of each pivot block (the simple reference kernel)
  cuda_block_coop_thomas,    ///< cuda: M cooperating threads per system, each holding one row of
                             ///< every block, the block products and pivot solves by warp shuffles
};
TRIAX_API std::string_view to_string(BlockAlgorithm algorithm);

/// A plan for solving a batch of block tridiagonal systems along one grid axis.
///
/// Made once for (backend, M, layouts, axis, options, algorithm): validates everything, picks the
/// algorithm (BlockAlgorithm::automatic) or takes the one named, owns its workspace. Options:
/// `algorithm` must be Algorithm::automatic (block algorithms are named by the BlockAlgorithm
/// argument), `checked`, `num_threads` and `stream` as for triax::Solver. The cuda backend
/// takes M <= 8, device pointers (info too, in checked mode), runs on options.stream and sizes
/// its device workspace (C* and d* of every block row) here.
///
/// Preconditions checked at construction (triax::invalid_argument naming the argument and value):
/// 1 <= m (m <= 8 on cuda); an algorithm of the plan's backend; blocks of rank r + 2 and vectors of
/// rank r + 1 with 1 <= r <= 6; block extents [0] = [1] = m and vector extent [0] = m; equal grid
/// extents; 0 <= axis < r; no 64-bit overflow; no stride 0 in the output over an extent > 1.
///
/// Preconditions checked at each solve, before anything is written: no null pointer (unless the
/// batch is empty), alignment, and an output that does not overlap A, B, C, nor d unless it is d
/// itself (same pointer and layout), judged by the address ranges the layouts span.
///
/// Pivot blocks: the reference backend pivots by rows inside each pivot block; the cpu and cuda
/// backends do not pivot at all, so they need pivot blocks B[i] - A[i] C*[i-1] whose LU without
/// pivoting exists and is stable, as block diagonally dominant systems give (docs/algorithms.md).
/// No backend pivots across blocks.
///
/// Checked mode: `info` (one int per system) is 0, or i + 1 where block row i (0-based) broke
/// down: the forward pass's first row whose pivot block has a zero or non-finite pivot or whose
/// d*[i] is not finite; if the forward pass was clean, the last block row whose solution has a
/// non-finite component. Without checked mode a breakdown shows as inf/NaN in u.
template <class T>
class TRIAX_API BlockSolver {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "triax::BlockSolver supports float and double");

 public:
  BlockSolver(Backend backend, int m, const BlockLayouts& layouts, int axis,
              const Options& options = {}, BlockAlgorithm algorithm = BlockAlgorithm::automatic);
  ~BlockSolver();
  BlockSolver(BlockSolver&&) noexcept;
  BlockSolver& operator=(BlockSolver&&) noexcept;
  BlockSolver(const BlockSolver&) = delete;
  BlockSolver& operator=(const BlockSolver&) = delete;

  /// Solves in place: d is overwritten by u (laid out as d).
  void solve_in_place(const T* a, const T* b, const T* c, T* d, int* info = nullptr);
  /// Solves into x (laid out as layouts.x); d is not modified.
  void solve(const T* a, const T* b, const T* c, const T* d, T* x, int* info = nullptr);
  /// Adds the solution to u (laid out as layouts.x): u += solution.
  void solve_increment(const T* a, const T* b, const T* c, const T* d, T* u, int* info = nullptr);

  Backend backend() const;
  BlockAlgorithm algorithm() const;
  /// M.
  int block_size() const;
  /// Block rows per system (the grid extent of the axis).
  std::int64_t system_length() const;
  /// Number of systems; the length of `info`.
  std::int64_t system_count() const;
  std::size_t workspace_bytes() const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

extern template class TRIAX_API BlockSolver<float>;
extern template class TRIAX_API BlockSolver<double>;

/// Copies every logical element of `src` (laid out as `from`) to `dst` (laid out as `to`) on the
/// host, in parallel: the conversion between block layouts (or any two layouts of one rank and
/// extents). Elements of `dst` outside `to` are not touched. Throws triax::invalid_argument for
/// different ranks or extents, a null pointer, a `to` that writes an element twice (stride 0), or
/// overlapping source and destination.
template <class T>
TRIAX_API void convert(const Layout& from, const T* src, const Layout& to, T* dst);

}  // namespace triax
