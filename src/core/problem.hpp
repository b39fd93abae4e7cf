#pragma once
// The normalised batch every backend receives: solving along axis k of an N-D layout becomes
// {n rows at a row stride} x {a few merged batch dimensions}, one map per operand. This is the
// only description kernels see; it is trivially copyable and usable in device code.

#include <cstdint>
#include <type_traits>

#if defined(__CUDACC__)
#define TRIAX_HOST_DEVICE __host__ __device__
#else
#define TRIAX_HOST_DEVICE
#endif

namespace triax::detail {

/// Batch dimensions left after the system axis is removed (rank 8 minus one).
inline constexpr int max_batch_rank = 7;

/// The five operands, in the order the maps are stored.
enum Operand : int { op_a = 0, op_b, op_c, op_d, op_x, operand_count };

/// Where one operand's elements live, relative to its base pointer.
struct OperandMap {
  std::int64_t offset = 0;      // element offset of row 0 of system 0
  std::int64_t row_stride = 0;  // between consecutive rows of one system
  std::int64_t batch_strides[max_batch_rank] = {};  // per merged batch dimension
};

/// A normalised batch: `count` systems of `n` rows; system s has batch coordinates given by
/// `s` in mixed radix over `batch_extents` (dimension 0 fastest).
struct Problem {
  std::int64_t n = 0;
  std::int64_t count = 0;
  int batch_rank = 0;
  std::int64_t batch_extents[max_batch_rank] = {};
  OperandMap map[operand_count] = {};

  /// The element offset (without the operand's base offset) of system s's row 0 in operand op.
  TRIAX_HOST_DEVICE std::int64_t system_offset(int op, std::int64_t s) const {
    std::int64_t off = map[op].offset;
    for (int k = 0; k < batch_rank; ++k) {
      const std::int64_t e = batch_extents[k];
      const std::int64_t i = s % e;
      s /= e;
      off += i * map[op].batch_strides[k];
    }
    return off;
  }

  /// Whether operand op is the same for every system (every batch stride 0: one row, or one
  /// matrix's diagonal, that all systems read).
  TRIAX_HOST_DEVICE bool same_for_every_system(int op) const {
    for (int k = 0; k < batch_rank; ++k) {
      if (map[op].batch_strides[k] != 0) return false;
    }
    return true;
  }
  /// Whether a, b and c are one matrix for every system.
  TRIAX_HOST_DEVICE bool one_matrix() const {
    return same_for_every_system(op_a) && same_for_every_system(op_b) &&
           same_for_every_system(op_c);
  }
};
static_assert(std::is_trivially_copyable_v<Problem>);

/// Consecutive systems s0, s0 + 1, ... of a problem with each operand's offset (as
/// Problem::system_offset gives it): the batch coordinates of s0 take one division per batch
/// dimension, each later system an odometer step. Kernels that set up many systems at once use
/// it: with two 64-bit divisions per system and operand, setting up a group of 64 float systems
/// of the CPU transpose kernel cost 0.22 ns per element of the 2.2 its solve takes in the
/// caches (one thread, n = 256); with the walk, 0.08.
struct SystemWalk {
  const Problem* p;
  std::int64_t coord[max_batch_rank] = {};
  std::int64_t offset[operand_count] = {};

  SystemWalk(const Problem& problem, std::int64_t s0) : p(&problem) {
    for (int op = 0; op < operand_count; ++op) offset[op] = p->map[op].offset;
    for (int k = 0; k < p->batch_rank; ++k) {
      coord[k] = s0 % p->batch_extents[k];
      s0 /= p->batch_extents[k];
      for (int op = 0; op < operand_count; ++op)
        offset[op] += coord[k] * p->map[op].batch_strides[k];
    }
  }

  /// Moves to the next system.
  void next() {
    for (int k = 0; k < p->batch_rank; ++k) {
      for (int op = 0; op < operand_count; ++op) offset[op] += p->map[op].batch_strides[k];
      if (++coord[k] < p->batch_extents[k]) return;
      for (int op = 0; op < operand_count; ++op) {
        offset[op] -= coord[k] * p->map[op].batch_strides[k];
      }
      coord[k] = 0;
    }
  }
};

/// The pointers of one solve. `d` and `x` may be the same pointer with the same map (in place);
/// `accumulate` makes the kernels add the solution to x instead of storing it.
template <class T>
struct Operands {
  const T* a;
  const T* b;
  const T* c;
  const T* d;
  T* x;
  bool accumulate;
  int* info;  // one per system in checked mode, else nullptr
};

}  // namespace triax::detail
