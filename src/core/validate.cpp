#include "core/validate.hpp"

#include <cstdio>
#include <string>

namespace triax::detail {
namespace {

constexpr const char* operand_names[operand_count] = {"a", "b", "c", "d", "x"};

const Layout& layout_of(const OperandLayouts& l, int op) {
  const Layout* all[operand_count] = {&l.a, &l.b, &l.c, &l.d, &l.x};
  return *all[op];
}


// A pointer as the message shows it.
std::string address(const void* p) {
  char text[2 + 2 * sizeof(void*) + 1];
  std::snprintf(text, sizeof text, "%p", p);
  return text;
}

[[noreturn]] void reject(const std::string& what, const char* who = "triax::Solver") {
  throw invalid_argument(std::string(who) + ": " + what);
}

// Why an overlap check rejected: the elements are shared, or the strides were too intricate to
// show that they are not.
const char* overlap_reason(Overlap o) {
  return o == Overlap::yes ? "" : " (may share elements: the strides are too intricate to decide)";
}

// Whether two operands share an element: the spans first (separate arrays end there), then the
// element-level check.
Overlap operands_overlap(const void* p, const Layout& lp, const void* q, const Layout& lq,
                         std::size_t element_size) {
  const ByteRange rp = byte_range(p, lp, element_size);
  const ByteRange rq = byte_range(q, lq, element_size);
  if (!(rp.lo < rq.hi && rq.lo < rp.hi)) return Overlap::no;
  return layouts_overlap(reinterpret_cast<std::uintptr_t>(p), lp,
                         reinterpret_cast<std::uintptr_t>(q), lq, element_size);
}

// Why a layout writes some element twice, for the messages.
std::string self_overlap_detail(const Layout& l, Overlap o) {
  for (int k = 0; k < l.rank(); ++k) {
    if (l.stride(k) == 0 && l.extent(k) > 1) {
      return "stride[" + std::to_string(k) + "] = 0 with extent " + std::to_string(l.extent(k)) +
             " broadcasts it";
    }
  }
  std::string strides;
  for (int k = 0; k < l.rank(); ++k) strides += (k ? ", " : "") + std::to_string(l.stride(k));
  return "strides {" + strides + "} map two indices to one element" + overlap_reason(o);
}

}  // namespace

std::int64_t max_offset(const Layout& l) {
  // An empty array addresses nothing, whatever its strides.
  for (int k = 0; k < l.rank(); ++k) {
    if (l.extent(k) == 0) return l.offset();
  }
  __int128 off = l.offset();
  for (int k = 0; k < l.rank(); ++k) {
    off += static_cast<__int128>(l.extent(k) - 1) * l.stride(k);
    // Each term is below 2^126: stop before a sum of them could overflow 128 bits too.
    if (off > INT64_MAX) return -1;
  }
  return static_cast<std::int64_t>(off);
}

void validate_layouts(const OperandLayouts& layouts, int axis) {
  const Layout& d = layouts.d;
  for (int op = 0; op < operand_count; ++op) {
    const Layout& l = layout_of(layouts, op);
    if (l.rank() != d.rank()) {
      reject("layout of " + std::string(operand_names[op]) + " has rank " +
             std::to_string(l.rank()) + " but d has rank " + std::to_string(d.rank()));
    }
    for (int k = 0; k < d.rank(); ++k) {
      if (l.extent(k) != d.extent(k)) {
        reject("layout of " + std::string(operand_names[op]) + " has extent[" +
               std::to_string(k) + "] = " + std::to_string(l.extent(k)) + " but d has " +
               std::to_string(d.extent(k)));
      }
    }
    if (max_offset(l) < 0) {
      reject("layout of " + std::string(operand_names[op]) +
             ": offset + (extents - 1) x strides overflows 64 bits");
    }
  }
  if (axis < 0 || axis >= d.rank()) {
    reject("axis = " + std::to_string(axis) + " is out of range for rank " +
           std::to_string(d.rank()));
  }
  // The element count must fit 64 bits even where another extent is 0 and the array holds
  // nothing: plans report the system count (the product of the other extents), which the
  // product of the extents other than 0 bounds.
  __int128 elements = 1;
  for (int k = 0; k < d.rank(); ++k) {
    const std::int64_t e = d.extent(k);
    if (e == 0) continue;
    elements *= e;
    if (elements > INT64_MAX) {
      reject("the number of elements (the product of the extents other than 0) overflows "
             "64 bits");
    }
  }
  // The output must not write one element twice (d is checked at an in-place solve).
  const Overlap self = layout_self_overlaps(layouts.x);
  if (self != Overlap::no) {
    reject("layout of x: " + self_overlap_detail(layouts.x, self) +
           ", so the output would be written more than once");
  }
}

ByteRange byte_range(const void* base, const Layout& layout, std::size_t element_size) {
  ByteRange r;
  if (layout.size() == 0) return r;
  const auto b = reinterpret_cast<std::uintptr_t>(base);
  r.lo = b + static_cast<std::uintptr_t>(layout.offset()) * element_size;
  r.hi = b + (static_cast<std::uintptr_t>(max_offset(layout)) + 1) * element_size;
  return r;
}

void validate_pointers(const SolveCall& call, const OperandLayouts& layouts,
                       std::size_t element_size, std::size_t alignment, Overlap d_self_overlaps,
                       const char* who) {
  const bool in_place = call.mode == SolveMode::in_place;
  // What the messages call the output: u += x in increment mode.
  const char* out_name = in_place ? "d" : call.mode == SolveMode::increment ? "u" : "x";
  const void* ptrs[operand_count] = {call.a, call.b, call.c, call.d, call.x};
  if (call.info != nullptr && reinterpret_cast<std::uintptr_t>(call.info) % alignof(int) != 0) {
    reject("pointer info = " + address(call.info) + " is not aligned to " +
           std::to_string(alignof(int)) + " bytes", who);
  }
  if (call.empty) return;
  for (int op = 0; op < operand_count; ++op) {
    const char* name = op == op_x ? out_name : operand_names[op];
    if (in_place && op == op_x) continue;  // x is d
    if (ptrs[op] == nullptr) reject("pointer " + std::string(name) + " is null", who);
    if (reinterpret_cast<std::uintptr_t>(ptrs[op]) % alignment != 0) {
      reject("pointer " + std::string(name) + " = " + address(ptrs[op]) + " is not aligned to " +
             std::to_string(alignment) + " bytes", who);
    }
  }
  const Layout& out_layout = in_place ? layouts.d : layouts.x;
  const int last_input = in_place ? op_c : op_d;
  for (int op = op_a; op <= last_input; ++op) {
    const Overlap o =
        operands_overlap(call.x, out_layout, ptrs[op], layout_of(layouts, op), element_size);
    if (o == Overlap::no) continue;
    std::string why;
    if (op == op_d && call.mode == SolveMode::increment) {
      why = ": u += x reads d until the solve ends, so u must not share elements with d";
    } else if (op == op_d) {
      why = ": an output that is d must be d itself (same pointer and layout), or use "
            "solve_in_place";
    }
    reject("the output " + std::string(out_name) + " = " + address(call.x) + " overlaps input " +
           operand_names[op] + " = " + address(ptrs[op]) + why + overlap_reason(o), who);
  }
  // d itself is written in place; its layout must not write one element twice.
  if (in_place && d_self_overlaps != Overlap::no) {
    reject("solving in place writes d, so d must not broadcast or alias itself, but its " +
           self_overlap_detail(layouts.d, d_self_overlaps), who);
  }
  if (call.info != nullptr) {
    const auto lo = reinterpret_cast<std::uintptr_t>(call.info);
    const std::uintptr_t hi = lo + static_cast<std::uintptr_t>(call.count) * sizeof(int);
    for (int op = 0; op < operand_count; ++op) {
      if (in_place && op == op_x) continue;
      const Layout& l = op == op_x ? out_layout : layout_of(layouts, op);
      const auto base = reinterpret_cast<std::uintptr_t>(ptrs[op]);
      const Overlap o = layout_meets_bytes(base, l, element_size, lo, hi);
      if (o != Overlap::no) {
        reject("info = " + address(call.info) + " (" + std::to_string(call.count) +
               " ints) overlaps " + (op == op_x ? out_name : operand_names[op]) + " = " +
               address(ptrs[op]) + overlap_reason(o), who);
      }
    }
  }
}

}  // namespace triax::detail
