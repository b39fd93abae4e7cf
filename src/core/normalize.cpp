#include "core/normalize.hpp"

namespace triax::detail {
namespace {

const Layout& layout_of(const OperandLayouts& l, int op) {
  switch (op) {
    case op_a: return l.a;
    case op_b: return l.b;
    case op_c: return l.c;
    case op_d: return l.d;
    default: return l.x;
  }
}

}  // namespace

Problem normalize(const OperandLayouts& layouts, int axis) {
  const Layout& shape = layouts.d;
  Problem p;
  p.n = shape.extent(axis);
  p.count = 1;
  for (int op = 0; op < operand_count; ++op) {
    p.map[op].offset = layout_of(layouts, op).offset();
    p.map[op].row_stride = layout_of(layouts, op).stride(axis);
  }
  for (int k = 0; k < shape.rank(); ++k) {
    if (k == axis) continue;
    const std::int64_t e = shape.extent(k);
    p.count *= e;
    if (e == 1) continue;  // contributes nothing to any offset
    // Merge with the previous batch dimension when, for every operand, stepping once along k is
    // the same as stepping through the whole previous dimension.
    bool merge = p.batch_rank > 0;
    for (int op = 0; merge && op < operand_count; ++op) {
      const int prev = p.batch_rank - 1;
      // In 128 bits: an empty array's strides are never checked against 64 bits.
      merge = layout_of(layouts, op).stride(k) ==
              static_cast<__int128>(p.map[op].batch_strides[prev]) * p.batch_extents[prev];
    }
    if (merge) {
      p.batch_extents[p.batch_rank - 1] *= e;
      continue;
    }
    for (int op = 0; op < operand_count; ++op) {
      p.map[op].batch_strides[p.batch_rank] = layout_of(layouts, op).stride(k);
    }
    p.batch_extents[p.batch_rank] = e;
    ++p.batch_rank;
  }
  return p;
}

}  // namespace triax::detail
