// triax::layouts::convert on the GPU. The dimensions are ordered by the destination's strides
// and merged where both sides allow (as triax::convert does on the host), so that dimension 0
// is the one the destination stores fastest. Two kernels:
// - the source's fastest dimension is the same (Flat -> Flat, a sub-array copy): rows of
//   dimension 0, one thread per element, coalesced on both sides; the row's place in the outer
//   dimensions is decoded once per row, not per element (64-bit divisions are slow on the GPU);
// - it is another (Flat <-> Full-Interleaved, any axis of an N-D array, Unified-Vector
//   components): 32 x 32 tiles of (dimension 0, the source's fastest) through shared memory,
//   read along the source's fastest dimension and written along the destination's, both
//   coalesced; the tile has one column of padding so that the column reads meet no bank
//   conflicts.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/device_convert.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/launch/launch_kernel.hpp"

namespace triax::detail {
namespace {

struct Dims {
  int rank = 0;
  std::int64_t extent[max_rank] = {}, src[max_rank] = {}, dst[max_rank] = {};
};

constexpr int tile = 32;
constexpr int tile_rows = 8;  // threads per tile column: each thread moves tile / tile_rows
constexpr int row_threads = 256;

// The outer dimensions (from `first` on) of item o: source and destination offsets.
__device__ __forceinline__ void outer_offsets(const Dims& d, int first, std::int64_t o,
                                              std::int64_t& so, std::int64_t& dof) {
  so = 0;
  dof = 0;
  for (int k = first; k < d.rank; ++k) {
    const std::int64_t i = o % d.extent[k];
    o /= d.extent[k];
    so += i * d.src[k];
    dof += i * d.dst[k];
  }
}

template <class T>
__global__ void copy_rows(Dims d, const T* __restrict__ src, T* __restrict__ dst,
                          std::int64_t chunks, std::int64_t items) {
  for (std::int64_t item = blockIdx.x; item < items; item += gridDim.x) {
    const std::int64_t chunk = item % chunks;
    std::int64_t so, dof;
    outer_offsets(d, 1, item / chunks, so, dof);
    const std::int64_t i = chunk * row_threads + threadIdx.x;
    if (i < d.extent[0]) dst[dof + i * d.dst[0]] = src[so + i * d.src[0]];
  }
}

template <class T>
__global__ void transpose_tiles(Dims d, const T* __restrict__ src, T* __restrict__ dst,
                                std::int64_t tiles0, std::int64_t tiles1, std::int64_t items) {
  __shared__ T buffer[tile][tile + 1];
  for (std::int64_t item = blockIdx.x; item < items; item += gridDim.x) {
    const std::int64_t t0 = item % tiles0, t1 = (item / tiles0) % tiles1;
    std::int64_t so, dof;
    outer_offsets(d, 2, item / tiles0 / tiles1, so, dof);
    const std::int64_t i0 = t0 * tile, j0 = t1 * tile;
    // Read: consecutive threads along dimension 1 (the source's fastest).
    const std::int64_t j = j0 + threadIdx.x;
    for (int r = threadIdx.y; r < tile; r += tile_rows) {
      const std::int64_t i = i0 + r;
      if (i < d.extent[0] && j < d.extent[1]) {
        buffer[r][threadIdx.x] = src[so + i * d.src[0] + j * d.src[1]];
      }
    }
    __syncthreads();
    // Write: consecutive threads along dimension 0 (the destination's fastest).
    const std::int64_t i = i0 + threadIdx.x;
    for (int r = threadIdx.y; r < tile; r += tile_rows) {
      const std::int64_t jj = j0 + r;
      if (i < d.extent[0] && jj < d.extent[1]) {
        dst[dof + i * d.dst[0] + jj * d.dst[1]] = buffer[threadIdx.x][r];
      }
    }
    __syncthreads();
  }
}

// The copy's dimensions, destination-fastest first, merged where both sides allow.
Dims merged_dims(const Layout& from, const Layout& to) {
  struct Dim {
    std::int64_t extent, src, dst;
  };
  std::vector<Dim> dims;
  for (int k = 0; k < from.rank(); ++k) {
    if (from.extent(k) > 1) dims.push_back({from.extent(k), from.stride(k), to.stride(k)});
  }
  std::stable_sort(dims.begin(), dims.end(), [](const Dim& x, const Dim& y) {
    return x.dst != y.dst ? x.dst < y.dst : x.src < y.src;
  });
  std::vector<Dim> merged;
  for (const Dim& d : dims) {
    if (!merged.empty() && d.src == merged.back().src * merged.back().extent &&
        d.dst == merged.back().dst * merged.back().extent) {
      merged.back().extent *= d.extent;
      continue;
    }
    merged.push_back(d);
  }
  if (merged.empty()) merged.push_back({1, 0, 0});
  // The tile partner, the source's fastest of the others, goes to position 1.
  if (merged.size() >= 2) {
    std::size_t q = 1;
    for (std::size_t k = 2; k < merged.size(); ++k) {
      if (merged[k].src < merged[q].src) q = k;
    }
    std::rotate(merged.begin() + 1, merged.begin() + q, merged.begin() + q + 1);
  }
  Dims out;
  out.rank = static_cast<int>(merged.size());
  for (int k = 0; k < out.rank; ++k) {
    out.extent[k] = merged[k].extent;
    out.src[k] = merged[k].src;
    out.dst[k] = merged[k].dst;
  }
  return out;
}

unsigned grid_of(std::int64_t items) {
  return static_cast<unsigned>(std::min<std::int64_t>(items, std::int64_t(1) << 30));
}

}  // namespace

template <class T>
void device_convert(const Layout& from, const T* src, const Layout& to, T* dst, void* stream) {
  const Dims d = merged_dims(from, to);
  const auto s = static_cast<cudaStream_t>(stream);
  src += from.offset();
  dst += to.offset();
  std::int64_t outer = 1;
  // Tiles pay where dimension 1 is the source's fastest and dimension 0 is not.
  const bool tiled = d.rank >= 2 && d.src[1] < d.src[0];
  for (int k = tiled ? 2 : 1; k < d.rank; ++k) outer *= d.extent[k];
  if (tiled) {
    const std::int64_t tiles0 = (d.extent[0] + tile - 1) / tile;
    const std::int64_t tiles1 = (d.extent[1] + tile - 1) / tile;
    const std::int64_t items = tiles0 * tiles1 * outer;
    cuda::launch_kernel(transpose_tiles<T>, grid_of(items), dim3(tile, tile_rows), 0, s, d, src,
                        dst, tiles0, tiles1, items);
  } else {
    const std::int64_t chunks = (d.extent[0] + row_threads - 1) / row_threads;
    const std::int64_t items = chunks * outer;
    cuda::launch_kernel(copy_rows<T>, grid_of(items), row_threads, 0, s, d, src, dst, chunks,
                        items);
  }
}

template void device_convert(const Layout&, const float*, const Layout&, float*, void*);
template void device_convert(const Layout&, const double*, const Layout&, double*, void*);

}  // namespace triax::detail
