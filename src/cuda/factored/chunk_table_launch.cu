// Launch shapes of the chunk table kernels. Rows contiguous (d and x at row stride 1, axis 0):
// the warp kernel, 8 warps a block where their stages fit the default 48 KiB of shared memory
// (every M of float, M <= 16 of double), fewer for 32-row double chunks; each warp holds 32 / W
// systems. Any other stride: the strided kernel, S x P threads a block (chunk_strided_systems).
// Each shape in two forms: the right-hand side loaded (PlainRows) or formed from f by a stencil
// (StencilRows, core/factored/chunk_rows.hpp).
#include "cuda/factored/chunk_table_launch.hpp"

#include <algorithm>
#include <type_traits>

#include "cuda/factored/chunk_table_kernel.cuh"
#include "cuda/launch/launch_kernel.hpp"

namespace triax::detail::cuda {
namespace {

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
  const int S = chunk_strided_systems(v.P);
  const std::size_t smem = 3 * std::size_t(v.P) * S * sizeof(T);
  const dim3 grid(static_cast<unsigned>((p.count + S - 1) / S));
  launch_kernel(chunk_table_strided_kernel<T, M, Accumulate, Rows>, grid, dim3(S * v.P), smem,
                stream, p, v, rows, d, x, fb);
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
