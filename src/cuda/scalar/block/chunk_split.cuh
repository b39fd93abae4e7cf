#pragma once
// How the hybrid cuts a system of n rows into its chunk threads' chunks, and whether the chunks
// of a system whose rows are contiguous can be read straight from global memory in 16-byte
// vectors (Mapping::chunk_direct, or chunk_shifted where the systems start between vectors)
// rather than staged through shared memory row by row (chunk_fastest). Host code, shared by
// hybrid.cu and the bench's pattern bound, so that the bound moves the bytes the solve moves.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>

#include "cuda/scalar/block/hybrid_kernel.cuh"

namespace triax::detail::cuda {

/// Rows split into `active` chunks of q or q + 1 rows (all >= 2 unless n == 1).
inline HybridShape split_rows(std::int64_t n, int active_wanted, int P, int S) {
  HybridShape sh{};
  sh.P = P;
  sh.S = S;
  sh.C = 1;
  const std::int64_t cap = std::max<std::int64_t>(1, n / 2);
  sh.active = static_cast<int>(std::min<std::int64_t>(active_wanted, cap));
  sh.q = static_cast<int>(n / sh.active);
  sh.rem = static_cast<int>(n % sh.active);
  return sh;
}

/// The chunks of `sh` cut again for 16-byte vectors where split_rows' even cut does not give
/// them: q a multiple of V = 16 / sizeof(T) rows (at most M), every active chunk q rows but the
/// last, which keeps what remains (a multiple of V, so at least 2 rows), the chunks past it
/// empty. n = 300 in float over 32 chunk threads: 25 chunks of 12 rows and 7 empty ones, where
/// the even cut's 12 chunks of 10 rows and 20 of 9 start between vectors. False (sh unchanged)
/// where n is not a multiple of V or the vectors would need more than M rows a chunk.
template <class T>
bool split_vectors(std::int64_t n, int M, int chunks, HybridShape& sh) {
  constexpr std::int64_t V = 16 / sizeof(T);
  if (n < 1 || chunks < 1 || n % V != 0) return false;
  const std::int64_t even = (n + chunks - 1) / chunks;
  const std::int64_t q = (even + V - 1) / V * V;
  if (q > M) return false;
  sh.q = static_cast<int>(q);
  sh.rem = 0;
  sh.active = static_cast<int>((n + q - 1) / q);
  return true;
}

/// Whether the layout alone (n, offsets and batch strides, counted in elements) puts every
/// system's row 0 and end on a 16-byte vector boundary of each operand that has rows (row
/// stride not 0), given pointers on 16-byte boundaries. The plan knows only this; the pointers
/// come at the solve.
template <class T>
bool layout_in_vectors(const Problem& p) {
  constexpr std::int64_t V = 16 / sizeof(T);
  if (p.n % V != 0) return false;
  for (int op = 0; op < operand_count; ++op) {
    const OperandMap& m = p.map[op];
    if (m.row_stride == 0) continue;
    if (m.offset % V != 0) return false;
    for (int k = 0; k < p.batch_rank; ++k) {
      if (m.batch_strides[k] % V != 0) return false;
    }
  }
  return true;
}

/// chunk_direct's precondition on the arrays: every operand's rows contiguous (or, for a, b and
/// c, one value along the row: row stride 0, read once), every system starting on a 16-byte
/// boundary and n a whole number of 16-byte vectors.
template <class T>
bool rows_in_vectors(const Problem& p, const Operands<T>& ops) {
  if (!layout_in_vectors<T>(p)) return false;
  const void* ptrs[operand_count] = {ops.a, ops.b, ops.c, ops.d, ops.x};
  for (int op = 0; op < operand_count; ++op) {
    const OperandMap& m = p.map[op];
    const bool coefficient = op == op_a || op == op_b || op == op_c;
    if (coefficient && m.row_stride == 0) continue;
    if (m.row_stride != 1) return false;
    if (reinterpret_cast<std::uintptr_t>(ptrs[op]) % 16 != 0) return false;
  }
  return true;
}

/// chunk_shifted's precondition on the arrays: every operand's rows contiguous (or, for a, b and
/// c, row stride 0), the same batch strides in each, and row 0 of every system at the same place
/// within its 16-byte vector in each: pointers on element boundaries and equal (pointer + offset)
/// modulo the vector. Odd lengths, ghost layers and a base one element past a vector pass; x one
/// element apart from d does not. A coefficient whose contiguous rows every system shares (batch
/// strides 0: one matrix for the batch) passes where `shared` is given, which gets its bit (op),
/// and the kernel reads it element by element; else it does not.
/// `phase`: where row 0 of d's system 0 lies within its vector, in rows (set where true).
template <class T>
bool rows_shifted_alike(const Problem& p, const Operands<T>& ops, std::int64_t& phase,
                        unsigned* shared = nullptr) {
  constexpr std::int64_t V = 16 / sizeof(T);
  const auto mod = [](std::int64_t v) { return (v % V + V) % V; };
  const void* ptrs[operand_count] = {ops.a, ops.b, ops.c, ops.d, ops.x};
  const OperandMap& dm = p.map[op_d];
  const std::int64_t d_phase =
      mod(static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(ops.d) / sizeof(T) % V) +
          mod(dm.offset));
  unsigned shared_rows = 0;
  for (int op = 0; op < operand_count; ++op) {
    const OperandMap& m = p.map[op];
    const bool coefficient = op == op_a || op == op_b || op == op_c;
    if (coefficient && m.row_stride == 0) continue;
    if (m.row_stride != 1) return false;
    const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(ptrs[op]);
    if (address % sizeof(T) != 0) return false;
    if (coefficient && shared != nullptr && p.batch_rank > 0 && p.same_for_every_system(op)) {
      shared_rows |= 1u << op;
      continue;
    }
    if (mod(static_cast<std::int64_t>(address / sizeof(T) % V) + mod(m.offset)) != d_phase)
      return false;
    for (int k = 0; k < p.batch_rank; ++k) {
      if (m.batch_strides[k] != dm.batch_strides[k]) return false;
    }
  }
  phase = d_phase;
  if (shared != nullptr) *shared = shared_rows;
  return true;
}

