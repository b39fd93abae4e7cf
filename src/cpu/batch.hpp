#pragma once
// What the CPU plan hands its kernels, and the kernels' entry points. The kernels are compiled
// once per instruction set (kernels_baseline.cpp for any x86-64 or other CPU; kernels_avx2.cpp
// with AVX2 and FMA on x86-64), each copy in its own namespace so that no inline function of one
// leaks into the other; the plan picks one at run time from what the processor supports.

#include <cstddef>
#include <cstdint>

#include "core/problem.hpp"
#include "triax/options.hpp"

namespace triax::detail::cpu {

/// The transpose kernel's tile: W systems side by side, R rows of each at a time. Float takes
/// R = 8 rows, so that the four input tiles (4 x W x R values, 8 KiB) stay in L1 between the
/// transpose and the lane arithmetic, each system's cache line read in two visits, the second from
/// cache: on the development VM (256^3 along x, in place, alternating runs) 14.7-16.2 GB/s
/// against 10.7-12.7 with R = 256 bytes (64 KiB of tiles in L2). Double measured level or slower
/// with 8 rows and 30% slower with 4, and keeps R = 256 bytes.
template <class T>
struct TileShape {
  static constexpr int lanes = 256 / sizeof(T);  // W: four cache lines of one row across systems
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
  Algorithm algorithm;   // cpu_thomas or cpu_thomas_transpose
  int width;             // strip width (cpu_thomas)
  int threads;           // OpenMP threads
  T* work;               // threads x per_thread elements
  std::size_t per_thread;
  int* info_work;        // threads x 2 x max(width, tile lanes)
  int info_per_thread;
};

template <class T>
void solve_batch_baseline(const Batch<T>& batch);
template <class T>
void solve_batch_avx2(const Batch<T>& batch);

/// Whether kernels_avx2.cpp was built and the processor runs it.
bool avx2_kernels_usable();

}  // namespace triax::detail::cpu
