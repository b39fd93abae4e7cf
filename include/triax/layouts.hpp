#pragma once
/// @file layouts.hpp
/// Helper constructors for the data layouts of paper 002 (cuThomasBatch) and their N-D
/// generalisation. They return ordinary strided triax::Layout values: any plan accepts them, and
/// the normaliser merges their dimensions into the same batches the fast kernels take.
///
/// - **Flat**: each system's rows contiguous, systems one after another
///   (row i of system s at s n + i).
/// - **Full-Interleaved**: row i of every system side by side (row i of system s at i count + s):
///   one thread per system reads a coalesced run per row on the GPU.
/// - **Unified-Vector**: Full-Interleaved with a, b, c, d of one element side by side in one
///   buffer (component k of row i of system s at 4 (i count + s) + k). The operands interleave
///   but share no element, so in-place solves are accepted (the overlap check is exact).
///
/// The N-D forms: `ordered` stores a logical array (dimension 0 first) in any order of its
/// dimensions, so the system axis may be stored fastest (Flat), slowest (Full-Interleaved) or
/// anywhere between; `component` adds a dimension of `components` operands stored at any
/// position among them (0 = fastest: the operands of one element side by side, as Unified-Vector;
/// rank = slowest: each operand a whole array after the previous).
///
/// @code
///   #include <triax/layouts.hpp>
///   // 1000 systems of 256 rows, a, b, c, d interleaved in one buffer, solved in place.
///   const auto l = triax::layouts::unified_vector(256, 1000);
///   std::vector<double> abcd(4 * 256 * 1000);
///   triax::Solver<double> solver(triax::Backend::cpu, l, /*axis=*/0);
///   double* p = abcd.data();
///   solver.solve_in_place(p, p, p, p);  // every operand's layout carries its own offset 0..3
/// @endcode

#include <cstdint>
#include <initializer_list>
#include <span>

#include "triax/export.hpp"
#include "triax/layout.hpp"
#include "triax/triax.hpp"

namespace triax::layouts {

/// Flat: extents {n, count}, each system contiguous (solve along axis 0).
TRIAX_API Layout flat(std::int64_t n, std::int64_t count);
/// Full-Interleaved: extents {n, count}, row i of system s at i count + s (solve along axis 0).
TRIAX_API Layout interleaved(std::int64_t n, std::int64_t count);
/// Unified-Vector: extents {n, count}; a, b, c, d components 0..3 of one buffer, x laid out as
/// d (solve along axis 0; in place, or into a buffer laid out the same).
TRIAX_API OperandLayouts unified_vector(std::int64_t n, std::int64_t count);

/// A packed array of logical `extents` whose dimensions are stored in `storage_order` (logical
/// dimensions listed fastest first; a permutation of 0..rank-1).
TRIAX_API Layout ordered(std::span<const std::int64_t> extents, std::span<const int> storage_order);
inline Layout ordered(std::initializer_list<std::int64_t> extents,
                      std::initializer_list<int> storage_order) {
  return ordered(std::span<const std::int64_t>(extents.begin(), extents.size()),
                 std::span<const int>(storage_order.begin(), storage_order.size()));
}

/// Component k (0 <= k < components) of `components` arrays of logical `extents` stored as one
/// packed array: the logical dimensions in `storage_order`, the component dimension inserted at
/// storage position `where` (0..rank).
TRIAX_API Layout component(std::span<const std::int64_t> extents,
                           std::span<const int> storage_order, std::int64_t components, int where,
                           std::int64_t k);

/// a, b, c, d as components 0..3 of one buffer (x laid out as d): the N-D Unified-Vector.
TRIAX_API OperandLayouts unified(std::span<const std::int64_t> extents,
                                 std::span<const int> storage_order, int where = 0);

}  // namespace triax::layouts

#include "triax/options.hpp"

namespace triax::layouts {

/// triax::convert on a backend: copies every logical element of `src` (laid out as `from`) to
/// `dst` (laid out as `to`). reference and cpu: triax::convert on the host (OpenMP, cache-blocked
/// tiles). cuda: device memory, enqueued on `stream` (a cudaStream_t; nullptr = the legacy
/// default stream) without synchronising; where the two sides' fastest dimensions differ
/// (Flat <-> Full-Interleaved, any axis of an N-D array) through 32 x 32 shared-memory tiles, so
/// that reads and writes are both coalesced. The checks are triax::convert's (ranks, extents,
/// null pointers, a `to` that writes an element twice, overlapping spans), plus the memory space
/// on cuda; triax::invalid_argument names the argument and value, nothing is written.
template <class T>
TRIAX_API void convert(Backend backend, const Layout& from, const T* src, const Layout& to,
                       T* dst, void* stream = nullptr);

}  // namespace triax::layouts
