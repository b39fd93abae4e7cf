// The streamed tile kernel (conv27, 2026-11-27): the runs tiles of core/convert_tiles.hpp, each
// block walking a list of tiles and loading tile i + 1 into registers before it stores tile i
// from shared memory.
//
// Why: the tile kernels of device_convert.cu take one tile a block; a thread issues its 8 loads,
// waits for them, moves them to shared memory, and at the barrier every load of the block has
// landed, so through the store half of each tile (the shared-memory reads, the stores, the
// second barrier) and while a finished block is replaced the SM has none of that block's loads in
// flight. Those pauses cost most where the tiles are shortest in time: the runs of 16 and 32
// bytes (float and double M = 2, array of blocks <-> interleaved). Here a block stays resident
// (one per slot the occupancy allows, or fewer where the tiles are fewer), so the loads of the
// next tile overlap the stores of this one and no block is launched after the first wave. H100
// (bench/results/block/gpu-h100-convert-v4.txt): M = 2 array of blocks <-> interleaved 81.6-86.2%
// of the copy -> 94.0-96.3%. The same idea on the float pair tiles of Flat <-> Full-Interleaved
// was slower (66.5-67.0% against 73.3-73.6%) and is not kept. The tiles, their shared-memory
// slots and the element order inside a tile are those of transpose_runs (the host replays in
// tests/core/convert_tiles_test.cpp).
#include "cuda/convert/streamed_convert.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "cuda/convert/tile_loop.cuh"
#include "cuda/cuda_check.hpp"
#include "cuda/launch/launch_kernel.hpp"

namespace triax::detail {
namespace {

constexpr int threads = 256;

// Runs tiles (transpose_runs): elements of a tile read in the source's order (run, B, A), each
// thread's 8 loads into v, staged to shared memory in that order and written in the
// destination's (run, A, B). Index: int where every in-tile offset fits (d.run_offsets32).
template <class T, class Index>
__global__ void __launch_bounds__(threads, 4)
    streamed_runs(ConvertTiles d, const T* __restrict__ src, T* __restrict__ dst) {
  constexpr int per_thread = convert_run_tile / threads;
  __shared__ T buffer[convert_run_buffer];
  const int tid = threadIdx.x;
  const int w = static_cast<int>(d.extent[0]), ta = d.run_ta, tb = d.run_tb, pitch = d.run_pitch;
  const int ka = d.a.dim[0], kb = d.b.dim[0];
  const DividePow21 by_w(w);
  const TileCounts n(d, ta, tb);
  const std::int64_t tiles = n.total(d);
  const Index s0 = static_cast<Index>(d.src[0]), d0 = static_cast<Index>(d.dst[0]);
  const Index sa = static_cast<Index>(d.src[ka]), da = static_cast<Index>(d.dst[ka]);
  const Index sb = static_cast<Index>(d.src[kb]), db = static_cast<Index>(d.dst[kb]);
  T v[per_thread];
  const auto load = [&](const TileAt& c) {
    const T* s = src + (c.so + c.a0 * d.src[ka] + c.b0 * d.src[kb]);
    const int count = w * c.na * c.nb;
    const DividePow21 by_nb(c.nb);
#pragma unroll
    for (int r = 0; r < per_thread; ++r) {
      const int k = tid + r * threads;
      int e, pa, pb;
      run_coords(k, w, by_w, c.nb, by_nb, e, pb, pa);
      if (k < count) v[r] = s[e * s0 + pa * sa + pb * sb];
    }
  };
  std::int64_t t = blockIdx.x;
  if (t >= tiles) return;
  TileAt cur = locate_tile(d, ta, tb, n, t);
  load(cur);
  for (;;) {
    {
      // Source-order element k at slot pa * pitch + pb * w + e = k + pa * gap.
      const int count = w * cur.na * cur.nb, gap = pitch - cur.nb * w;
      const DividePow21 by_nb(cur.nb);
#pragma unroll
      for (int r = 0; r < per_thread; ++r) {
        const int k = tid + r * threads;
        int e, pa, pb;
        run_coords(k, w, by_w, cur.nb, by_nb, e, pb, pa);
        if (k < count) buffer[k + pa * gap] = v[r];
      }
    }
    __syncthreads();
    // The next tile's loads go out before this tile's stores (v is free: the buffer holds it).
    const std::int64_t next = t + gridDim.x;
    TileAt after;
    if (next < tiles) {
      after = locate_tile(d, ta, tb, n, next);
      load(after);
    }
    {
      T* o = dst + (cur.dof + cur.a0 * d.dst[ka] + cur.b0 * d.dst[kb]);
      const int count = w * cur.na * cur.nb;
      const DividePow21 by_na(cur.na);
#pragma unroll
      for (int r = 0; r < per_thread; ++r) {
        const int k = tid + r * threads;
        int e, pa, pb;
        run_coords(k, w, by_w, cur.na, by_na, e, pa, pb);
        if (k < count) o[e * d0 + pa * da + pb * db] = buffer[pa * pitch + pb * w + e];
      }
    }
    if (next >= tiles) return;  // the same for the whole block: no barrier is left waiting
    __syncthreads();            // the next tile's staging overwrites the buffer
    cur = after;
    t = next;
  }
}

// Blocks of `kernel` (256 threads, static shared memory) resident at once on the current device:
// the grid of a streamed kernel. Cached per kernel and device (an occupancy query per call would
// sit in every conversion's launch path).
unsigned resident_blocks(const void* kernel) {
  struct Entry {
    const void* kernel;
    int device;
    unsigned blocks;
  };
  static std::mutex lock;
  static std::vector<Entry> cache;
  int device = 0;
  TRIAX_CUDA_CHECK(cudaGetDevice(&device));
  {
    const std::lock_guard<std::mutex> hold(lock);
    for (const Entry& e : cache) {
      if (e.kernel == kernel && e.device == device) return e.blocks;
    }
  }
  int per_sm = 0, sms = 0;
  TRIAX_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0));
  TRIAX_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const unsigned blocks = static_cast<unsigned>(std::max(1, per_sm) * std::max(1, sms));
  const std::lock_guard<std::mutex> hold(lock);
  cache.push_back({kernel, device, blocks});
  return blocks;
}

