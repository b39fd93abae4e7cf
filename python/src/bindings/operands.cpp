#include "operands.hpp"

#include <algorithm>
#include <limits>
#include <string_view>

namespace triax::python {
namespace {

// "(4, 5)", "(3,)", "()": as Python prints a shape.
std::string tuple_text(const std::int64_t* values, int n) {
  std::string s = "(";
  for (int i = 0; i < n; ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(values[i]);
  }
  return s + (n == 1 ? ",)" : ")");
}

template <class Array>
std::string shape_of(const Array& x) {
  std::int64_t shape[64];
  const int n = static_cast<int>(std::min<std::size_t>(x.ndim(), 64));
  for (int i = 0; i < n; ++i) shape[i] = static_cast<std::int64_t>(x.shape(i));
  return tuple_text(shape, n);
}

std::string dtype_text(nb::dlpack::dtype t) {
  using code = nb::dlpack::dtype_code;
  std::string_view kind = "dtype";
  switch (static_cast<code>(t.code)) {
    case code::Int:
      kind = "int";
      break;
    case code::UInt:
      kind = "uint";
      break;
    case code::Float:
      kind = "float";
      break;
    case code::Bfloat:
      kind = "bfloat";
      break;
    case code::Complex:
      kind = "complex";
      break;
    case code::Bool:
      return "bool";
    default:
      break;
  }
  std::string s = std::string(kind) + std::to_string(t.bits);
  if (t.lanes != 1) s += "x" + std::to_string(t.lanes);
  return s;
}

std::int32_t device_class(int device_type) {
  return device_type == 3 ? device_cpu : device_type;  // kDLCUDAHost: host memory
}

std::string device_text(std::int32_t type, std::int32_t id) {
  if (type == device_cpu) return "cpu";
  if (type == device_cuda) return "cuda:" + std::to_string(id);
  return "DLPack device type " + std::to_string(type);
}

std::string instance_type(nb::handle h) { return nb::inst_name(h).c_str(); }

// Why an object could not be imported: byte strides that are not whole elements (NumPy views
// of structured arrays) are a ValueError; anything else is not an array triax can read.
[[noreturn]] void reject(nb::handle h, const char* name) {
  if (h.is_none()) {
    throw nb::type_error((std::string("triax: ") + name + " is None, expected an array").c_str());
  }
  if (nb::hasattr(h, "strides") && nb::hasattr(h, "itemsize")) {
    try {
      const auto itemsize = nb::cast<std::int64_t>(h.attr("itemsize"));
      const nb::tuple strides = nb::cast<nb::tuple>(h.attr("strides"));
      for (nb::handle s : strides) {
        if (itemsize > 0 && nb::cast<std::int64_t>(s) % itemsize != 0) {
          throw nb::value_error(
              (std::string("triax: ") + name + " has byte strides " + nb::repr(strides).c_str() +
               " that are not multiples of its "
               "itemsize " +
               std::to_string(itemsize) + "; pass a copy with whole-element strides")
                  .c_str());
        }
      }
    } catch (const nb::cast_error&) {
      // Not NumPy-like after all: fall through to the TypeError.
    }
  }
  throw nb::type_error((std::string("triax: ") + name + " of type " + instance_type(h) +
                        " is not an array with the DLPack protocol (__dlpack__) or the buffer "
                        "protocol")
                           .c_str());
}

template <class Array>
void check_dtype(const Array& x, const char* name, nb::dlpack::dtype want) {
  if (x.dtype() != want) {
    throw nb::type_error((std::string("triax: ") + name + " has dtype " + dtype_text(x.dtype()) +
                          " but d has " + dtype_text(want) + "; convert them to one dtype")
                             .c_str());
  }
}

template <class Array>
void check_device(const Array& x, const char* name, const Signature& s) {
  const std::int32_t type = device_class(x.device_type());
  const std::int32_t id = type == device_cpu ? 0 : x.device_id();
  if (type != s.device_type || id != s.device_id) {
    throw nb::type_error((std::string("triax: ") + name + " is on " + device_text(type, id) +
                          " but d is on " + device_text(s.device_type, s.device_id) +
                          "; all arrays of a solve must be on one device")
                             .c_str());
  }
}

// Fills `strides` (`ndim` entries) from an array broadcast to `shape` (NumPy's rule: align the
// last dimensions; an extent of 1 stretches with stride 0); `target` names the shape in the
// error. Returns true if the array has a negative stride along a dimension of extent > 1.
template <class Array>
bool broadcast_to(const Array& x, const char* name, const std::int64_t* shape, int ndim,
                  std::int64_t* strides, const std::string& target) {
  const int nd = static_cast<int>(x.ndim());
  bool fits = nd <= ndim;
  bool negative = false;
  for (int k = 0; fits && k < ndim; ++k) {
    const int j = k - (ndim - nd);  // the array's own dimension, or < 0 if it has none here
    const std::int64_t e = j >= 0 ? static_cast<std::int64_t>(x.shape(j)) : 1;
    if (e == shape[k] && e != 1) {
      strides[k] = x.stride(j);
      negative |= strides[k] < 0;
    } else if (e == 1) {
      strides[k] = 0;
    } else {
      fits = false;
    }
  }
  if (!fits) {
    throw nb::value_error((std::string("triax: ") + name + " has shape " + shape_of(x) +
                           ", which does not broadcast to " + target)
                              .c_str());
  }
  return negative;
}

// The number of stride entries operand `op` has in a signature: the grid's, and for block
// systems the block row and column (a, b, c) or the component (d, out).
int stride_count(const Signature& s, int op) {
  return s.ndim + (s.block_m == 0 ? 0 : op < 3 ? 2 : 1);
}

}  // namespace

std::int64_t Signature::size() const {
  // Broadcast views can have more logical elements than 64 bits count: saturate (the library
  // then rejects the layout with its own message).
  __int128 n = 1;
  for (int k = 0; k < ndim; ++k) {
    n *= shape[k];
    if (n > INT64_MAX) return INT64_MAX;
  }
  return static_cast<std::int64_t>(n);
}

std::string Signature::shape_text() const { return tuple_text(shape.data(), ndim); }

std::size_t SignatureHash::operator()(const Signature& s) const {
  // FNV-1a over the fields that are set (those past ndim are zero in every signature).
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&h](std::int64_t v) {
    h ^= static_cast<std::uint64_t>(v);
    h *= 1099511628211ull;
  };
  mix(s.bits);
  mix(s.device_type);
  mix(s.device_id);
  mix(s.ndim);
  mix(s.axis);
  mix(s.block_m);
  mix(s.checked);
  mix(s.vectors_only);
  for (int k = 0; k < s.ndim; ++k) mix(s.shape[k]);
  for (int op = 0; op < operand_count; ++op) {
    for (int k = 0; k < stride_count(s, op); ++k) mix(s.strides[op][k]);
  }
  return static_cast<std::size_t>(h);
}

