// triax::layouts::convert on the GPU. core/convert_tiles.hpp plans the copy (dimensions merged,
// ordered by the destination's strides, grouped for tiles); these kernels run it:
// - rows (the source's fastest dimension is the destination's too: a sub-array copy): one
//   thread per element of a row of dimension 0, coalesced on both sides; the row's place in the
//   outer dimensions is decoded once per row; rows of at most half a block (whole blocks of the
//   block layouts reordered) several to a block;
// - tiles (Flat <-> Full-Interleaved, any axis of an N-D array, Unified-Vector components):
//   32 x 64 tiles of (group A, group B) through shared memory, read along B (the source's
//   fastest) and written along A (the destination's fastest), both coalesced (in float 64 x 64:
//   see device_convert);
// - runs (short rows whose next dimension differs on the two sides: array of blocks <->
//   interleaved, runs of M^2 or M elements): the rows as wide elements, transposed through
//   shared memory (transpose_runs), so that both sides move whole sectors;
// - narrow tiles (a tiled plan with a group under a tile side: transpose_narrow);
// - float only (gpuconv2): pairs of floats as one 8-byte element on the double kernels where
//   dimension 0 is contiguous on both sides, and pair tiles (transpose_pairs) for transposes
//   contiguous along B in the source and along A in the destination (TRIAX_CUDA_CONVERT_V2=0:
//   neither).
// - streamed (conv27, streamed_convert.cu): runs of at most 32 bytes on resident blocks that
//   load the next tile while storing the current one (TRIAX_CUDA_CONVERT_V3=0: the kernels here).
// Every tile kernel walks its tiles through tile_loop.cuh (for_each_tile, tile_grid).
//
// Why these tiles (the 32 x 32 tiles of one 4-element read per thread reached 50% of the copy in
// float and 75% in double on the H200, bench/results/layouts/gpu-h200.json): the copy of a
// streaming kernel is bounded by the bytes each SM keeps in flight, and a thread that loads 4
// floats and then waits at the barrier holds 16 bytes. Each thread here issues 8 independent
// loads before its first shared-memory store (32 bytes in float, 64 in double), the tile's
// coordinates come from a 3-D grid instead of 64-bit divisions of a tile number, and the tile
// positions' offsets of a group of several dimensions are decoded once per tile into shared
// memory, so that the element loop is a load, an add and a store.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "core/convert_tiles.hpp"
#include "core/device_convert.hpp"
#include "cuda/convert/streamed_convert.hpp"
#include "cuda/convert/tile_loop.cuh"
#include "cuda/cuda_check.hpp"
#include "cuda/launch/launch_kernel.hpp"

