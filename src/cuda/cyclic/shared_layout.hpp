#pragma once
// Where a block of the cyclic family keeps its system in shared memory, computed alike by the
// launcher (bytes to ask for) and the kernel (where each array starts). Arrays are structures of
// arrays (one per coefficient), each padded by one element every 128 bytes: CR's level at
// distance s reads rows k s, so without padding a warp's 32 reads fall into 32 / gcd banks, up to
// 32-way conflicts from s = 32 on (paper 001, s.5.3.1, Fig. 9); with it, rows 128 bytes apart
// land one bank further each.
#include <cstddef>
#include <cstdint>

#include "core/cyclic_equations.hpp"
#include "core/cyclic_variants.hpp"

namespace triax::detail::cuda::cyclic {

using detail::cyclic::InnerSolver;

/// Index of element i in a padded array of T.
template <class T>
TRIAX_HOST_DEVICE constexpr int padded(int i) {
  return i + i / static_cast<int>(128 / sizeof(T));
}
/// Elements a padded array of `count` elements takes.
template <class T>
TRIAX_HOST_DEVICE constexpr int padded_length(int count) {
  return count == 0 ? 0 : padded<T>(count - 1) + 1;
}

/// The longest system a block holds: 4096 float or 2048 double rows (with padding, RD's two scan
/// buffers of 6 arrays take 198 KiB of the 227 KiB an sm_90 block may opt into).
template <class T>
inline constexpr std::int64_t max_rows = 16384 / sizeof(T);

/// The carve-up of one block's dynamic shared memory, in elements of T from its start.
struct SharedLayout {
  int n;             // rows of the system
  int stride;        // CR's distance after its forward reduction (1: no CR step)
  int reduced;       // rows of the reduced system the inner solver takes
  bool rows_held;    // the rows are loaded into shared memory (all but plain RD)
  int rows_length;   // padded length of each of the rows' 4 arrays (0 when not held)
  int inner_length;  // padded length of each array of the inner solver's 2 buffers

  template <class T>
  TRIAX_HOST_DEVICE static SharedLayout of(int n, std::int64_t switch_rows, InnerSolver inner) {
    SharedLayout l{};
    l.n = n;
    l.stride = 1;
    while (detail::cyclic::rows_at_level(n, l.stride) > switch_rows) l.stride *= 2;
    l.reduced = static_cast<int>(detail::cyclic::rows_at_level(n, l.stride));
    l.rows_held = !(inner == InnerSolver::rd && l.stride == 1);
    l.rows_length = l.rows_held ? padded_length<T>(n) : 0;
    l.inner_length = padded_length<T>(l.reduced);
    return l;
  }
  /// PCR: 2 x 4 arrays (a reduced system and its next step; without CR the first of them is
  /// the rows themselves). RD: 2 x 6 arrays (the scan's steps and its double buffer).
  TRIAX_HOST_DEVICE int inner_arrays(InnerSolver inner) const {
    if (inner == InnerSolver::rd) return 12;
    return stride == 1 ? 4 : 8;
  }
  template <class T>
  TRIAX_HOST_DEVICE std::size_t bytes(InnerSolver inner) const {
    return (static_cast<std::size_t>(4) * rows_length +
            static_cast<std::size_t>(inner_arrays(inner)) * inner_length) *
           sizeof(T);
  }
};

}  // namespace triax::detail::cuda::cyclic
