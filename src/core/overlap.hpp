#pragma once
// Whether strided layouts share an element. Two operands overlap only if some element address is
// in both; judging by the address ranges they span instead would reject every interleaving of
// operands in one buffer (paper 002's Unified-Vector layout, x and d side by side), so the
// question is decided as a bounded integer equation:
//
//   find 0 <= v_k <= u_k with sum_k w_k v_k = target     (w_k > 0)
//
// by a depth-first search over the variables, largest weight first, that prunes each level by
// the range the remaining variables can reach and by their greatest common divisor. For the
// layouts of arrays (each stride beyond the span of the smaller ones) every level has at most
// one or two candidates, so the search is linear in the rank; a work limit bounds the rare
// pathological case, which is then reported as "may overlap" (rejected, with a message saying
// so), never as disjoint.

#include <cstddef>
#include <cstdint>

#include "triax/layout.hpp"

namespace triax::detail {

enum class Overlap { no, yes, unknown };

/// Whether two layouts of elements of `element_size` bytes, at element-aligned base addresses
/// base_p and base_q, share an element address.
Overlap layouts_overlap(std::uintptr_t base_p, const Layout& p, std::uintptr_t base_q,
                        const Layout& q, std::size_t element_size);

/// Whether a layout maps two different indices to one element (writing it would write that
/// element twice).
Overlap layout_self_overlaps(const Layout& layout);

/// Whether any element of a layout (elements of `element_size` bytes at `base`) shares a byte
/// with [lo, hi).
Overlap layout_meets_bytes(std::uintptr_t base, const Layout& layout, std::size_t element_size,
                           std::uintptr_t lo, std::uintptr_t hi);

}  // namespace triax::detail