namespace {

void import_out(nb::handle out, Operands& ops) {
  if (out.is_none() || !nb::try_cast(out, ops.out)) {
    nb::ndarray<nb::ro> read_only;
    if (!out.is_none() && nb::try_cast(out, read_only)) {
      throw nb::value_error("triax: out is read-only");
    }
    reject(out, "out");
  }
}

Signature describe_imported(Operands& ops, int axis, bool checked, bool block);

}  // namespace

Signature describe(nb::handle a, nb::handle b, nb::handle c, nb::handle d, nb::handle out, int axis,
                   bool checked, Operands& ops, bool block) {
  const nb::handle inputs[4] = {a, b, c, d};
  for (int op = 0; op < 4; ++op) {
    if (inputs[op].is_none() || !nb::try_cast(inputs[op], ops.inputs[op])) {
      reject(inputs[op], operand_names[op]);
    }
  }
  import_out(out, ops);
  return describe_imported(ops, axis, checked, block);
}

Signature describe_vectors(nb::handle d, nb::handle out, int axis, bool checked, Operands& ops) {
  // d is imported once (a DLPack capsule can be consumed only once) and stands in for a, b, c.
  if (d.is_none() || !nb::try_cast(d, ops.inputs[3])) reject(d, "d");
  for (int op = 0; op < 3; ++op) ops.inputs[op] = ops.inputs[3];
  import_out(out, ops);
  Signature s = describe_imported(ops, axis, checked, false);
  s.vectors_only = true;
  return s;
}

