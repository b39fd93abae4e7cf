#pragma once
/// @file triax.hpp
/// triax: batches of tridiagonal systems along any axis of an N-dimensional array.
///
/// Each system is `a[i] x[i-1] + b[i] x[i] + c[i] x[i+1] = d[i]` for i = 0..n-1; `a[0]` and
/// `c[n-1]` are never read, so `a` may be LAPACK's `dl - 1` (a pointer one element before the
/// sub-diagonal's allocation: the cuda backend asks the memory space of row 1). A plan
/// (triax::Solver) is made once for a backend, the operands' layouts, the axis and the options;
/// it validates everything, picks the algorithm, owns its workspace and, on the GPU, loads its
/// kernels. Its solve calls then allocate nothing and, on the GPU, run asynchronously on the
/// stream given in the options.
///
/// @code
///   #include <triax/triax.hpp>
///   // 64 x 64 x 64 grid, systems along axis 1 (y), all operands packed alike.
///   auto layout = triax::Layout::packed({64, 64, 64});
///   triax::Solver<double> solver(triax::Backend::cpu, layout, /*axis=*/1);
///   solver.solve_in_place(a, b, c, d);  // d now holds x
/// @endcode

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "triax/errors.hpp"
#include "triax/export.hpp"
#include "triax/layout.hpp"
#include "triax/options.hpp"

namespace triax {

/// The layout of each operand. All five default to one shared layout; `x` is the output of
/// solve(), or `u` of solve_increment(), and is ignored by solve_in_place() (which writes d).
/// Every layout must have the same rank and extents.
struct OperandLayouts {
  Layout a, b, c, d, x;
  /// Every operand laid out alike.
  OperandLayouts(const Layout& all) : a(all), b(all), c(all), d(all), x(all) {}  // NOLINT
  OperandLayouts(const Layout& a_, const Layout& b_, const Layout& c_, const Layout& d_,
                 const Layout& x_)
      : a(a_), b(b_), c(c_), d(d_), x(x_) {}
};

/// A plan for solving a batch of tridiagonal systems along one axis.
///
/// Preconditions checked at construction (triax::invalid_argument otherwise): 0 <= axis < rank;
/// layouts of one rank and equal extents; the largest element offset of each layout fits in 64
/// bits; the output layout x maps no two indices to one element (no stride 0 on an extent above
/// 1, no strides that alias such as {1, 1}); an algorithm that fits the backend and the layout;
/// 0 <= options.num_threads <= 1024. A workspace that cannot be allocated throws
/// triax::out_of_memory.
///
/// d may broadcast (stride 0) for solve(), where one right-hand side serves many matrices: the
/// plan cannot know whether it will also be asked to solve in place, so solve_in_place() is the
/// call that refuses a d that maps two indices to one element.
///
/// Preconditions checked at every solve, before anything is written: no null pointer (unless
/// the batch holds no element: no systems, or systems of 0 rows); each pointer aligned for T
/// (info for int); each pointer in the memory space of the backend (host for reference and cpu,
/// device for cuda); the output shares no element with a, b or c, nor with d unless it is d
/// itself (same pointer and layout); in checked mode, info shares no byte with any operand.
/// Overlap is decided per element address, not by the ranges the layouts span: operands
/// interleaved in one buffer (paper 002's Unified-Vector layout, x beside d) are accepted as
/// long as no element is shared. solve_increment() refuses u sharing elements with d, because
/// u += x would overwrite d while the solve still reads it.
///
/// Checked mode's `info` has system_count() entries, one per system, ordered as the systems'
/// coordinates over the dimensions other than the axis, the lowest dimension fastest (for a
/// 3-D array along axis 1, system (i0, i2) is info[i0 + extent(0) * i2]). Systems of 0 rows get
/// info 0.
///
/// A Solver may be moved but not copied; a moved-from Solver throws invalid_argument when used,
/// until another plan is assigned to it. One plan serves one solve at a time (it owns one
/// workspace): a solve called while another thread's solve on the same plan is running throws
/// invalid_argument instead of sharing the workspace. Make one plan per thread or per stream.
template <class T>
class TRIAX_API Solver {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "triax::Solver supports float and double");

 public:
  /// All operands share one layout.
  Solver(Backend backend, const Layout& layout, int axis, const Options& options = {});
  /// Every operand with its own layout (for instance stride-0 broadcast coefficients).
  Solver(Backend backend, const OperandLayouts& layouts, int axis, const Options& options = {});
  ~Solver();
  Solver(Solver&&) noexcept;
  Solver& operator=(Solver&&) noexcept;
  Solver(const Solver&) = delete;
  Solver& operator=(const Solver&) = delete;

  /// Solves in place: d is overwritten by x (laid out as d).
  void solve_in_place(const T* a, const T* b, const T* c, T* d, int* info = nullptr);
  /// Solves into a separate output x (laid out as layouts.x); d is not modified.
  void solve(const T* a, const T* b, const T* c, const T* d, T* x, int* info = nullptr);
  /// Adds the solution to u (laid out as layouts.x): u += x, what ADI schemes need.
  void solve_increment(const T* a, const T* b, const T* c, const T* d, T* u, int* info = nullptr);

  Backend backend() const;
  /// The algorithm the plan runs (never automatic).
  Algorithm algorithm() const;
  /// Rows per system (the extent of the axis).
  std::int64_t system_length() const;
  /// Number of systems (the product of the other extents); the length of `info`.
  std::int64_t system_count() const;
  /// Bytes of workspace the plan owns (host memory for cpu, device memory for cuda).
  std::size_t workspace_bytes() const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

extern template class TRIAX_API Solver<float>;
extern template class TRIAX_API Solver<double>;

/// Whether a backend was compiled into this build (reference and cpu always are).
TRIAX_API bool backend_compiled(Backend backend);

}  // namespace triax
