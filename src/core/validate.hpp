#pragma once
// Always-on argument checks. Each throws triax::invalid_argument naming the argument and value,
// before anything is written.

#include <cstdint>

#include "core/problem.hpp"
#include "triax/triax.hpp"

namespace triax::detail {

/// Layout checks at plan construction: axis in range, equal ranks and extents, no 64-bit
/// overflow of any element offset, no stride-0 self-overlap in the output.
void validate_layouts(const OperandLayouts& layouts, int axis);

/// The byte range [lo, hi) an operand's elements span (lo == hi when empty).
struct ByteRange {
  std::uintptr_t lo = 0, hi = 0;
};
ByteRange byte_range(const void* base, const Layout& layout, std::size_t element_size);

/// Pointer checks at each solve: null, alignment, and overlap of the output with the inputs.
/// `in_place` means x is d (same pointer, d's layout).
void validate_pointers(const void* a, const void* b, const void* c, const void* d, const void* x,
                       const OperandLayouts& layouts, std::size_t element_size,
                       std::size_t alignment, bool in_place, bool empty);

}  // namespace triax::detail