namespace triax::detail {
namespace {

constexpr int tile_a = convert_tile_a;
constexpr int tile_b = convert_tile_b;
constexpr int tile_rows = 8;  // threadIdx.y: the block is 32 x 8
constexpr int row_threads = 256;

// The outer dimensions (from `first` on) of item o: source and destination offsets.
__device__ __forceinline__ void row_offsets(const ConvertTiles& d, std::int64_t o, std::int64_t& so,
                                            std::int64_t& dof) {
  so = 0;
  dof = 0;
  for (int k = 1; k < d.rank; ++k) {
    const std::int64_t i = o % d.extent[k];
    o /= d.extent[k];
    so += i * d.src[k];
    dof += i * d.dst[k];
  }
}

template <class T>
__global__ void copy_rows(ConvertTiles d, const T* __restrict__ src, T* __restrict__ dst,
                          std::int64_t chunks, std::int64_t items) {
  for (std::int64_t item = blockIdx.x; item < items; item += gridDim.x) {
    const std::int64_t chunk = item % chunks;
    std::int64_t so, dof;
    row_offsets(d, item / chunks, so, dof);
    const std::int64_t i = chunk * row_threads + threadIdx.x;
    if (i < d.extent[0]) dst[dof + i * d.dst[0]] = src[so + i * d.src[0]];
  }
}

// Rows shorter than half a block (the blocks of an array-of-blocks layout moved whole into the
// interleaved layout: M^2 = 4..64 elements, or M = 2..8 for vectors): one row per block would
// leave most of its threads idle, so a block copies `per` whole rows side by side, their
// offsets decoded once per row into shared memory rather than once per element.
template <class T>
__global__ void __launch_bounds__(row_threads)
    copy_short_rows(ConvertTiles d, const T* __restrict__ src, T* __restrict__ dst, int per,
                    std::int64_t rows) {
  __shared__ std::int64_t row_src[row_threads], row_dst[row_threads];
  const int w = static_cast<int>(d.extent[0]);
  const int r = static_cast<int>(threadIdx.x) / w, i = static_cast<int>(threadIdx.x) % w;
  const std::int64_t groups = (rows + per - 1) / per;
  for (std::int64_t g = blockIdx.x; g < groups; g += gridDim.x) {
    const std::int64_t first = g * per;
    if (static_cast<int>(threadIdx.x) < per && first + threadIdx.x < rows) {
      row_offsets(d, first + threadIdx.x, row_src[threadIdx.x], row_dst[threadIdx.x]);
    }
    __syncthreads();
    if (r < per && first + r < rows) {
      dst[row_dst[r] + i * d.dst[0]] = src[row_src[r] + i * d.src[0]];
    }
    __syncthreads();  // the next group overwrites the offsets
  }
}

// Short rows whose next dimension differs on the two sides (array of blocks <-> interleaved:
// runs of M^2 or M elements, convert_tiles.hpp): each tile of run x TA x TB elements is read in
// the source's order (run, B, A), each of a thread's up to 8 loads issued before its first
// shared-memory store, and written in the destination's (run, A, B), so that both sides move
// contiguous stretches of at least 32 elements. Positions come from two multiply-shift
// divisions per element (run_coords), exact on a tile's range.
// Index: the offset type within a tile, int where the plan found every in-tile offset below
// 2^31 (run_offsets32), which keeps the kernel in 64 registers (4 blocks an SM) without spills.
template <class T, class Index>
__global__ void __launch_bounds__(row_threads, 4)
    transpose_runs(ConvertTiles d, const T* __restrict__ src, T* __restrict__ dst) {
  constexpr int per_thread = convert_run_tile / row_threads;
  __shared__ T buffer[convert_run_buffer];
  const int tid = threadIdx.x;
  const int w = static_cast<int>(d.extent[0]), ta = d.run_ta, tb = d.run_tb, pitch = d.run_pitch;
  const DividePow21 by_w(w);
  const Index s0 = static_cast<Index>(d.src[0]), d0 = static_cast<Index>(d.dst[0]);
  const Index sa = static_cast<Index>(d.src[d.a.dim[0]]),
              da = static_cast<Index>(d.dst[d.a.dim[0]]);
  const Index sb = static_cast<Index>(d.src[d.b.dim[0]]),
              db = static_cast<Index>(d.dst[d.b.dim[0]]);
  for_each_tile(d, ta, tb, [&](const TileAt& tile) {
    const int na = tile.na, nb = tile.nb;
    const int count = w * na * nb;
    const DividePow21 by_na(na), by_nb(nb);
    const T* s = src + (tile.so + tile.a0 * d.src[d.a.dim[0]] + tile.b0 * d.src[d.b.dim[0]]);
    T* t = dst + (tile.dof + tile.a0 * d.dst[d.a.dim[0]] + tile.b0 * d.dst[d.b.dim[0]]);
    // The slot of source-order element k: pa * pitch + pb * w + e = k + pa * gap.
    const int gap = pitch - nb * w;
    T v[per_thread];
    int at[per_thread];
#pragma unroll
    for (int r = 0; r < per_thread; ++r) {
      const int k = tid + r * row_threads;
      int e, pa, pb;
      run_coords(k, w, by_w, nb, by_nb, e, pb, pa);
      at[r] = k + pa * gap;
      if (k < count) v[r] = s[e * s0 + pa * sa + pb * sb];
    }
#pragma unroll
    for (int r = 0; r < per_thread; ++r) {
      if (tid + r * row_threads < count) buffer[at[r]] = v[r];
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < per_thread; ++r) {
      const int k = tid + r * row_threads;
      int e, pa, pb;
      run_coords(k, w, by_w, na, by_na, e, pa, pb);
      if (k < count) t[e * d0 + pa * da + pb * db] = buffer[pa * pitch + pb * w + e];
    }
    __syncthreads();  // the next tile overwrites the buffer
  });
}

// Pair tiles (float only; convert_tiles.hpp, "Pair tiles"): the source contiguous along B, the
// destination along A, every offset a tile touches even. Each thread loads up to 4 corners of
// 2 x 2 floats (two 8-byte loads each, rows pa and pa + 1 at pb, pb + 1) before its first
// shared-memory store, so that it holds 64 bytes in flight as a double thread of the other tiles
// does, and stores 8 pairs (pa, pa + 1) at pb, each one 8-byte word of the buffer.
__global__ void __launch_bounds__(row_threads, 4)
    transpose_pairs(ConvertTiles d, const float* __restrict__ src, float* __restrict__ dst) {
  constexpr int corners = convert_pair_tile / 4 / row_threads, pairs = 2 * corners;
  __shared__ __align__(16) float buffer[convert_pair_buffer];
  const int tid = threadIdx.x;
  const int pitch = d.pair_pitch;
  const std::int64_t sa = d.src[d.a.dim[0]], db = d.dst[d.b.dim[0]];
  for_each_tile(d, d.pair_ta, d.pair_tb, [&](const TileAt& tile) {
    // Both even: the extents are even and the tiles' are powers of two >= 2.
    const int ha = tile.na / 2, hb = tile.nb / 2;
    const int count = ha * hb;  // corners; 2 count pairs
    const DividePow21 by_hb(hb), by_ha(ha);
    const float* s = src + (tile.so + tile.a0 * sa + tile.b0);
    float* t = dst + (tile.dof + tile.a0 + tile.b0 * db);
    float2 lo[corners], hi[corners];
#pragma unroll
    for (int r = 0; r < corners; ++r) {
      const int u = tid + r * row_threads, i = by_hb(u), j = u - i * hb;
      if (u < count) {
        const float* p = s + (2 * i) * sa + 2 * j;
        lo[r] = *reinterpret_cast<const float2*>(p);
        hi[r] = *reinterpret_cast<const float2*>(p + sa);
      }
    }
#pragma unroll
    for (int r = 0; r < corners; ++r) {
      const int u = tid + r * row_threads, i = by_hb(u), j = u - i * hb;
      if (u < count) {
        float2* q = reinterpret_cast<float2*>(buffer + i * pitch + 4 * j);
        q[0] = make_float2(lo[r].x, hi[r].x);
        q[1] = make_float2(lo[r].y, hi[r].y);
      }
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < pairs; ++r) {
      const int k = tid + r * row_threads, pb = by_ha(k), i = k - pb * ha;
      if (k < 2 * count) {
        *reinterpret_cast<float2*>(t + 2 * i + pb * db) =
            *reinterpret_cast<const float2*>(buffer + i * pitch + 2 * pb);
      }
    }
    __syncthreads();  // the next tile overwrites the buffer
  });
}

// Simple: A and B are one dimension each, whose offsets are products (no tables). TA: A
// positions per tile, 32 or 64 (float: see launch_tiles).
template <class T, bool Simple, int TA>
__global__ void __launch_bounds__(tile_a* tile_rows, 4)
    transpose_tiles(ConvertTiles d, const T* __restrict__ src, T* __restrict__ dst) {
  static_assert(TA % 32 == 0 && TA % tile_rows == 0);
  __shared__ T buffer[TA][tile_b + 1];  // + 1: the column reads meet no bank conflicts
  __shared__ std::int64_t a_src[TA], a_dst[TA], b_src[tile_b], b_dst[tile_b];
  const int x = threadIdx.x, y = threadIdx.y;
  const std::int64_t sa = d.src[d.a.dim[0]], da = d.dst[d.a.dim[0]];
  const std::int64_t sb = d.src[d.b.dim[0]], db = d.dst[d.b.dim[0]];
  for_each_tile(d, TA, tile_b, [&](const TileAt& tile) {
    const std::int64_t so = tile.so, dof = tile.dof, a0 = tile.a0, b0 = tile.b0;
    const int na = tile.na, nb = tile.nb;
    if constexpr (!Simple) {
      // Warp 0 decodes the tile's A positions, warps 1 and 2 its B positions.
      if (y == 0) {
        for (int pa = x; pa < na; pa += 32) group_offsets(d, d.a, a0 + pa, a_src[pa], a_dst[pa]);
      }
      const int pb = x + (y - 1) * 32;
      if ((y == 1 || y == 2) && pb < nb) group_offsets(d, d.b, b0 + pb, b_src[pb], b_dst[pb]);
      __syncthreads();
    }
    const auto src_at = [&](int pa, int pb) {
      return Simple ? so + (a0 + pa) * sa + (b0 + pb) * sb : so + a_src[pa] + b_src[pb];
    };
    const auto dst_at = [&](int pa, int pb) {
      return Simple ? dof + (a0 + pa) * da + (b0 + pb) * db : dof + a_dst[pa] + b_dst[pb];
    };
    // Read: consecutive lanes along B; every load of the thread before the first store.
    T v[TA / tile_rows][tile_b / 32] = {};
#pragma unroll
    for (int r = 0; r < TA / tile_rows; ++r) {
#pragma unroll
      for (int w = 0; w < tile_b / 32; ++w) {
        const int pa = y + r * tile_rows, pb = x + w * 32;
        if (pa < na && pb < nb) v[r][w] = src[src_at(pa, pb)];
      }
    }
#pragma unroll
    for (int r = 0; r < TA / tile_rows; ++r) {
#pragma unroll
      for (int w = 0; w < tile_b / 32; ++w) buffer[y + r * tile_rows][x + w * 32] = v[r][w];
    }
    __syncthreads();
    // Write: consecutive lanes along A.
#pragma unroll
    for (int r = 0; r < tile_b / tile_rows; ++r) {
      const int pb = y + r * tile_rows;
#pragma unroll
      for (int c = 0; c < TA / 32; ++c) {
        const int pa = x + c * 32;
        if (pa < na && pb < nb) dst[dst_at(pa, pb)] = buffer[pa][pb];
      }
    }
    __syncthreads();  // the next tile overwrites the buffer and the tables
  });
}

// Tiles whose A group spans fewer than a tile row, or whose B group fewer than a tile column:
// the block layouts' conversions where the grid merges into one dimension and the M^2 block
// entries are the other (array of blocks <-> structure of arrays, 4..64 entries): 32 x 64 tiles
// would stay 1/16 to 4/5 full and their warps' loads or stores 4..25 lanes wide. These tiles
// are TA x TB = 2048 elements instead, the narrow side the power of two >= its group's extent,
// and each thread moves 8 elements through them (as the 32 x 64 kernel): read in the source's
// order of (A, B) pairs, B fastest, and written in the destination's, A fastest, so that a
// warp's loads and stores run on across the narrow side's positions. The pair of a linear
// position comes from a division by the tile's extent (a multiply and a shift: DividePow21).
template <class T, bool Simple, int TA, int TB>
__global__ void __launch_bounds__(tile_a* tile_rows)
    transpose_narrow(ConvertTiles d, const T* __restrict__ src, T* __restrict__ dst) {
  static_assert(TA * TB == tile_a * tile_b);
  constexpr int threads = tile_a * tile_rows, per_thread = TA * TB / threads;
  __shared__ T buffer[TA][TB + 1];
  __shared__ std::int64_t a_src[Simple ? 1 : TA], a_dst[Simple ? 1 : TA];
  __shared__ std::int64_t b_src[Simple ? 1 : TB], b_dst[Simple ? 1 : TB];
  const int tid = threadIdx.x + tile_a * threadIdx.y;
  const std::int64_t sa = d.src[d.a.dim[0]], da = d.dst[d.a.dim[0]];
  const std::int64_t sb = d.src[d.b.dim[0]], db = d.dst[d.b.dim[0]];
  for_each_tile(d, TA, TB, [&](const TileAt& tile) {
    const std::int64_t so = tile.so, dof = tile.dof, a0 = tile.a0, b0 = tile.b0;
    const int na = tile.na, nb = tile.nb;
    if constexpr (!Simple) {
      for (int p = tid; p < na; p += threads) group_offsets(d, d.a, a0 + p, a_src[p], a_dst[p]);
      for (int p = tid; p < nb; p += threads) group_offsets(d, d.b, b0 + p, b_src[p], b_dst[p]);
      __syncthreads();
    }
    const auto src_at = [&](int pa, int pb) {
      return Simple ? so + (a0 + pa) * sa + (b0 + pb) * sb : so + a_src[pa] + b_src[pb];
    };
    const auto dst_at = [&](int pa, int pb) {
      return Simple ? dof + (a0 + pa) * da + (b0 + pb) * db : dof + a_dst[pa] + b_dst[pb];
    };
    const int count = na * nb;
    const DividePow21 by_nb(nb), by_na(na);
    // Read: B fastest; every load of the thread before the first store.
    T v[per_thread] = {};
#pragma unroll
    for (int r = 0; r < per_thread; ++r) {
      const int k = tid + r * threads, pa = by_nb(k), pb = k - pa * nb;
      if (k < count) v[r] = src[src_at(pa, pb)];
    }
#pragma unroll
    for (int r = 0; r < per_thread; ++r) {
      const int k = tid + r * threads, pa = by_nb(k), pb = k - pa * nb;
      if (k < count) buffer[pa][pb] = v[r];
    }
    __syncthreads();
    // Write: A fastest.
#pragma unroll
    for (int r = 0; r < per_thread; ++r) {
      const int k = tid + r * threads, pb = by_na(k), pa = k - pb * na;
      if (k < count) dst[dst_at(pa, pb)] = buffer[pa][pb];
    }
    __syncthreads();  // the next tile overwrites the buffer and the tables
  });
}

// The narrow side's extent rounded up to a power of two (2..64), the other side 2048 / it.
template <class T, bool Simple>
void launch_narrow(const ConvertTiles& d, const T* src, T* dst, cudaStream_t s) {
  const bool narrow_a = d.size_a < tile_a;
  const std::int64_t narrow = narrow_a ? d.size_a : d.size_b;
  const auto go = [&](auto kernel, int ta) {
    cuda::launch_kernel(kernel, tile_grid(d, ta, tile_a * tile_b / ta), dim3(32, tile_rows), 0, s,
                        d, src, dst);
  };
  if (narrow_a) {
    if (narrow <= 2) return go(transpose_narrow<T, Simple, 2, 1024>, 2);
    if (narrow <= 4) return go(transpose_narrow<T, Simple, 4, 512>, 4);
    if (narrow <= 8) return go(transpose_narrow<T, Simple, 8, 256>, 8);
    if (narrow <= 16) return go(transpose_narrow<T, Simple, 16, 128>, 16);
    return go(transpose_narrow<T, Simple, 32, 64>, 32);
  }
  if (narrow <= 2) return go(transpose_narrow<T, Simple, 1024, 2>, 1024);
  if (narrow <= 4) return go(transpose_narrow<T, Simple, 512, 4>, 512);
  if (narrow <= 8) return go(transpose_narrow<T, Simple, 256, 8>, 256);
  if (narrow <= 16) return go(transpose_narrow<T, Simple, 128, 16>, 128);
  if (narrow <= 32) return go(transpose_narrow<T, Simple, 64, 32>, 64);
  go(transpose_narrow<T, Simple, 32, 64>, 32);  // 33..63: the usual shape, linear orders
}

// Launches plan d (offsets relative to src and dst, the layouts' first elements), elements of T.
template <class T>
void run_plan(const ConvertTiles& d, const T* src, T* dst, cudaStream_t s) {
  if (d.tiled && (d.size_a < tile_a || d.size_b < tile_b)) {
    const bool simple = d.a.count == 1 && d.b.count == 1;
    simple ? launch_narrow<T, true>(d, src, dst, s) : launch_narrow<T, false>(d, src, dst, s);
    return;
  }
  if (d.tiled) {
    // Float tiles of 64 A positions (gpuconv, 2026-11-27): with 32, Flat <-> Full-Interleaved
    // reached 51% of the copy in float against 79% in double on the H100, where a double
    // thread holds 64 bytes in flight (8 loads) and a tile's stores are runs of 256 bytes; 64
    // positions give a float thread 16 loads and the tile the same bytes and runs as double.
    const bool simple = d.a.count == 1 && d.b.count == 1;
    const auto go = [&](auto kernel, int ta) {
      cuda::launch_kernel(kernel, tile_grid(d, ta, tile_b), dim3(32, tile_rows), 0, s, d, src, dst);
    };
    if constexpr (sizeof(T) == 4) {
      if (d.size_a >= 64) {
        return simple ? go(transpose_tiles<T, true, 64>, 64)
                      : go(transpose_tiles<T, false, 64>, 64);
      }
    }
    simple ? go(transpose_tiles<T, true, tile_a>, tile_a)
           : go(transpose_tiles<T, false, tile_a>, tile_a);
    return;
  }
  if (d.runs) {
    // Runs of at most 32 bytes (float and double M = 2 blocks): the streamed kernel
    // (streamed_convert.cu says why); longer runs stay on the kernel they were measured on.
    if (streamed_convert_enabled() && d.extent[0] * std::int64_t(sizeof(T)) <= 32) {
      return launch_streamed_runs(d, src, dst, s);
    }
    cuda::launch_kernel(d.run_offsets32 ? transpose_runs<T, int> : transpose_runs<T, std::int64_t>,
                        tile_grid(d, d.run_ta, d.run_tb), row_threads, 0, s, d, src, dst);
    return;
  }
  std::int64_t outer = 1;
  for (int k = 1; k < d.rank; ++k) outer *= d.extent[k];
  if (2 * d.extent[0] <= row_threads) {
    const int per = static_cast<int>(row_threads / d.extent[0]);
    cuda::launch_kernel(copy_short_rows<T>,
                        clamp_grid((outer + per - 1) / per, std::int64_t(1) << 30), row_threads, 0,
                        s, d, src, dst, per, outer);
    return;
  }
  const std::int64_t chunks = (d.extent[0] + row_threads - 1) / row_threads;
  cuda::launch_kernel(copy_rows<T>, clamp_grid(chunks * outer, std::int64_t(1) << 30), row_threads,
                      0, s, d, src, dst, chunks, chunks * outer);
}

/// TRIAX_CUDA_CONVERT_V2=0 keeps float conversions on single elements (round 1, gpuconv) for
/// comparing the two in the benches; read once.
bool wide_floats() {
  static const bool on = [] {
    const char* v = std::getenv("TRIAX_CUDA_CONVERT_V2");
    return v == nullptr || v[0] != '0';
  }();
  return on;
}

bool aligned8(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 8 == 0; }

}  // namespace

template <class T>
void device_convert(const Layout& from, const T* src, const Layout& to, T* dst, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  src += from.offset();
  dst += to.offset();
  if constexpr (sizeof(T) == 4) {
    // Float pairs as one 8-byte element where both sides hold them contiguous and aligned
    // (convert_tiles.hpp, "Wide elements"). They run on the double kernels: those only load and
    // store their elements (no arithmetic, no conversion), so every pair keeps its bits.
    if (wide_floats() && aligned8(src) && aligned8(dst)) {
      const ConvertTiles d = plan_convert_tiles(from, to, 2);
      if (d.widen == 2) {
        return run_plan(d, reinterpret_cast<const double*>(src), reinterpret_cast<double*>(dst), s);
      }
      if (d.pairs) {
        // A streamed form of these tiles (resident blocks loading the next tile while storing
        // this one) measured slower on the H100 for Flat <-> Full-Interleaved float 512 x 25600
        // (66.5-67.0% of the copy against 73.3-73.6% here, same call; notes/2026-11-27-conv27.md)
        // and was removed.
        cuda::launch_kernel(transpose_pairs, tile_grid(d, d.pair_ta, d.pair_tb), row_threads, 0, s,
                            d, reinterpret_cast<const float*>(src), reinterpret_cast<float*>(dst));
        return;
      }
      return run_plan(d, src, dst, s);
    }
  }
  run_plan(plan_convert_tiles(from, to), src, dst, s);
}

template void device_convert(const Layout&, const float*, const Layout&, float*, void*);
template void device_convert(const Layout&, const double*, const Layout&, double*, void*);

}  // namespace triax::detail