// TRIAX_CUDA_CONVERT_STREAM_BLOCKS=N (N >= 1) caps the streamed grid at N blocks, so that the
// sanitizer runs of the tests (small arrays) still walk many tiles a block; read once.
std::int64_t block_cap() {
  static const std::int64_t cap = [] {
    const char* v = std::getenv("TRIAX_CUDA_CONVERT_STREAM_BLOCKS");
    const long n = v != nullptr ? std::strtol(v, nullptr, 10) : 0;
    return n >= 1 ? std::int64_t(n) : std::int64_t(0);
  }();
  return cap;
}

// The grid: as many blocks as are resident, or fewer, so that every block walks the same number
// of tiles (ceil(tiles / resident)) but the last: 3200 tiles on 528 resident blocks would leave
// 32 blocks a seventh tile to walk alone after the others finished; 458 blocks of 7 tiles end
// together, and 458 x 256 threads x 64 bytes still keep the loads a copy needs in flight.
template <class Kernel, class T>
void launch_streamed(Kernel kernel, std::int64_t tiles, const ConvertTiles& d, const T* src, T* dst,
                     cudaStream_t s) {
  std::int64_t resident = resident_blocks(reinterpret_cast<const void*>(kernel));
  if (block_cap() > 0) resident = std::min(resident, block_cap());
  const unsigned grid = clamp_grid(streamed_grid(tiles, resident), resident);
  cuda::launch_kernel(kernel, dim3(grid), dim3(threads), 0, s, d, src, dst);
}

}  // namespace

bool streamed_convert_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("TRIAX_CUDA_CONVERT_V3");
    return v == nullptr || v[0] != '0';
  }();
  return on;
}

template <class T>
void launch_streamed_runs(const ConvertTiles& d, const T* src, T* dst, cudaStream_t s) {
  const std::int64_t tiles = TileCounts(d, d.run_ta, d.run_tb).total(d);
  if (d.run_offsets32) return launch_streamed(streamed_runs<T, int>, tiles, d, src, dst, s);
  launch_streamed(streamed_runs<T, std::int64_t>, tiles, d, src, dst, s);
}

template void launch_streamed_runs(const ConvertTiles&, const float*, float*, cudaStream_t);
template void launch_streamed_runs(const ConvertTiles&, const double*, double*, cudaStream_t);

}  // namespace triax::detail
