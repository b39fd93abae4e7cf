#pragma once
/// @file varbatch.hpp
/// Variable-size batches (paper 002's cuThomasVBatch): systems of different lengths in one call.
///
/// A VarLayout says where each system lies; a VarSolver is the plan, made once for a backend,
/// that layout and the options, and solved as often as wanted. Two storage forms:
///
/// - **back to back** (paper 002's No Computing Padding on compact storage): system s's row i is
///   element offsets[s] + i of every operand (a, b, c, d and x each in its own buffer, all with
///   the same offsets). Nothing is read or written beyond each system's length. Offsets may
///   leave gaps between systems (their elements are never touched) and may list the systems in
///   any order; two systems sharing an element are rejected (the output would be written twice).
/// - **padded**: the systems of a fixed-size set of layouts (any of paper 002's Flat,
///   Full-Interleaved or Unified-Vector, or any strided N-D layout: triax::layouts), systems
///   along `axis`, the extent of the axis at least the longest length; system s (ordered as
///   triax::Solver orders them) solves its first lengths[s] rows. The padding rows are neither
///   read nor written (NCP), so they may hold anything.
///
/// Computing the padding (paper 002's CP) is triax::Solver on the padded storage: every system
/// then has the padded length, so the padding must hold rows that leave the real rows' solution
/// unchanged (a = c = 0, b = 1, d = 0 after each system's last row). Those rows belong to the
/// user, so triax never assumes them: VarSolver reads only real rows, and CP is what the user
/// asks for by making a Solver (docs/algorithms.md, "Variable-size batches").
///
/// Lengths and offsets are given when the layout is made, in host or device memory (a device
/// array is copied to the host then, once): the plans order and partition the systems by length
/// once (CPU threads get equal shares of rows, GPU warps systems of similar length), and the
/// CUDA plan copies what its kernels need to the device. Solves take no lengths.
///
/// @code
///   #include <triax/varbatch.hpp>
///   std::vector<std::int64_t> lengths = {300, 0, 5, 4096};
///   auto layout = triax::VarLayout::back_to_back(lengths);  // offsets 0, 300, 300, 305
///   std::vector<double> a(layout.span()), b(layout.span()), c(layout.span()), d(layout.span());
///   // ... fill system s's rows at layout.offset(s) ...
///   triax::VarSolver<double> solver(triax::Backend::cpu, layout);
///   solver.solve_in_place(a.data(), b.data(), c.data(), d.data());
/// @endcode

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include "triax/errors.hpp"
#include "triax/export.hpp"
#include "triax/layout.hpp"
#include "triax/options.hpp"
#include "triax/triax.hpp"

namespace triax {

/// Where the systems of a variable-size batch lie. Construction checks everything that does not
/// depend on the pointers and throws triax::invalid_argument naming the argument and value:
/// negative lengths or offsets, arrays of different sizes, offsets whose systems share an
/// element or overflow 64 bits, padded layouts that triax::Solver would reject or whose axis is
/// shorter than a length.
class TRIAX_API VarLayout {
 public:
  /// Back to back at the given element offsets (one per system; gaps allowed, no overlaps).
  static VarLayout back_to_back(std::span<const std::int64_t> lengths,
                                std::span<const std::int64_t> offsets);
  /// Back to back without gaps: system s starts where system s - 1 ends.
  static VarLayout back_to_back(std::span<const std::int64_t> lengths);
  /// Padded: the systems of `layouts` along `axis`, system s of length lengths[s].
  static VarLayout padded(const OperandLayouts& layouts, int axis,
                          std::span<const std::int64_t> lengths);
  static VarLayout padded(const Layout& layout, int axis, std::span<const std::int64_t> lengths) {
    return padded(OperandLayouts(layout), axis, lengths);
  }

  std::int64_t count() const;
  std::int64_t length(std::int64_t s) const;
  /// Back to back only: where system s starts (element index in every operand).
  std::int64_t offset(std::int64_t s) const;
  bool is_padded() const;
  /// The sum of the lengths: the rows a solve reads and writes.
  std::int64_t total_rows() const;
  std::int64_t max_length() const;
  /// Elements each operand's buffer must hold: back to back, the end of the last system; padded,
  /// the largest element offset + 1 of the layouts.
  std::int64_t span() const;

