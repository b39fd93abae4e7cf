#pragma once
// Index arithmetic of the axis-0 aligned-span path (Mapping::chunk_span, aligned_span.cuh), plain
// host/device code so that tests/core/span_index_test.cpp checks it without a GPU.
//
// A group of gw lanes holds the consecutive chunks of one system whose rows [R0, R1) are one
// contiguous run. The run starts `mis` elements past a 16-byte boundary (mis < V, V elements per
// 16 bytes); the group copies the aligned 16-byte vectors that cover it, and only those: vector v
// holds the run's elements v V - mis .. v V - mis + V - 1 (those outside [0, len) are someone
// else's and are dropped). Lane gi copies vectors gi + gw i. The vectors go to shared memory
// whole (cp.async), in the group's area of group_elems slots, element e' = v V + k of the span
// at slot(e'): one vector of padding per 128 bytes keeps vectors 16-byte aligned.
//
// A lane then reads its chunk's L <= M rows. Lanes whose chunks start a multiple of V elements
// apart would all hit the same V-th of the banks (vectors stay whole, so an element's bank is
// fixed modulo V), so lane i reads its rows in a rotated order, row (k + skew) mod M at step k,
// skew = (i - first) mod V: the lanes then read all V residues. The values land rotated and are
// turned back by rotate_right (log2 V selects per row; no register array indexed at run time).
// Rows past the chunk's L are not read (they hold 0 and are never used).
//
// Bounds: between the systems of one operand, the rounded-out elements are the array's own
// (ghosts, padding, neighbours' rows), but before its lowest addressed element and after its
// highest they may lie outside the caller's allocation (a pool's sub-allocation, an exact
// cudaMalloc). So a vector is copied whole only where it lies inside [lo, hi] of its operand
// (SpanBounds, made on the host from the layout); one that crosses a bound, which only the
// first and last systems of a batch can have, is loaded element by element, its run's elements
// only.
#include <algorithm>
#include <cstdint>

#include "core/problem.hpp"  // TRIAX_HOST_DEVICE

namespace triax::detail::cuda {

template <class T>
struct SpanIndex {
  static constexpr int V = 16 / static_cast<int>(sizeof(T));  // elements per 16-byte vector
  static constexpr int line = 128 / static_cast<int>(sizeof(T));

  /// Aligned vectors that cover a run of len elements starting mis past a boundary.
  TRIAX_HOST_DEVICE static constexpr int vectors(int mis, int len) {
    return len <= 0 ? 0 : (mis + len + V - 1) / V;
  }
  /// Copies per lane that cover any run a group of gw lanes holds (len <= gw M, mis < V): the
  /// span is at most gw M / V + 1 vectors.
  template <int M>
  static constexpr int copies_per_lane = M / V + 1;
  /// Shared-memory slot of span element e (counted from the group area's start).
  TRIAX_HOST_DEVICE static constexpr int slot(int e) { return e + V * (e / line); }
  /// Elements of one group's area: its run (up to gw M) and up to V - 1 before it, rounded to
  /// whole vectors (M is a multiple of V).
  TRIAX_HOST_DEVICE static constexpr int group_elems(int gw, int M) { return gw * M + V; }
  /// Slots of one operand's staging array of a warp (32 / gw groups), whole vectors.
  TRIAX_HOST_DEVICE static constexpr int array_slots(int gw, int M) {
    return slot((32 / gw) * group_elems(gw, M) - 1) + 1;
  }
  /// Whether the vector whose first element is at `first` lies inside [lo, hi] (element
  /// offsets, or pointers on the device): then it is copied whole, else element by element.
  template <class P>
  TRIAX_HOST_DEVICE static constexpr bool inside(P first, P lo, P hi) {
    return lo <= first && first + (V - 1) <= hi;
  }
  /// The rotation that spreads a lane's reads over the V residues.
  TRIAX_HOST_DEVICE static constexpr int skew(int lane, int first) {
    return ((lane - first) % V + V) % V;
  }
  /// Chunk row read at step k (rotated by skew); rows from L on are not read (the chunk has
  /// none there, and a read would only add bank conflicts).
  TRIAX_HOST_DEVICE static constexpr int read_row(int k, int skew, int M) {
    return (k + skew) & (M - 1);
  }
};

/// Each operand's lowest and highest addressed element over the whole layout (element offsets
/// from its base pointer, as Problem::map's offsets): what the aligned-span path may read.
struct SpanBounds {
  std::int64_t lo[operand_count];
  std::int64_t hi[operand_count];
  static SpanBounds make(const Problem& p) {
    SpanBounds b{};
    for (int op = 0; op < operand_count; ++op) {
      const OperandMap& m = p.map[op];
      std::int64_t lo = m.offset, hi = m.offset;
      const auto extend = [&](std::int64_t extent, std::int64_t stride) {
        if (extent <= 0) return;
        const std::int64_t far = (extent - 1) * stride;
        lo += std::min<std::int64_t>(far, 0);
        hi += std::max<std::int64_t>(far, 0);
      };
      extend(p.n, m.row_stride);
      for (int k = 0; k < p.batch_rank; ++k) extend(p.batch_extents[k], m.batch_strides[k]);
      b.lo[op] = lo;
      b.hi[op] = hi;
    }
    return b;
  }
};

/// v[j] becomes v[(j + Dir s) mod M] for 0 <= s < V (a power of two): one select per row and
/// bit of s.
template <int V, int Dir, class T, int M>
TRIAX_HOST_DEVICE inline void rotate_by(T (&v)[M], int s) {
#pragma unroll
  for (int b = 1; b < V; b <<= 1) {
    T r[M];
#pragma unroll
    for (int j = 0; j < M; ++j) r[j] = v[(j + Dir * b + M) % M];
    const bool on = (s & b) != 0;
#pragma unroll
    for (int j = 0; j < M; ++j) v[j] = on ? r[j] : v[j];
  }
}
/// out[j] = in[(j - s) mod M], and its inverse.
template <int V, class T, int M>
TRIAX_HOST_DEVICE inline void rotate_right(T (&v)[M], int s) {
  rotate_by<V, -1>(v, s);
}
template <int V, class T, int M>
TRIAX_HOST_DEVICE inline void rotate_left(T (&v)[M], int s) {
  rotate_by<V, 1>(v, s);
}

}  // namespace triax::detail::cuda