/// The lowest and highest element offsets of an operand's layout (HybridShape::span_lo, span_hi).
inline void operand_span(const Problem& p, int op, std::int64_t& lo, std::int64_t& hi) {
  const OperandMap& m = p.map[op];
  lo = hi = m.offset;
  const auto add = [&](std::int64_t extent, std::int64_t stride) {
    const std::int64_t reach = (extent - 1) * stride;
    (reach < 0 ? lo : hi) += reach;
  };
  add(p.n, m.row_stride);
  for (int k = 0; k < p.batch_rank; ++k) add(p.batch_extents[k], m.batch_strides[k]);
}

/// The most rows a system's row 0 can lie past the 16-byte boundary before it, over a batch whose
/// row 0 in d is at `phase` rows past a boundary in system 0 (pointer and offset) and whose batch
/// strides are `strides`: the shifts are phase + i g modulo V, g = gcd(V, strides).
template <class T>
int max_vector_shift(std::int64_t phase, const Problem& p, int op) {
  constexpr std::int64_t V = 16 / sizeof(T);
  std::int64_t g = V;
  for (int k = 0; k < p.batch_rank; ++k) g = std::gcd(g, p.map[op].batch_strides[k]);
  g = std::abs(g);
  return static_cast<int>((phase % V + V) % V % g + V - g);
}

/// The chunks of chunk_shifted: a system's rows counted from the 16-byte boundary at or before
/// its row 0, `shift` rows earlier (0 .. `max_shift`, per system, in the kernel), and cut there in
/// chunks of q rows, q a multiple of V, so that every chunk but a system's first starts on a
/// vector; the first has `shift` rows fewer. `chunks` threads hold n + max_shift rows. False (sh
/// unchanged) where that needs more than M rows a chunk.
template <class T>
bool split_shifted(std::int64_t n, int M, int chunks, int max_shift, HybridShape& sh) {
  constexpr std::int64_t V = 16 / sizeof(T);
  if (n < 1 || chunks < 1) return false;
  const std::int64_t even = (n + max_shift + chunks - 1) / chunks;
  const std::int64_t q = (even + V - 1) / V * V;
  if (q > M) return false;
  sh.q = static_cast<int>(q);
  sh.rem = 0;
  sh.active = chunks;
  return true;
}

/// How the chunks of a system whose rows are contiguous reach their threads: straight from global
/// memory in 16-byte vectors, chunk_direct where every system starts on a vector and n is whole
/// vectors (rows_in_vectors; split_rows' cut where its chunks are whole vectors, else
/// split_vectors'), chunk_shifted where the systems start anywhere but alike in every operand
/// (rows_shifted_alike, split_shifted); else chunk_fastest, staged through shared memory.
/// `sh` is cut to match. Measurements: docs/notes/2026-11-28-session12.md (the vector cut) and
/// docs/notes/2026-11-28-session13.md (the shifted cut). TRIAX_CUDA_HYBRID_VECTOR_SPLIT=0 keeps
/// split_rows' cut; TRIAX_CUDA_HYBRID_SHIFTED=0 turns chunk_shifted off (the A/B switches).
/// chunk_shifted also takes coefficients that every system shares (one matrix for the batch,
/// rows_shifted_alike), element by element: 1.06-1.26x the staged kernel on such rows of the
/// shape suite (H200, docs/notes/2026-11-29-session16.md); TRIAX_CUDA_HYBRID_SHARED_ROWS=0 stages
/// them (chunk_fastest).
template <class T>
Mapping direct_shape(const Problem& p, const Operands<T>& ops, int M, HybridShape& sh) {
  constexpr int V = 16 / sizeof(T);
  const auto off = [](const char* name) {
    const char* sw = std::getenv(name);
    return sw != nullptr && sw[0] == '0';
  };
  if (rows_in_vectors(p, ops)) {
    if (sh.rem == 0 && sh.q % V == 0) return Mapping::chunk_direct;
    if (!off("TRIAX_CUDA_HYBRID_VECTOR_SPLIT") && split_vectors<T>(p.n, M, sh.P * sh.C, sh))
      return Mapping::chunk_direct;
  }
  std::int64_t phase = 0;
  const bool shared_on = !off("TRIAX_CUDA_HYBRID_SHARED_ROWS");
  unsigned shared = 0;
  if (!off("TRIAX_CUDA_HYBRID_SHIFTED") &&
      rows_shifted_alike(p, ops, phase, shared_on ? &shared : nullptr) &&
      split_shifted<T>(p.n, M, sh.P * sh.C, max_vector_shift<T>(phase, p, op_d), sh)) {
    operand_span(p, op_d, sh.span_lo, sh.span_hi);
    sh.shared_rows = shared;
    return Mapping::chunk_shifted;
  }
  return Mapping::chunk_fastest;
}

}  // namespace triax::detail::cuda
