#pragma once
// The arrays of one solve as the bindings see them: imported through DLPack (or the buffer
// protocol), checked for dtype and device, and summed up in a Signature, which names everything
// a plan depends on and is the plan cache's key.

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "triax/block.hpp"
#include "triax/triax.hpp"

namespace triax::python {

namespace nb = nanobind;

/// a, b, c, d and the output, in the order the library takes them.
inline constexpr int operand_count = 5;
inline constexpr int op_out = 4;
inline constexpr const char* operand_names[operand_count] = {"a", "b", "c", "d", "out"};

/// DLPack device types the bindings accept (kDLCUDAHost, pinned host memory, counts as cpu).
inline constexpr std::int32_t device_cpu = 1;
inline constexpr std::int32_t device_cuda = 2;

/// Everything a plan depends on. Shapes and strides are in NumPy order (last dimension
/// fastest), strides in elements; a dimension of extent 1 in d, or one an operand broadcasts
/// over, has stride 0, so equal problems give equal keys whatever strides NumPy put there.
///
/// Block systems (block_m > 0): `ndim` and `shape` are the grid's (d without its last axis),
/// and each operand's strides continue past the grid: a, b, c with the block row and column
/// (entries ndim and ndim + 1), d and out with the component (entry ndim).
struct Signature {
  std::int32_t bits = 0;         // 32 (float32) or 64 (float64)
  std::int32_t device_type = 0;  // device_cpu or device_cuda
  std::int32_t device_id = 0;
  std::int32_t ndim = 0;
  std::int32_t axis = 0;     // NumPy's axis, in [0, ndim)
  std::int32_t block_m = 0;  // M of M x M blocks; 0 for scalar systems
  bool checked = false;
  bool vectors_only = false;  // d and out only (a factored plan): a, b, c mirror d
  std::array<std::int64_t, max_rank> shape{};
  std::array<std::array<std::int64_t, max_rank>, operand_count> strides{};

  bool operator==(const Signature&) const = default;
  /// The number of elements of d (0 for an empty problem).
  std::int64_t size() const;
  /// The shape as Python prints it, e.g. "(4, 5)".
  std::string shape_text() const;
};

struct SignatureHash {
  std::size_t operator()(const Signature& s) const;
};

/// Thrown when inputs have negative strides, which triax::Layout cannot express; `mask` has bit
/// k set for operand k. The Python layer copies those inputs and calls again.
struct NegativeStrides : std::exception {
  explicit NegativeStrides(int m) : mask(m) {}
  const char* what() const noexcept override { return "triax: inputs with negative strides"; }
  int mask;
};

/// The imported arrays of one call; they keep the producers' buffers alive during the solve.
struct Operands {
  nb::ndarray<nb::ro> inputs[4];
  nb::ndarray<> out;
  const void* data[operand_count] = {};
};

/// Imports a, b, c, d (read only) and out (writable) and describes them. Raises TypeError for
/// a non-array, a dtype other than float32/float64, mixed dtypes or mixed devices; ValueError for
/// shapes that do not broadcast to d's, an axis out of range, a read-only or negatively strided
/// out, byte strides that are not whole elements; NegativeStrides for negatively strided inputs.
/// With `block`, a, b, c are blocks of shape (*grid, M, M) (entry [..., i, j]: block row i,
/// column j; broadcast over the grid as NumPy does) and d, out vectors of shape (*grid, M); the
/// grid has 1 to 6 dimensions and `axis` counts them.
Signature describe(nb::handle a, nb::handle b, nb::handle c, nb::handle d, nb::handle out, int axis,
                   bool checked, Operands& operands, bool block = false);

/// d and out alone (the operands of a factored plan, whose matrix is its own): as describe(),
/// with a, b and c taken to be d.
Signature describe_vectors(nb::handle d, nb::handle out, int axis, bool checked,
                           Operands& operands);

/// Imports the checked mode's info array: int32, C-contiguous, `count` elements, on d's device.
int* import_info(nb::handle info, const Signature& s, std::int64_t count, nb::ndarray<>& holder);

/// The layouts of a signature in the library's order (dimension 0 fastest).
OperandLayouts layouts_of(const Signature& s);
/// The same for a block signature: blocks (row, column, grid...) and vectors (component,
/// grid...), as triax::BlockSolver takes them.
BlockLayouts block_layouts_of(const Signature& s);

/// The library's axis for a signature (NumPy's axis counted from the other end).
inline int library_axis(const Signature& s) { return s.ndim - 1 - s.axis; }

/// Why two signatures differ, in words (for a Solver called with other arrays than its own).
std::string difference(const Signature& plan, const Signature& call);

}  // namespace triax::python
