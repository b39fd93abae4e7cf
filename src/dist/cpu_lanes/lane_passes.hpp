#pragma once
// CPU ranks' local passes over W systems at a time (issue 28): the arithmetic of reduce_piece and
// finish_piece (local_passes.hpp) in SIMD lanes, W = the vector width of the compiled copy
// (baseline, avx2, avx512; picked once per plan by cpu::kernel_isa()). Along y and z (systems
// adjacent in memory) they walk strips of up to a line of systems row by row (strips.inc). One
// system per scalar sweep was a chain of dependent divisions; W independent chains fill the divider
// and the loads are whole vectors (neighbouring systems' rows, or register-transposed tiles where
// each system's rows are contiguous).
//
// The workspace holds 3 n values per system, the systems of a batch in order: a full group of W
// systems starting at s owns [3 n s, 3 n (s + W)) with as, cs, ds each as n rows of W lanes (the
// back substitution reads whole vectors); a system of a batch's tail (count not a multiple of W)
// owns [3 n s, 3 n (s + 1)) and runs the scalar passes. (A group is U W systems, U = 4 or 2
// vectors, then groups of W; row 0 of a group's as, unused by the sweep, holds the last row of
// as it wrote: lanes.inc.) A strip of L systems from s (strips.inc) owns [3 n s, 3 n (s + L)) the
// same way, rows of L lanes. Groups and strips never straddle batches, so the overlapped batches
// of Options::overlap never share workspace.

#include <algorithm>
#include <cstdint>

#include "core/problem.hpp"
#include "dist/local_passes.hpp"

namespace triax::detail::dist_lanes {

/// The most systems of one strip (strips.inc: its stack state, 4 values a lane in the forward
/// pass).
constexpr std::int64_t max_strip_lanes = 512;

/// A strip's workspace (3 n values a lane) within this, so that the back substitution finds
/// it in the core's L2 where the batch does not hold more (the single-rank kernel's budget
/// for its 2 n values a lane, cpu_plan.cpp).
constexpr std::int64_t strip_workspace_bytes = std::int64_t(1) << 20;

/// What one solve's local passes read and write (the plan's arrays; nothing is allocated).
/// With `recompute` (TRIAX_DIST_RECOMPUTE=1, docs/notes/2026-11-27-dist28.md) no workspace
/// outlives a group or strip: `work` holds `threads` slices of `slice` values, each thread's
/// item writes its own slice (reduce: then drops it; finish: reduces the item again into it,
/// then back-substitutes from it while it is in the core's caches), so the passes move 9
/// values an element instead of 11, with the same arithmetic and bits.
template <class T>
struct LaneJob {
  Problem p;  ///< in place: x's map is d's
  Operands<T> ops;
  PiecePlace place;
  T* work;                  ///< 3 n values per system, laid out as above (or the slices)
  ReducedPair<T>* rows;     ///< the reduced rows, one pair per system (written by reduce)
  const T* ends;            ///< x[0] and x[n-1] of system s at 2 s, 2 s + 1 (read by finish)
  std::int64_t* first_bad;  ///< checked mode: per system, first_row + the first non-finite
                            ///< local row, or int64 max; else null
  std::int64_t first_row;   ///< this rank's first global row
  int threads;
  bool strips = false;  ///< systems adjacent: walk whole rows of strips (strips.inc), else groups
  bool recompute = false;  ///< the slices above, not a workspace per system
  std::int64_t slice = 0;  ///< recompute: values of each thread's slice
  std::int64_t work_first = 0;  ///< the system whose workspace begins at work (one item's job)
};

/// Whether the plan's passes recompute (LaneJob::recompute): TRIAX_DIST_RECOMPUTE is "1" (read
/// when a plan is made).
bool recompute_from_environment();

/// Recompute: values of one thread's slice, the largest item of a batch (a strip of at most
/// strip_workspace_bytes or max_strip_lanes, a group of up to 4 vectors of 16 lanes, a tail
/// system), for pieces of n rows and `count` systems.
template <class T>
std::int64_t recompute_slice(std::int64_t n, std::int64_t count) {
  const std::int64_t per_lane = 3 * n;
  const std::int64_t strip = std::min<std::int64_t>(
      max_strip_lanes, strip_workspace_bytes / (per_lane * static_cast<std::int64_t>(sizeof(T))));
  const std::int64_t lanes = std::min<std::int64_t>(count, std::max<std::int64_t>(64, strip));
  return per_lane * std::max<std::int64_t>(1, lanes);
}

/// Whether the plan's passes walk in strips: unless TRIAX_DIST_STRIPS is "0" (the groups' order,
/// for comparisons; read when a plan is made).
bool strips_from_environment();

/// One pass over the systems [first, first + size) of a batch.
template <class T>
using LanePass = void (*)(const LaneJob<T>& job, std::int64_t first, std::int64_t size);

template <class T>
struct LanePasses {
  LanePass<T> reduce = nullptr;
  LanePass<T> finish = nullptr;
  int width = 1;  ///< W, the systems of a group
};

/// The copy cpu::kernel_isa() names (throws triax::invalid_argument as it does).
template <class T>
LanePasses<T> lane_passes();

// The compiled copies (lanes.inc); lanes_no_avx2.cpp forwards avx2 and avx512 to baseline where
// they are not built.
#define TRIAX_DIST_LANES_DECLARE(isa)                                        \
  namespace isa {                                                            \
  template <class T>                                                         \
  void reduce(const LaneJob<T>& job, std::int64_t first, std::int64_t size); \
  template <class T>                                                         \
  void finish(const LaneJob<T>& job, std::int64_t first, std::int64_t size); \
  template <class T>                                                         \
  int width();                                                               \
  }
TRIAX_DIST_LANES_DECLARE(baseline)
TRIAX_DIST_LANES_DECLARE(avx2)
TRIAX_DIST_LANES_DECLARE(avx512)
#undef TRIAX_DIST_LANES_DECLARE

}  // namespace triax::detail::dist_lanes