namespace {

Signature describe_imported(Operands& ops, int axis, bool checked, bool block) {
  const auto& dd = ops.inputs[3];
  Signature s;
  const nb::dlpack::dtype dtype = dd.dtype();
  if (dtype != nb::dtype<float>() && dtype != nb::dtype<double>()) {
    throw nb::type_error(
        ("triax: d has dtype " + dtype_text(dtype) + "; triax solves float32 and float64").c_str());
  }
  s.bits = dtype.bits;
  s.device_type = device_class(dd.device_type());
  s.device_id = s.device_type == device_cpu ? 0 : dd.device_id();
  if (s.device_type != device_cpu && s.device_type != device_cuda) {
    throw nb::type_error(("triax: d is on " + device_text(s.device_type, s.device_id) +
                          "; triax runs on the cpu and on cuda devices")
                             .c_str());
  }
  // d's own shape (the vectors' shape), and the shape a, b, c broadcast to: d's for scalar
  // systems, (*grid, M, M) for blocks.
  const int d_ndim = static_cast<int>(dd.ndim());
  std::int64_t vector_shape[max_rank] = {}, block_shape[max_rank] = {};
  for (int k = 0; k < d_ndim && k < max_rank; ++k) {
    vector_shape[k] = static_cast<std::int64_t>(dd.shape(k));
  }
  int block_ndim = d_ndim;
  if (block) {
    if (d_ndim < 2 || d_ndim > max_block_grid_rank + 1) {
      throw nb::value_error(("triax: d has " + std::to_string(d_ndim) +
                             " dimensions; solve_block takes d of shape (*grid, M) with a grid "
                             "of 1 to " +
                             std::to_string(max_block_grid_rank) + " dimensions")
                                .c_str());
    }
    s.ndim = d_ndim - 1;
    s.block_m = static_cast<std::int32_t>(
        std::min<std::int64_t>(vector_shape[s.ndim], std::numeric_limits<std::int32_t>::max()));
    if (vector_shape[s.ndim] < 1) {
      throw nb::value_error(("triax: d has shape " + shape_of(dd) +
                             "; its last extent is the block size M, which must be >= 1")
                                .c_str());
    }
    std::copy(vector_shape, vector_shape + s.ndim + 1, block_shape);
    block_shape[s.ndim + 1] = vector_shape[s.ndim];
    block_ndim = s.ndim + 2;
  } else {
    s.ndim = d_ndim;
    if (s.ndim < 1 || s.ndim > max_rank) {
      throw nb::value_error(("triax: d has " + std::to_string(s.ndim) +
                             " dimensions; triax "
                             "solves arrays of 1 to " +
                             std::to_string(max_rank))
                                .c_str());
    }
    std::copy(vector_shape, vector_shape + d_ndim, block_shape);
  }
  if (axis < -s.ndim || axis >= s.ndim) {
    throw nb::value_error(("triax: axis = " + std::to_string(axis) + " is out of range for " +
                           (block ? "d's grid" : "d") + " with " + std::to_string(s.ndim) +
                           " dimensions")
                              .c_str());
  }
  s.axis = axis < 0 ? axis + s.ndim : axis;
  s.checked = checked;
  for (int k = 0; k < s.ndim; ++k) s.shape[k] = vector_shape[k];

  for (int op = 0; op < 3; ++op) {
    check_dtype(ops.inputs[op], operand_names[op], dtype);
    check_device(ops.inputs[op], operand_names[op], s);
  }
  check_dtype(ops.out, "out", dtype);
  check_device(ops.out, "out", s);

  const std::string d_shape_text = "d's shape " + tuple_text(vector_shape, d_ndim);
  const std::string block_shape_text =
      block ? "the blocks' shape " + tuple_text(block_shape, block_ndim) + " (d's grid, M, M)"
            : d_shape_text;
  int negative = 0;
  for (int op = 0; op < 4; ++op) {
    const bool vector = op == 3;
    if (broadcast_to(ops.inputs[op], operand_names[op], vector ? vector_shape : block_shape,
                     vector ? d_ndim : block_ndim, s.strides[op].data(),
                     vector ? d_shape_text : block_shape_text)) {
      negative |= 1 << op;
    }
    ops.data[op] = ops.inputs[op].data();
  }
  // The output is never broadcast: it must have d's shape exactly.
  bool same_shape = static_cast<int>(ops.out.ndim()) == d_ndim;
  for (int k = 0; same_shape && k < d_ndim; ++k) {
    same_shape = static_cast<std::int64_t>(ops.out.shape(k)) == vector_shape[k];
  }
  if (!same_shape) {
    throw nb::value_error(("triax: out has shape " + shape_of(ops.out) + " but d has shape " +
                           tuple_text(vector_shape, d_ndim))
                              .c_str());
  }
  if (broadcast_to(ops.out, "out", vector_shape, d_ndim, s.strides[op_out].data(), d_shape_text)) {
    throw nb::value_error(
        "triax: out has negative strides; triax writes only through "
        "non-negative strides (pass a view with positive strides or a copy)");
  }
  ops.data[op_out] = ops.out.data();
  if (negative != 0) throw NegativeStrides(negative);
  return s;
}

}  // namespace

