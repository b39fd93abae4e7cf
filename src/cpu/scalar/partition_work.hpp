#pragma once
// The data of cpu_thomas_partitioned (partitioned_thomas.hpp) that the plan sizes and owns: how
// a system is cut into chunks, and the per-chunk results the kernel's steps hand each other.
// Plain structs outside the instruction-set namespaces, shared by the plan and every copy of
// the kernels.

#include <algorithm>
#include <cstdint>

namespace triax::detail::cpu {

/// Chunk k of K over n rows: chunks 0 .. K-2 have q = n / K >= 2 rows each, the last one the
/// rest (q to q + K - 1 rows), so that the chunks before it can run side by side in lockstep.
struct ChunkRange {
  std::int64_t begin, end;
};
inline ChunkRange chunk_range(std::int64_t n, std::int64_t chunks, std::int64_t k) {
  const std::int64_t q = n / chunks;
  return {k * q, k + 1 == chunks ? n : (k + 1) * q};
}

/// Chunks per lane group of the kernel: enough independent division chains to keep the divider
/// busy.
inline constexpr int partition_lanes = 8;

/// The variant for rows that are not contiguous (strip_partitioned.hpp): its lanes are up to
/// this many neighbouring systems (batch dimension 0), each task one chunk of all of them.
inline constexpr int strip_partition_lanes = 32;
/// Up to this many chunks of a strip run in lockstep (one task of that variant): each adds
/// independent division chains, which a strip of few systems (5 lanes: one vector and a bit)
/// has too few of to hide the division's latency.
inline constexpr int strip_chunk_group = 4;

/// An end row of an interior as the outside rows beside it determine it.
template <class T>
struct EndRelation {
  T delta, gamma, kappa;
};
template <class T>
struct ChunkRelations {
  EndRelation<T> top, bottom;  // x[s] and x[e-1]
};

/// Checked-mode findings of one chunk or interface: the first row that broke down in an
/// elimination (0 = none) and the last row whose x is not finite (0 = none), both row + 1.
struct RowFindings {
  int first_bad = 0;
  int last_nonfinite = 0;
};

/// What the three steps share: K chunks per system and the plan's workspace.
template <class T>
struct PartitionWork {
  std::int64_t chunks;           // K >= 1 (1: Thomas on the whole system)
  ChunkRelations<T>* relations;  // count x K
  T* boundary;                   // count x (K - 1)
  RowFindings* findings;         // count x K (checked mode)
  int* interface_bad;            // count (checked mode)
  long double* reduced;          // threads x 2K
  T* scratch;                    // threads x scratch_per_thread: 2 x lanes x rows of a chunk
  std::int64_t scratch_per_thread;
  bool across_systems = false;   // strip_partitioned.hpp's variant: lanes are neighbouring systems
  bool vector_rows = true;       // the chunk-lane variant's vector blocks (partitioned_thomas.hpp)
};

}  // namespace triax::detail::cpu
