// Launch shapes of the chunk table kernels. Rows contiguous (d and x at row stride 1, axis 0):
// the warp kernel, 8 warps a block where their stages fit the default 48 KiB of shared memory
// (every M of float, M <= 16 of double), fewer for 32-row double chunks; each warp holds 32 / W
// systems. Any other stride: the strided kernel, S x P threads a block (chunk_strided_systems).
// Each shape in two forms: the right-hand side loaded (PlainRows) or formed from f by a stencil
// (StencilRows, core/factored/chunk_rows.hpp).
#include "cuda/factored/chunk_table_launch.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "cuda/factored/chunk_table_kernel.cuh"
#include "cuda/launch/device_occupancy.hpp"
#include "cuda/launch/launch_kernel.hpp"
#include "triax/errors.hpp"

namespace triax::detail::cuda {
namespace {

/// Threads a block of the strided kernel holds at most: TRIAX_CUDA_TABLE_THREADS (64, 128, 256
/// or 512) to compare, else 256 for double chunks of up to 16 rows and chunk_strided_threads
/// otherwise. Why (scripts/sweep-table-threads, H200, 2026-11-29,
/// bench/results/factored/gpu-h200-table-threads.txt): the double kernel at M = 16 holds 77
/// registers a thread, so one block of 512 an SM (25% occupancy) against three of 256; 512^3
/// factored solves along y and z 56.1 / 57.8 -> 75.8 / 70.2% of the copy, n = 256 55.8 / 59.8 ->
/// 61.2 / 65.5%, the compact derivative along y and z 2.15 / 2.13 -> 1.76 / 1.76 copies, the
/// route's 181x511x181 along y 39.2 -> 45.1%. Float (8 systems a block of 256: 32-byte row runs)
/// lost along z (512^3 46.6 -> 39.6%), double M = 32 too (155x155x700 along z 34.3 -> 30.5%).
template <class T, int M>
int strided_threads() {
  const char* v = std::getenv("TRIAX_CUDA_TABLE_THREADS");
  if (v == nullptr || v[0] == '\0') {
    return sizeof(T) == sizeof(double) && M <= 16 ? 256 : chunk_strided_threads;
  }
  const int t = std::atoi(v);
  if (t != 64 && t != 128 && t != 256 && t != 512) {
    throw invalid_argument("TRIAX_CUDA_TABLE_THREADS = \"" + std::string(v) +
                           "\" is not one of 64, 128, 256, 512");
  }
  return t;
}

/// Whether the strided kernel's blocks copy the table into shared memory first (on;
/// TRIAX_CUDA_TABLE_SHARED=0 reads it through the read-only cache instead). Measured on an H200
/// (2026-11-29, bench/results/factored/gpu-h200-table-shared.txt), % of the copy, cache ->
/// shared: factored float 512^3 along y/z 44.8/46.6 -> 58.2/59.8, double 76.1/71.1 -> 82.6/73.2,
/// double 256^3 58.6/61.9 -> 71.6/71.5; route double 155x155x700 z 34.6 -> 46.9; the one loss,
/// route double 181x511x181 along y, 45.8 -> 40.7.
bool strided_shared_table() {
  const char* v = std::getenv("TRIAX_CUDA_TABLE_SHARED");
  return v == nullptr || v[0] != '0';
}

/// Whether the strided kernel keeps the next rows in flight behind each group's arithmetic
/// (TRIAX_CUDA_TABLE_PIPELINED=1: chunk_table_strided_pipelined_kernel; off until it has run on a
/// GPU).
bool strided_pipelined() {
  const char* v = std::getenv("TRIAX_CUDA_TABLE_PIPELINED");
  return v != nullptr && v[0] == '1';
}

/// Two stages of a block's rows at most: 64 KiB (float and double chunks of up to 16 rows at
/// the default block sizes), so that two blocks of 512 or three of 256 still fit an SM.
constexpr std::size_t pipelined_stage_budget = 64 * 1024;

/// The pipelined strided kernel where it applies (PlainRows, its two stages within the budget,
/// blocks within its bound: not at TRIAX_CUDA_TABLE_THREADS=512 in double):
/// as many blocks as the device holds at once, each looping over groups of S systems. Returns
/// whether it launched.
template <class T, int M, bool Accumulate>
bool launch_strided_pipelined(const Problem& p, const ChunkView<T>& v, const T* d, T* x,
                              const ChunkFallback<T>& fb, int S, cudaStream_t stream) {
  if constexpr (M > 16) {
    return false;  // 32-row chunks' stages are past the budget at any block size
  } else {
    const int threads = S * v.P;
    const std::size_t stages = 2 * std::size_t(M) * threads * sizeof(T);
    if (!strided_pipelined() || stages > pipelined_stage_budget ||
        threads > pipelined_strided_threads<T>) {
      return false;
    }
    const std::size_t smem =
        (3 * std::size_t(v.P) * S + std::size_t(chunk_shared_table_values(v))) * sizeof(T) +
        stages;
    constexpr auto kernel = chunk_table_strided_pipelined_kernel<T, M, Accumulate>;
    allow_shared_memory(kernel, smem);
    const std::int64_t groups = (p.count + S - 1) / S;
    const std::int64_t resident = std::int64_t(blocks_per_sm<kernel>(threads, smem)) * sm_count();
    const dim3 grid(static_cast<unsigned>(std::min(groups, resident)));
    launch_kernel(kernel, grid, dim3(threads), smem, stream, p, v, d, x, fb, groups);
    return true;
  }
}

/// The fallback kernels' grid: at most 128 blocks, each taking every 128th of the table
/// kernel's blocks (where the table holds, they read a flag and end: a short launch).
dim3 fallback_grid(dim3 grid) { return dim3(std::min(grid.x, 128u)); }

template <class T, int M, bool Accumulate, class Rows>
void launch_shape(const Problem& p, const ChunkView<T>& v, const Rows& rows, const T* d, T* x,
                  const ChunkFallback<T>& fb, cudaStream_t stream) {
  constexpr std::size_t budget = 48 * 1024;
  const std::size_t per_warp = std::size_t(chunk_stage_size<T>(M)) * sizeof(T);
  const int warps = static_cast<int>(std::min<std::size_t>(chunk_table_threads / 32, budget / per_warp));
  const std::int64_t per_block = std::int64_t(warps) * (32 / v.W);
  const dim3 grid(static_cast<unsigned>((p.count + per_block - 1) / per_block));
  launch_kernel(chunk_table_kernel<T, M, Accumulate, Rows>, grid, dim3(32 * warps),
                warps * per_warp, stream, p, v, rows, d, x, fb);
  if constexpr (std::is_same_v<Rows, PlainRows>) {
    if (fb.ok != nullptr) {
      launch_kernel(chunk_fallback_kernel<T, M, Accumulate, Rows>, fallback_grid(grid),
                    dim3(32 * warps), warps * per_warp, stream, p, v, rows, d, x, fb,
                    std::int64_t(grid.x));
    }
  }
}

template <class T, int M, bool Accumulate, class Rows>
void launch_strided(const Problem& p, const ChunkView<T>& v, const Rows& rows, const T* d, T* x,
                    const ChunkFallback<T>& fb, cudaStream_t stream) {
  const int S = chunk_strided_systems(v.P, strided_threads<T, M>());
  const std::size_t smem = 3 * std::size_t(v.P) * S * sizeof(T);
  const dim3 grid(static_cast<unsigned>((p.count + S - 1) / S));
  bool pipelined = false;
  if constexpr (std::is_same_v<Rows, PlainRows>) {
    pipelined = launch_strided_pipelined<T, M, Accumulate>(p, v, d, x, fb, S, stream);
  }
  if (!pipelined) {
    if (strided_shared_table()) {
      const auto kernel = chunk_table_strided_kernel<T, M, Accumulate, Rows, true>;
      const std::size_t with_table =
          smem + std::size_t(chunk_shared_table_values(v)) * sizeof(T);
      allow_shared_memory(kernel, with_table);
      launch_kernel(kernel, grid, dim3(S * v.P), with_table, stream, p, v, rows, d, x, fb);
    } else {
      launch_kernel(chunk_table_strided_kernel<T, M, Accumulate, Rows, false>, grid,
                    dim3(S * v.P), smem, stream, p, v, rows, d, x, fb);
    }
  }
  if constexpr (std::is_same_v<Rows, PlainRows>) {
    if (fb.ok != nullptr) {
      launch_kernel(chunk_strided_fallback_kernel<T, M, Accumulate, Rows>, fallback_grid(grid),
                    dim3(S * v.P), smem, stream, p, v, rows, d, x, fb, std::int64_t(grid.x));
    }
  }
}

template <class T, int M, bool Accumulate, class Rows>
void launch_either(const Problem& p, const ChunkView<T>& v, const Rows& rows, const T* d, T* x,
                   const ChunkFallback<T>& fb, cudaStream_t stream) {
  if (p.map[op_d].row_stride == 1 && p.map[op_x].row_stride == 1) {
    launch_shape<T, M, Accumulate>(p, v, rows, d, x, fb, stream);
  } else {
    launch_strided<T, M, Accumulate>(p, v, rows, d, x, fb, stream);
  }
}

template <class T, bool Accumulate, class Rows>
void launch_rows(const Problem& p, const ChunkView<T>& v, const Rows& rows, const T* d, T* x,
                 const ChunkFallback<T>& fb, cudaStream_t stream) {
  if (p.count <= 0 || p.n <= 0) return;
  switch (v.M) {
    case 8: return launch_either<T, 8, Accumulate>(p, v, rows, d, x, fb, stream);
    case 16: return launch_either<T, 16, Accumulate>(p, v, rows, d, x, fb, stream);
    default: return launch_either<T, 32, Accumulate>(p, v, rows, d, x, fb, stream);
  }
}

}  // namespace

template <class T>
void launch_chunk_table(const Problem& p, const ChunkView<T>& v, const T* d, T* x, bool accumulate,
                        cudaStream_t stream, const ChunkFallback<T>& fb) {
  if (accumulate) {
    launch_rows<T, true>(p, v, PlainRows{}, d, x, fb, stream);
  } else {
    launch_rows<T, false>(p, v, PlainRows{}, d, x, fb, stream);
  }
}

template <class T>
void launch_chunk_table_stencil(const Problem& p, const ChunkView<T>& v, const Stencil<T>& B,
                                const T* f, T* x, cudaStream_t stream) {
  launch_rows<T, false>(p, v, StencilRows<T>{B}, f, x, ChunkFallback<T>{}, stream);
}

template <class T>
void load_chunk_table_kernels(const Problem& p, const ChunkView<T>& v, cudaStream_t stream) {
  // Both kernels: an in-place solve may see other strides than the plan's separate layouts.
  KernelRehearsal rehearsal;
  for (const std::int64_t stride : {1, 2}) {
    Problem q = p;
    q.map[op_d].row_stride = q.map[op_x].row_stride = stride;
    for (const bool accumulate : {false, true}) {
      launch_chunk_table<T>(q, v, nullptr, nullptr, accumulate, stream);
    }
    launch_chunk_table_stencil<T>(q, v, Stencil<T>{}, nullptr, nullptr, stream);
  }
}

template void load_chunk_table_kernels(const Problem&, const ChunkView<float>&, cudaStream_t);
template void load_chunk_table_kernels(const Problem&, const ChunkView<double>&, cudaStream_t);
template void launch_chunk_table(const Problem&, const ChunkView<float>&, const float*, float*,
                                 bool, cudaStream_t, const ChunkFallback<float>&);
template void launch_chunk_table(const Problem&, const ChunkView<double>&, const double*, double*,
                                 bool, cudaStream_t, const ChunkFallback<double>&);
template void launch_chunk_table_stencil(const Problem&, const ChunkView<float>&,
                                         const Stencil<float>&, const float*, float*, cudaStream_t);
template void launch_chunk_table_stencil(const Problem&, const ChunkView<double>&,
                                         const Stencil<double>&, const double*, double*,
                                         cudaStream_t);

}  // namespace triax::detail::cuda
