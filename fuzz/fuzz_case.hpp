#pragma once
// One fuzz case decoded from the input bytes: the arguments of triax_plan_create_* (backend,
// layout, axis, options), which solve to call, how to fill the operands, and which misuse (if
// any) to commit on purpose. The field order is the byte order of fuzz/make_corpus.py.
#include <cstdint>

#include "byte_reader.hpp"
#include "triax/triax.h"

namespace triax_fuzz {

enum class Operation { in_place, solve, increment };

// A deliberate misuse of a solve call that the C API must reject without writing anything.
enum class Misuse { none, null_pointer, misaligned_pointer, wrong_precision, output_is_input,
                    checked_without_info };

// How the layout's strides and offset are made.
enum class LayoutKind { packed, padded, permuted, small_strides, raw };

struct FuzzCase {
  bool single = false;  // float instead of double
  Operation operation = Operation::in_place;
  bool checked = false;
  bool raw_values = false;  // values from the input (NaN, inf, huge, subnormal) instead of a
                            // diagonally dominant system
  Misuse misuse = Misuse::none;
  int misused_operand = 0;  // 0..4: a, b, c, d, x/u
  int backend = TRIAX_BACKEND_CPU;
  LayoutKind layout_kind = LayoutKind::packed;
  triax_layout layout{};
  int axis = 0;
  triax_options options{};
  std::uint64_t seed = 0;
};

// Decodes a case. Most of each field's range is valid, the rest deliberately is not (rank 0 and
// 9, axis -1 and rank, algorithm 11, a negative num_threads, a backend value outside the enum),
// so both the accepting and the rejecting paths are fuzzed.
inline FuzzCase decode_case(ByteReader& in) {
  FuzzCase f;
  const std::uint8_t flags = in.u8();
  f.single = flags & 1;
  f.operation = static_cast<Operation>(((flags >> 1) & 3) % 3);
  f.checked = (flags >> 3) & 1;
  f.raw_values = (flags >> 4) & 1;
  const int misuse = flags >> 5;  // 0..7; 6 and 7 mean none, so most solves are proper
  f.misuse = misuse <= 5 ? static_cast<Misuse>(misuse) : Misuse::none;
  f.misused_operand = in.u8() % 5;

  // Mostly cpu (the backend under test), then reference, cuda (not compiled on the fuzz build)
  // and 3, which is no backend. Values outside 0..3 (a C caller's -1) are not tried: C++ cannot
  // hold them in a triax_backend without undefined behaviour in the harness itself.
  static constexpr int backends[8] = {TRIAX_BACKEND_CPU, TRIAX_BACKEND_CPU, TRIAX_BACKEND_CPU,
                                      TRIAX_BACKEND_CPU, TRIAX_BACKEND_REFERENCE,
                                      TRIAX_BACKEND_CUDA, TRIAX_BACKEND_REFERENCE, 3};
  f.backend = backends[in.u8() % 8];

  const int rank = in.u8() % 10;  // 0 and 9 are rejected
  const std::uint8_t axis_byte = in.u8();
  f.axis = axis_byte >= 250 ? in.i32() : int(axis_byte % (rank + 2)) - 1;

  const std::uint8_t algorithm = in.u8();
  f.options.algorithm = algorithm >= 250 ? -1 : algorithm % 12;  // 11 is no algorithm
  // num_threads stays small: large values are a known defect (issue 25, item 6) that ends the
  // process inside libgomp, which would stop every run at the same place.
  f.options.num_threads = int(in.u8() % 12) - 2;
  f.options.checked = f.checked;

  f.layout_kind = static_cast<LayoutKind>(in.u8() % 5);
  f.layout.rank = rank;
  const int dims = rank < 1 ? 1 : (rank > 8 ? 8 : rank);
  for (int k = 0; k < dims; ++k) {
    f.layout.extents[k] = f.layout_kind == LayoutKind::raw ? in.i64() : in.u8() % 18;
  }
  switch (f.layout_kind) {
    case LayoutKind::packed:
    case LayoutKind::raw:
      break;  // strides: packed is made by triax_layout_packed; raw reads them below
    case LayoutKind::padded: {
      // Each dimension allocated larger by 0..3 and the interior starting at 0..pad.
      std::int64_t stride = 1, offset = 0;
      for (int k = 0; k < dims; ++k) {
        const int pad = in.u8() % 4, begin = pad == 0 ? 0 : in.u8() % (pad + 1);
        f.layout.strides[k] = stride;
        offset += begin * stride;
        stride *= f.layout.extents[k] + pad;
      }
      f.layout.offset = offset;
      break;
    }
    case LayoutKind::permuted: {
      // A packed layout whose dimensions are stored in another order (a transposed array).
      int order[8];
      for (int k = 0; k < dims; ++k) order[k] = k;
      for (int k = dims - 1; k > 0; --k) {
        const int j = in.u8() % (k + 1);
        const int t = order[k];
        order[k] = order[j];
        order[j] = t;
      }
      std::int64_t stride = 1;
      for (int k = 0; k < dims; ++k) {
        f.layout.strides[order[k]] = stride;
        stride *= f.layout.extents[order[k]];
      }
      break;
    }
    case LayoutKind::small_strides:
      // Anything from 0 to 8 per dimension: broadcasts, gaps, and strides that make an operand
      // overlap itself (which the plan or the solve must reject).
      for (int k = 0; k < dims; ++k) f.layout.strides[k] = in.u8() % 9;
      f.layout.offset = in.u8() % 4;
      break;
  }
  if (f.layout_kind == LayoutKind::raw) {
    for (int k = 0; k < dims; ++k) f.layout.strides[k] = in.i64();
    f.layout.offset = in.i64();
  }
  f.seed = in.u64();
  return f;
}

}  // namespace triax_fuzz
