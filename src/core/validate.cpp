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

// The largest element offset a layout reaches, or -1 if it overflows 64 bits.
std::int64_t max_offset(const Layout& l) {
  __int128 off = l.offset();
  for (int k = 0; k < l.rank(); ++k) {
    if (l.extent(k) == 0) return l.offset();
    off += static_cast<__int128>(l.extent(k) - 1) * l.stride(k);
    // Each term is below 2^126: stop before a sum of them could overflow 128 bits too.
    if (off > INT64_MAX) return -1;
  }
  return static_cast<std::int64_t>(off);
}

// A pointer as the message shows it.
std::string address(const void* p) {
  char text[2 + 2 * sizeof(void*) + 1];
  std::snprintf(text, sizeof text, "%p", p);
  return text;
}

}  // namespace

void validate_layouts(const OperandLayouts& layouts, int axis) {
  const Layout& d = layouts.d;
  for (int op = 0; op < operand_count; ++op) {
    const Layout& l = layout_of(layouts, op);
    if (l.rank() != d.rank()) {
      throw invalid_argument("triax::Solver: layout of " + std::string(operand_names[op]) +
                             " has rank " + std::to_string(l.rank()) + " but d has rank " +
                             std::to_string(d.rank()));
    }
    for (int k = 0; k < d.rank(); ++k) {
      if (l.extent(k) != d.extent(k)) {
        throw invalid_argument("triax::Solver: layout of " + std::string(operand_names[op]) +
                               " has extent[" + std::to_string(k) + "] = " +
                               std::to_string(l.extent(k)) + " but d has " +
                               std::to_string(d.extent(k)));
      }
    }
    if (max_offset(l) < 0) {
      throw invalid_argument("triax::Solver: layout of " + std::string(operand_names[op]) +
                             ": offset + (extents - 1) x strides overflows 64 bits");
    }
  }
  if (axis < 0 || axis >= d.rank()) {
    throw invalid_argument("triax::Solver: axis = " + std::to_string(axis) +
                           " is out of range for rank " + std::to_string(d.rank()));
  }
  __int128 count = 1;
  for (int k = 0; k < d.rank(); ++k) {
    count *= d.extent(k);
    if (count > INT64_MAX) {
      throw invalid_argument("triax::Solver: the number of elements overflows 64 bits");
    }
  }
  // The output must not write one element twice (d is checked at an in-place solve).
  for (int k = 0; k < layouts.x.rank() && layouts.x.size() > 0; ++k) {
    if (layouts.x.stride(k) == 0 && layouts.x.extent(k) > 1) {
      throw invalid_argument("triax::Solver: layout of x has stride[" + std::to_string(k) +
                             "] = 0 with extent " + std::to_string(layouts.x.extent(k)) +
                             ": the output would be written more than once");
    }
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

void validate_pointers(const void* a, const void* b, const void* c, const void* d, const void* x,
                       const OperandLayouts& layouts, std::size_t element_size,
                       std::size_t alignment, bool in_place, bool empty) {
  const void* ptrs[operand_count] = {a, b, c, d, x};
  if (empty) return;
  for (int op = 0; op < operand_count; ++op) {
    if (ptrs[op] == nullptr) {
      throw invalid_argument("triax::Solver: pointer " + std::string(operand_names[op]) +
                             " is null");
    }
    if (reinterpret_cast<std::uintptr_t>(ptrs[op]) % alignment != 0) {
      throw invalid_argument("triax::Solver: pointer " + std::string(operand_names[op]) +
                             " = " + address(ptrs[op]) + " is not aligned to " +
                             std::to_string(alignment) + " bytes");
    }
  }
  const Layout& out_layout = in_place ? layouts.d : layouts.x;
  const ByteRange out = byte_range(x, out_layout, element_size);
  const int last_input = in_place ? op_c : op_d;
  for (int op = op_a; op <= last_input; ++op) {
    const ByteRange in = byte_range(ptrs[op], layout_of(layouts, op), element_size);
    if (in.lo < out.hi && out.lo < in.hi) {
      throw invalid_argument("triax::Solver: the output " + std::string(in_place ? "d" : "x") +
                             " = " + address(x) + " overlaps input " +
                             std::string(operand_names[op]) + " = " + address(ptrs[op]));
    }
  }
  // d itself is written in place; its layout must not write one element twice.
  if (in_place) {
    for (int k = 0; k < layouts.d.rank() && layouts.d.size() > 0; ++k) {
      if (layouts.d.stride(k) == 0 && layouts.d.extent(k) > 1) {
        throw invalid_argument("triax::Solver: solving in place needs d without broadcast, but "
                               "d has stride[" + std::to_string(k) + "] = 0 with extent " +
                               std::to_string(layouts.d.extent(k)));
      }
    }
  }
}

}  // namespace triax::detail