int* import_info(nb::handle info, const Signature& s, std::int64_t count, nb::ndarray<>& holder) {
  if (info.is_none() || !nb::try_cast(info, holder)) reject(info, "info");
  bool contiguous = true;
  std::int64_t size = 1;
  for (int k = static_cast<int>(holder.ndim()) - 1; k >= 0; --k) {
    contiguous &= holder.shape(k) == 1 || holder.stride(k) == size;
    size *= static_cast<std::int64_t>(holder.shape(k));
  }
  if (holder.dtype() != nb::dtype<std::int32_t>() || !contiguous || size != count) {
    throw nb::value_error(("triax: info must be a C-contiguous int32 array of " +
                           std::to_string(count) + " elements (one per system)")
                              .c_str());
  }
  check_device(holder, "info", s);
  return static_cast<int*>(holder.data());
}

OperandLayouts layouts_of(const Signature& s) {
  // The library counts dimensions from the fastest: reverse NumPy's order.
  std::int64_t extents[max_rank], strides[operand_count][max_rank];
  for (int k = 0; k < s.ndim; ++k) {
    extents[k] = s.shape[s.ndim - 1 - k];
    for (int op = 0; op < operand_count; ++op) strides[op][k] = s.strides[op][s.ndim - 1 - k];
  }
  auto layout = [&](int op) {
    return Layout::strided(std::span<const std::int64_t>(extents, s.ndim),
                           std::span<const std::int64_t>(strides[op], s.ndim));
  };
  return OperandLayouts(layout(0), layout(1), layout(2), layout(3), layout(4));
}

BlockLayouts block_layouts_of(const Signature& s) {
  // Grid dimensions reversed as for scalars, after the block's own: the row (NumPy's
  // second-to-last axis of a, b, c) is the library's dimension 0, the column its dimension 1;
  // a vector's component (d's last axis) is its dimension 0.
  const int r = s.ndim;
  std::int64_t blocks[max_rank], vectors[max_rank], strides[operand_count][max_rank];
  blocks[0] = blocks[1] = vectors[0] = s.block_m;
  for (int k = 0; k < r; ++k) blocks[k + 2] = vectors[k + 1] = s.shape[r - 1 - k];
  for (int op = 0; op < operand_count; ++op) {
    const auto& from = s.strides[op];
    if (op < 3) {
      strides[op][0] = from[r];
      strides[op][1] = from[r + 1];
      for (int k = 0; k < r; ++k) strides[op][k + 2] = from[r - 1 - k];
    } else {
      strides[op][0] = from[r];
      for (int k = 0; k < r; ++k) strides[op][k + 1] = from[r - 1 - k];
    }
  }
  auto layout = [&](int op) {
    const int rank = op < 3 ? r + 2 : r + 1;
    return Layout::strided(std::span<const std::int64_t>(op < 3 ? blocks : vectors, rank),
                           std::span<const std::int64_t>(strides[op], rank));
  };
  return BlockLayouts(layout(0), layout(1), layout(2), layout(3), layout(4));
}

std::string difference(const Signature& plan, const Signature& call) {
  auto bits_text = [](int bits) { return bits == 32 ? "float32" : "float64"; };
  if (call.bits != plan.bits) {
    return std::string("dtype ") + bits_text(call.bits) + ", the plan " + bits_text(plan.bits);
  }
  if (call.device_type != plan.device_type || call.device_id != plan.device_id) {
    return "device " + device_text(call.device_type, call.device_id) + ", the plan " +
           device_text(plan.device_type, plan.device_id);
  }
  if (call.block_m != plan.block_m) {
    return "block size M = " + std::to_string(call.block_m) + ", the plan " +
           std::to_string(plan.block_m);
  }
  if (call.ndim != plan.ndim || call.shape != plan.shape) {
    const char* what = plan.block_m ? "d's grid shape " : "d's shape ";
    return what + call.shape_text() + ", the plan " + plan.shape_text();
  }
  for (int op = call.vectors_only ? 3 : 0; op < operand_count; ++op) {
    if (call.strides[op] != plan.strides[op]) {
      return std::string(operand_names[op]) + "'s element strides " +
             tuple_text(call.strides[op].data(), stride_count(call, op)) +
             " (0 = broadcast), the plan " +
             tuple_text(plan.strides[op].data(), stride_count(plan, op));
    }
  }
  return "the axis or the checked mode";
}

}  // namespace triax::python
