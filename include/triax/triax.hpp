#pragma once
/// @file triax.hpp
/// triax: batches of tridiagonal systems along any axis of an N-dimensional array.
///
/// Each system is `a[i] x[i-1] + b[i] x[i] + c[i] x[i+1] = d[i]` for i = 0..n-1; `a[0]` and
/// `c[n-1]` are never read. A plan (triax::Solver) is made once for a backend, the operands'
/// layouts, the axis and the options; it validates everything, picks the algorithm, owns its
/// workspace and, on the GPU, loads its kernels. Its solve calls then allocate nothing and, on
/// the GPU, run asynchronously on the stream given in the options.
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
/// bits; the output layout has no stride 0 on a dimension of extent > 1 (it would write one
/// element twice); an algorithm that fits the backend and the layout.
///
/// Preconditions checked at every solve, before anything is written: no null pointer (unless the
/// batch is empty); each pointer aligned for T; each pointer in the memory space of the backend
/// (host for reference and cpu, device for cuda); the output does not overlap a, b or c, nor d
/// unless it is exactly d (same pointer and layout). Overlap is judged by the address ranges the
/// layouts span, so interleaving inputs and outputs in one buffer is rejected.
///
/// A Solver may be moved but not copied. Concurrent solves on one plan are not allowed (the plan
/// owns one workspace); make one plan per thread or per stream.
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
