#pragma once
// Always-on argument checks. Each throws triax::invalid_argument naming the argument and value,
// before anything is written.

#include <cstddef>
#include <cstdint>

#include "core/overlap.hpp"
#include "core/problem.hpp"
#include "triax/triax.hpp"

namespace triax::detail {

/// Layout checks at plan construction: axis in range, equal ranks and extents, no 64-bit
/// overflow of any element offset or of the system count, an output layout (x) that writes no
/// element twice.
void validate_layouts(const OperandLayouts& layouts, int axis);

/// The largest element offset a layout reaches (its offset when empty), or -1 if that
/// overflows 64 bits.
std::int64_t max_offset(const Layout& layout);

/// The byte range [lo, hi) an operand's elements span (lo == hi when empty): a quick test before
/// the exact element-level overlap check (layouts_overlap).
struct ByteRange {
  std::uintptr_t lo = 0, hi = 0;
};
ByteRange byte_range(const void* base, const Layout& layout, std::size_t element_size);

/// How a solve writes its output, for the checks and their messages.
enum class SolveMode { in_place, separate, increment };

/// What one solve call was given.
struct SolveCall {
  const void* a;
  const void* b;
  const void* c;
  const void* d;
  const void* x;       // the output: d in place, x for solve, u for solve_increment
  const int* info;     // may be null
  SolveMode mode;      // in_place also for solve() with x == d laid out as d
  bool empty;          // no element to solve: pointers may be null
  std::int64_t count;  // systems (entries of info)
};

/// Pointer checks at each solve: null, alignment, overlap of the output with the inputs (by
/// element addresses, not spans) and of info with any operand. `d_self_overlaps` is
/// layout_self_overlaps(layouts.d), computed once by the plan, for in-place solves.
/// `who` starts every message ("triax::Solver", "triax::BlockSolver").
void validate_pointers(const SolveCall& call, const OperandLayouts& layouts,
                       std::size_t element_size, std::size_t alignment, Overlap d_self_overlaps,
                       const char* who = "triax::Solver");

}  // namespace triax::detail
