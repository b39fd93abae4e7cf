#pragma once
// What the CPU plan hands its kernels, and the kernels' entry points. The kernels are compiled
// once per instruction set (kernels_baseline.cpp for any x86-64 or other CPU; kernels_avx2.cpp
// with AVX2 and FMA on x86-64; kernels_avx512.cpp with AVX-512), each copy in its own namespace so that no inline function of one
// leaks into the other; the plan picks one at run time from what the processor supports.

#include <cstddef>
#include <cstdint>

#include "core/problem.hpp"
#include "cpu/range_guard.hpp"
#include "cpu/scalar/partition_work.hpp"
#include "triax/options.hpp"

namespace triax::detail::cpu {

/// The transpose kernel's tile: W systems side by side, R rows of each at a time. W = 32 in both
/// precisions (4 float vectors or 8 double ones per row: enough independent recurrences to keep
/// the divider busy). Float had 64 lanes until 2026-11-24; with 32 a group's rows (128 KiB at
/// n = 256) and its c', d' leave more of the 512 KiB L2 to the rest: along x, two threads of the
/// development VM, alternating runs, 256^3 28.8-29.9 ms against 31.6-35.3, 512x256x128
/// 32.5-33.7 against 37.1-38.8, 1024x128x128 48.3-48.4 against 54.7-55.3, n = 64 and 255 level
/// or faster; double with 16 lanes measured level and keeps 32. Float takes R = 8 rows, so that
/// the four input tiles stay in L1 between the transpose and the lane arithmetic, each system's
/// cache line read in two visits, the second from cache (14.7-16.2 GB/s against 10.7-12.7 with
/// R = 256 bytes of 64 lanes; 16 rows of 32 lanes measured level). Double measured level or
/// slower with 8 rows and 30% slower with 4, and keeps R = 256 bytes.
template <class T>
struct TileShape {
  static constexpr int lanes = 32;                                   // W
  static constexpr int rows = sizeof(T) == 4 ? 8 : 256 / sizeof(T);  // R
};

/// Per-thread scratch elements of each kernel (c', d' of every row and lane, row buffers).
inline std::size_t strip_scratch_elements(std::int64_t n, int width) {
  return static_cast<std::size_t>(2 * n + operand_count) * width;
}
template <class T>
std::size_t tile_scratch_elements(std::int64_t n) {
  return static_cast<std::size_t>(2 * n + op_x * TileShape<T>::rows) * TileShape<T>::lanes;
}

/// One solve of a batch: everything a kernel entry needs.
template <class T>
struct Batch {
  const Problem* problem;
  Operands<T> ops;
  Algorithm algorithm;   // cpu_thomas, cpu_thomas_transpose or cpu_thomas_partitioned
  int width;             // strip width (cpu_thomas)
  int threads;           // OpenMP threads
  T* work;               // threads x per_thread elements
  std::size_t per_thread;
  int* info_work;        // threads x 2 x max(width, tile lanes)
  int info_per_thread;
  PartitionWork<T> partition;  // cpu_thomas_partitioned
  /// TRIAX_CPU_RANGE_GUARD at plan creation; Guard::automatic is each copy's own (solve_batch.inc).
  /// Guard::none (timing only): the strip and transpose kernels take 1/m without the pivot scale
  /// of thomas_lanes.hpp's forward_row, and systems outside the normal range come back wrong. The
  /// partitioned kernels always take Guard::scaled.
  Guard range_guard = Guard::automatic;
  /// cpu_thomas_transpose reads short rows by whole vectors where they stay in what the solve
  /// reads (transpose_thomas.hpp, ReadSpans); TRIAX_CPU_TRANSPOSE_OVERREAD=0 (A/B runs) turns it off.
  bool vector_overread = true;
};

template <class T>
void solve_batch_baseline(const Batch<T>& batch);
template <class T>
void solve_batch_avx2(const Batch<T>& batch);
template <class T>
void solve_batch_avx512(const Batch<T>& batch);

/// Whether kernels_avx2.cpp was built and the processor runs it.
bool avx2_kernels_usable();
/// Whether kernels_avx512.cpp was built and the processor runs it (cpu/isa.hpp picks).
bool avx512_kernels_usable();

}  // namespace triax::detail::cpu