  struct Data;
  const Data& data() const { return *data_; }

 private:
  explicit VarLayout(std::shared_ptr<const Data> data) : data_(std::move(data)) {}
  std::shared_ptr<const Data> data_;
};

/// A plan for a variable-size batch: as triax::Solver, with per-system lengths.
///
/// Backends: reference (long double Thomas, one system at a time), cpu (one thread per system,
/// the systems split among the OpenMP threads into shares of equal rows), cuda (systems of unit
/// row stride up to 512 rows: a warp each, the Thomas-PCR hybrid in shared memory; back to back
/// up to 131072 rows: cut into segments of 257..512 rows, a warp each, joined through a reduced
/// system of two rows per segment; the rest, and checked mode: one thread per system, ordered by
/// length so that a warp's systems have similar lengths, c' and d' interleaved by warp, and
/// systems longer than `long_system_rows` each solved by the fixed-size CUDA plan, whose hybrid
/// splits them across many threads). Options::algorithm must be automatic.
///
/// Preconditions at every solve, checked before anything is written (triax::invalid_argument):
/// no null pointer unless the batch has no rows; alignment; memory space; the output sharing no
/// element with a, b or c, nor with d unless in place (decided per element: back to back, by
/// the systems' rows; padded, as triax::Solver decides it for the layouts); info (checked mode,
/// one int per system in the order of the lengths, 0 for systems of length 0) sharing no byte
/// with an operand.
template <class T>
class TRIAX_API VarSolver {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "triax::VarSolver supports float and double");

 public:
  /// The CUDA plan solves systems longer than this with the fixed-size hybrid, one system each,
  /// where the segments do not take them (checked mode, padded storage, beyond 131072 rows).
  static constexpr std::int64_t long_system_rows = 8192;

  VarSolver(Backend backend, const VarLayout& layout, const Options& options = {});
  ~VarSolver();
  VarSolver(VarSolver&&) noexcept;
  VarSolver& operator=(VarSolver&&) noexcept;
  VarSolver(const VarSolver&) = delete;
  VarSolver& operator=(const VarSolver&) = delete;

  void solve_in_place(const T* a, const T* b, const T* c, T* d, int* info = nullptr);
  void solve(const T* a, const T* b, const T* c, const T* d, T* x, int* info = nullptr);
  void solve_increment(const T* a, const T* b, const T* c, const T* d, T* u, int* info = nullptr);

  /// Lengths passed per solve (padded layouts only): as the three solves above, system s solving
  /// its first lengths[s] rows instead of the layout's; the layout's longest length is the bound
  /// the plan was made for (workspace, kernels), so each must lie in 0 .. layout max_length().
  /// `lengths`: one per system (count() values), in host memory (checked before anything is
  /// written: triax::invalid_argument names the first bad index and value; on cuda then copied
  /// on the plan's stream, which for pageable memory the driver may start only after the
  /// stream's earlier work) or, on cuda, device memory (read on the plan's stream, no
  /// synchronisation, so not checked: a value outside the bound is clamped into it). The cuda
  /// plan takes per-solve lengths where its kernels read lengths on the device: padded layouts
  /// whose longest system has at most 512 rows, outside checked mode; other plans on cuda, and
  /// back-to-back layouts on any backend, reject them.
  /// The CPU plan keeps the shares of threads it cut for the layout's lengths.
  void solve_in_place(const T* a, const T* b, const T* c, T* d,
                      std::span<const std::int64_t> lengths, int* info = nullptr);
  void solve(const T* a, const T* b, const T* c, const T* d, T* x,
             std::span<const std::int64_t> lengths, int* info = nullptr);
  void solve_increment(const T* a, const T* b, const T* c, const T* d, T* u,
                       std::span<const std::int64_t> lengths, int* info = nullptr);

  Backend backend() const;
  std::int64_t system_count() const;
  std::size_t workspace_bytes() const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

extern template class TRIAX_API VarSolver<float>;
extern template class TRIAX_API VarSolver<double>;

}  // namespace triax
