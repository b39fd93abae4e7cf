#pragma once
// The precomputed coefficients of cyclic reduction for one matrix (paper 004): what
// triax::FactoredSolver's CR algorithms read, so that each solve reads d and writes x only.
//
// Numbering. Level l holds m_l = n >> l rows; row j of level l lives in slot ((j + 1) << l) - 1
// of the system, so every level works in place on one array of n values. Going from level l to
// l + 1 keeps the odd rows i = 2q + 1 (they become row q) and eliminates the even rows; the
// last level has one row. Any n works this way (no padding): m_{l+1} = floor(m_l / 2).
//
// Forward reduction of kept row i:   d[i] -= k1 d[i-1] + k2 d[i+1]   (k2 = 0 when i + 1 = m_l)
// Back substitution of even row i:   x[i] = (s d[i]) r - ar x[i-1] - cr x[i+1]
// with k1 = a_i / b_{i-1}, k2 = c_i / b_{i+1}, r = 1 / (s b_i), ar = a_i / b_i, cr = c_i / b_i the
// level's (reduced) diagonals, computed once in long double and rounded to T. s is a power of
// two that brings the pivots into T's range (1 unless they leave it), applied to d as it is
// loaded, as the Thomas table does (factor_table.hpp).
//
// Near-Toeplitz compression (paper 004's O(log n) storage): per level, the kept rows' (k1, k2)
// and the eliminated rows' (r, ar, cr) are each a sequence that is constant except near the
// ends; each sequence is stored as its rows before the longest run of bit-identical entries,
// that entry once, and the rows after (lossless, as the Thomas table).

#include <cstdint>
#include <vector>

#include "core/problem.hpp"

namespace triax::detail {

/// Shared memory the cuda_block_cr_shared kernel gives its systems' values: the default 48 KiB a
/// block less 1 KiB for the offsets and checked-mode rows of up to 32 systems (its static
/// shared memory), so that no opt-in is needed.
inline constexpr std::int64_t cr_shared_bytes = 47 * 1024;
/// The longest system cuda_block_cr_shared holds: 12032 rows of float, 6016 of double.
template <class T>
constexpr std::int64_t cr_shared_max_n() {
  return cr_shared_bytes / static_cast<std::int64_t>(sizeof(T));
}

/// Levels a CR table can hold: n < 2^40 rows.
inline constexpr int cr_max_levels = 40;

/// One compressed sequence of entries (3 values each) inside the table's storage.
struct CrSequence {
  std::int64_t offset = 0;  // entry index of the first stored entry
  std::int64_t head = 0;    // entries stored before the limit
  std::int64_t tail = 0;    // entries stored after it
  /// The stored entry of element q of a sequence of `count` elements.
  TRIAX_HOST_DEVICE std::int64_t entry(std::int64_t q, std::int64_t count) const {
    if (q < head) return offset + q;
    if (q >= count - tail) return offset + head + 1 + (q - (count - tail));
    return offset + head;
  }
};

/// What a kernel needs: the entries and, per level, the kept and eliminated sequences.
template <class T>
struct CrView {
  const T* entries = nullptr;  // 3 values an entry: kept (k1, k2, 0), eliminated (r, ar, cr)
  std::int64_t n = 0;
  int levels = 0;  // levels 0..levels-1; the last has one row (0 for n = 0)
  bool scaled = false;
  T scale[2] = {T(1), T(1)};
  int breakdown = 0;  // 0, or k + 1 for the slot k of the first pivot that broke down
  CrSequence kept[cr_max_levels];
  CrSequence eliminated[cr_max_levels];

  TRIAX_HOST_DEVICE static std::int64_t rows(std::int64_t n, int level) { return n >> level; }
  /// The slot of row j of `level`.
  TRIAX_HOST_DEVICE static std::int64_t slot(std::int64_t j, int level) {
    return ((j + 1) << level) - 1;
  }
  /// (k1, k2) of kept row i = 2q + 1 of `level`.
  TRIAX_HOST_DEVICE const T* kept_entry(int level, std::int64_t q) const {
    return entries + 3 * kept[level].entry(q, rows(n, level) / 2);
  }
  /// (r, ar, cr) of eliminated row i = 2q of `level`.
  TRIAX_HOST_DEVICE const T* eliminated_entry(int level, std::int64_t q) const {
    const std::int64_t m = rows(n, level);
    return entries + 3 * eliminated[level].entry(q, m - m / 2);
  }
};

/// The CR coefficients of one matrix, owned on the host.
template <class T>
struct CrTable {
  std::vector<T> entries;
  CrView<T> layout;  // entries == nullptr here; view() points it at `entries`
  std::int64_t stored() const { return static_cast<std::int64_t>(entries.size() / 3); }
  CrView<T> view() const {
    CrView<T> v = layout;
    v.entries = entries.data();
    return v;
  }
};

/// Precomputes the CR coefficients of the matrix a, b, c of n rows (a[0], c[n-1] unread).
template <class T>
CrTable<T> cr_matrix(const T* a, const T* b, const T* c, std::int64_t n);

}  // namespace triax::detail
