#pragma once
/// @file layout.hpp
/// How one operand (a, b, c, d or x) lies in memory.

#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>

#include "triax/export.hpp"

namespace triax {

/// The largest array rank triax accepts.
inline constexpr int max_rank = 8;

/// One operand's place in memory: rank r (1..8), logical extents, an element stride for each
/// dimension, and the element offset of the first interior point from the base pointer.
///
/// Dimension 0 is the fastest (x contiguous in a packed array), as in the papers. Element
/// (i0, i1, ..., i{r-1}) lives at `base[offset + sum_k i_k * stride_k]`. A stride of 0
/// broadcasts: one set of diagonals for every system is a, b, c with stride 0 across the batch
/// dimensions. Sizes and offsets are 64-bit.
///
/// Construction checks the rank (1..8), the extents (>= 0), the strides (>= 0) and the offset
/// (>= 0), and throws triax::invalid_argument naming the argument and its value.
///
/// Example: a 64 x 32 x 16 grid stored in a 66 x 34 x 18 allocation with one ghost layer:
/// @code
///   auto l = triax::Layout::padded({64, 32, 16}, {66, 34, 18}, {1, 1, 1});
/// @endcode
class TRIAX_API Layout {
 public:
  using Extents = std::array<std::int64_t, max_rank>;

  /// A dense array: stride 1 along dimension 0, each next stride the product of the extents
  /// before it.
  static Layout packed(std::span<const std::int64_t> extents);
  static Layout packed(std::initializer_list<std::int64_t> extents) {
    return packed(std::span<const std::int64_t>(extents.begin(), extents.size()));
  }

  /// A sub-array of a dense allocation: `allocated` extents give the strides (as tridsolver's
  /// `pads`), `begin` the index of the first interior point in each dimension (empty = all 0).
  /// Requires begin[k] + extents[k] <= allocated[k].
  static Layout padded(std::span<const std::int64_t> extents,
                       std::span<const std::int64_t> allocated,
                       std::span<const std::int64_t> begin = {});
  static Layout padded(std::initializer_list<std::int64_t> extents,
                       std::initializer_list<std::int64_t> allocated,
                       std::initializer_list<std::int64_t> begin = {}) {
    return padded(std::span<const std::int64_t>(extents.begin(), extents.size()),
                  std::span<const std::int64_t>(allocated.begin(), allocated.size()),
                  std::span<const std::int64_t>(begin.begin(), begin.size()));
  }

  /// Explicit element strides (0 broadcasts) and element offset.
  static Layout strided(std::span<const std::int64_t> extents,
                        std::span<const std::int64_t> strides, std::int64_t offset = 0);
  static Layout strided(std::initializer_list<std::int64_t> extents,
                        std::initializer_list<std::int64_t> strides, std::int64_t offset = 0) {
    return strided(std::span<const std::int64_t>(extents.begin(), extents.size()),
                   std::span<const std::int64_t>(strides.begin(), strides.size()), offset);
  }

  int rank() const { return rank_; }
  std::int64_t extent(int dim) const { return extents_[dim]; }
  std::int64_t stride(int dim) const { return strides_[dim]; }
  std::int64_t offset() const { return offset_; }
  /// Product of the extents (the number of logical elements); 0 for an empty array.
  std::int64_t size() const;
  /// The element offset of a multi-index (length rank()).
  std::int64_t offset_of(std::span<const std::int64_t> index) const;

  friend bool operator==(const Layout&, const Layout&) = default;

 private:
  Layout() = default;
  int rank_ = 0;
  Extents extents_{};
  Extents strides_{};
  std::int64_t offset_ = 0;
};

}  // namespace triax
