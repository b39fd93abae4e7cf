// Arithmetic-free twins of the GPU ranks' local-pass kernels (gpu_bound.hpp says why). Each
// keeps the launch shape and the access order of the kernel it stands for: one thread per system
// on strided rows (128 threads a block, loads in batches of 8 rows, as the
// kernels' reduce_piece_batched), warps of 32 systems moving tiles of 8 rows through
// shared memory where rows are contiguous (the next tile's loads in flight during this one's
// work, the workspace rows of a tile loaded together, as the kernels do); the workspace
// system-fastest (row r of system s at r * count + s). The values are sums of what was read, so
// that no load can be dropped.
#include "gpu_bound.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace triax::bench::mpi {
namespace {

void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

constexpr int threads_per_block = 128;  // as gpu_path.cu's strided kernels, 4 blocks an SM
constexpr int tile_rows = 8;            // as gpu_path.cu's tiled kernels
constexpr int tile_warps = 4;
constexpr unsigned full_warp = 0xffffffffu;

/// A packed block solved along one axis: system s starts at (s / stride) * n * stride +
/// s % stride, its rows `stride` apart (stride 1: the axis is x, rows contiguous).
struct Geometry {
  std::int64_t n, count, stride;
  __device__ std::int64_t offset(std::int64_t s) const {
    return (s / stride) * n * stride + s % stride;
  }
};

// What pass 1 reads and writes: the inputs, the workspace (null: the minimum, one value per
// system) and the reduced rows (8 values a system).
template <class T>
struct Pass1 {
  const T *a, *b, *c, *d;
  T* work;
  T* rows;
};

// Rows in flight per thread on strided rows, as gpu_path.cu's kernels batch them.
template <class T>
constexpr int batch_rows = 8;

// Full: the workspace pass; else the minimum (a template flag, so that neither carries the
// other's registers).
template <class T, bool Full>
__global__ void __launch_bounds__(threads_per_block, 4) pass1_strided(Geometry g, Pass1<T> p) {
  constexpr int B = batch_rows<T>;
  const std::int64_t s = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (s >= g.count) return;
  const std::int64_t o = g.offset(s), all = g.count * g.n;
  T first = 0, sum = 0;
  if (g.n > 0) first = p.a[o] + p.b[o] + p.c[o] + p.d[o];
  for (std::int64_t r0 = 1; r0 < g.n; r0 += B) {
    if constexpr (Full) {
      T va[B], vb[B], vc[B], vd[B];
#pragma unroll
      for (int k = 0; k < B; ++k) {
        const std::int64_t e = o + (r0 + k) * g.stride;
        if (r0 + k < g.n) va[k] = p.a[e], vb[k] = p.b[e], vc[k] = p.c[e], vd[k] = p.d[e];
      }
#pragma unroll
      for (int k = 0; k < B; ++k) {
        const std::int64_t r = r0 + k;
        if (r >= g.n) continue;
        p.work[r * g.count + s] = va[k];
        p.work[all + r * g.count + s] = vb[k] + vc[k];
        p.work[2 * all + r * g.count + s] = vd[k];
      }
    } else {
      // The batch's loads issued together, summed as they land.
      T part[B];
#pragma unroll
      for (int k = 0; k < B; ++k) {
        const std::int64_t e = o + (r0 + k) * g.stride;
        part[k] = r0 + k < g.n ? p.a[e] + p.b[e] + p.c[e] + p.d[e] : T(0);
      }
#pragma unroll
      for (int k = 0; k < B; ++k) sum += part[k];
    }
  }
  if constexpr (Full) {
    for (int k = 0; k < 8; ++k) p.rows[8 * s + k] = first;
  } else {
    p.rows[s] = first + sum;
  }
}

template <class T>
__global__ void __launch_bounds__(32 * tile_warps) pass1_tiled(Geometry g, Pass1<T> p) {
  __shared__ T tile[tile_warps][4][32][tile_rows + 1];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const std::int64_t s0 = (blockIdx.x * std::int64_t(tile_warps) + warp) * 32;
  if (s0 >= g.count) return;
  const int systems = static_cast<int>(g.count - s0 < 32 ? g.count - s0 : 32);
  const bool mine = lane < systems;
  const std::int64_t s = s0 + lane, all = g.count * g.n;
  const std::int64_t offset = mine ? s * g.n : 0;
  const T* base[4] = {p.a, p.b, p.c, p.d};
  T first = 0, sum = 0;
  // One tile ahead in registers, as reduce_contiguous_kernel.
  T next[4][tile_rows];
  const auto load_tile = [&](std::int64_t r0) {
    const int here = static_cast<int>(g.n - r0 < tile_rows ? g.n - r0 : tile_rows);
#pragma unroll
    for (int j = 0; j < tile_rows; ++j) {
      const int e = j * 32 + lane, q = e / tile_rows, i = e % tile_rows;
      const std::int64_t o = __shfl_sync(full_warp, offset, q);
#pragma unroll
      for (int op = 0; op < 4; ++op) {
        next[op][j] = q < systems && i < here ? base[op][o + r0 + i] : T(0);
      }
    }
  };
  load_tile(0);
  for (std::int64_t r0 = 0; r0 < g.n; r0 += tile_rows) {
    const int here = static_cast<int>(g.n - r0 < tile_rows ? g.n - r0 : tile_rows);
#pragma unroll
    for (int j = 0; j < tile_rows; ++j) {
      const int e = j * 32 + lane, q = e / tile_rows, i = e % tile_rows;
#pragma unroll
      for (int op = 0; op < 4; ++op) {
        if (q < systems && i < here) tile[warp][op][q][i] = next[op][j];
      }
    }
    __syncwarp();
    if (r0 + tile_rows < g.n) load_tile(r0 + tile_rows);
    if (mine) {
      for (int i = 0; i < here; ++i) {
        const std::int64_t row = r0 + i;
        const T av = tile[warp][0][lane][i], bv = tile[warp][1][lane][i];
        const T cv = tile[warp][2][lane][i], dv = tile[warp][3][lane][i];
        if (p.work && row >= 1) {
          p.work[row * g.count + s] = av;
          p.work[all + row * g.count + s] = bv + cv;
          p.work[2 * all + row * g.count + s] = dv;
        } else if (row == 0) {
          first = av + bv + cv + dv;
        } else {
          sum += av + bv + cv + dv;
        }
      }
    }
    __syncwarp();
  }
  if (!mine) return;
  if (p.work) {
    for (int k = 0; k < 8; ++k) p.rows[8 * s + k] = first;
  } else {
    p.rows[s] = first + sum;
  }
}

// Pass 2 as the finish kernels: the workspace read from row n-2 down to 1 and x written last
// row first; the minimum reads a, b, c, d again (first row first) and writes x.
template <class T>
struct Pass2 {
  const T* work;  // null: the minimum
  const T *a, *b, *c, *d;
  const T* ends;
  T* x;
};

template <class T, bool Full>
__global__ void __launch_bounds__(threads_per_block, 4) pass2_strided(Geometry g, Pass2<T> p) {
  constexpr int B = batch_rows<T>;
  const std::int64_t s = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (s >= g.count) return;
  const std::int64_t o = g.offset(s), all = g.count * g.n;
  if constexpr (!Full) {
    for (std::int64_t r0 = 0; r0 < g.n; r0 += B) {
      T v[B];
#pragma unroll
      for (int k = 0; k < B; ++k) {
        const std::int64_t e = o + (r0 + k) * g.stride;
        if (r0 + k < g.n) v[k] = p.a[e] + p.b[e] + p.c[e] + p.d[e];
      }
#pragma unroll
      for (int k = 0; k < B; ++k) {
        if (r0 + k < g.n) p.x[o + (r0 + k) * g.stride] = v[k];
      }
    }
    return;
  }
  const T x0 = p.ends[2 * s], xm = p.ends[2 * s + 1];
  if (g.n > 1) p.x[o + (g.n - 1) * g.stride] = xm;
  for (std::int64_t r0 = g.n - 2; r0 >= 1; r0 -= B) {
    T v[B];
#pragma unroll
    for (int k = 0; k < B; ++k) {
      const std::int64_t w = (r0 - k) * g.count + s;
      if (r0 - k >= 1) v[k] = p.work[2 * all + w] + p.work[w] + p.work[all + w];
    }
#pragma unroll
    for (int k = 0; k < B; ++k) {
      if (r0 - k >= 1) p.x[o + (r0 - k) * g.stride] = v[k];
    }
  }
  p.x[o] = x0;
}

template <class T>
__global__ void __launch_bounds__(32 * tile_warps) pass2_tiled(Geometry g, Pass2<T> p) {
  __shared__ T in[tile_warps][4][32][tile_rows + 1];
  __shared__ T out[tile_warps][32][tile_rows + 1];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const std::int64_t s0 = (blockIdx.x * std::int64_t(tile_warps) + warp) * 32;
  if (s0 >= g.count) return;
  const int systems = static_cast<int>(g.count - s0 < 32 ? g.count - s0 : 32);
  const bool mine = lane < systems;
  const std::int64_t s = s0 + lane, all = g.count * g.n;
  const std::int64_t offset = mine ? s * g.n : 0;
  const T* base[4] = {p.a, p.b, p.c, p.d};
  const bool minimum = p.work == nullptr;
  const T x0 = mine && !minimum ? p.ends[2 * s] : T(0);
  const T xm = mine && !minimum ? p.ends[2 * s + 1] : T(0);
  const std::int64_t tiles = (g.n + tile_rows - 1) / tile_rows;
  for (std::int64_t t = 0; t < tiles; ++t) {
    // The minimum runs first tile first (a forward solve); the workspace pass last tile first.
    const std::int64_t r0 = (minimum ? t : tiles - 1 - t) * tile_rows;
    const int here = static_cast<int>(g.n - r0 < tile_rows ? g.n - r0 : tile_rows);
    if (minimum) {
      for (int j = 0; j < tile_rows; ++j) {
        const int e = j * 32 + lane, q = e / tile_rows, i = e % tile_rows;
        const std::int64_t o = __shfl_sync(full_warp, offset, q);
        for (int op = 0; op < 4; ++op) {
          if (q < systems && i < here) in[warp][op][q][i] = base[op][o + r0 + i];
        }
      }
      __syncwarp();
    }
    if (mine) {
      // The tile's workspace rows loaded before they are used, as finish_contiguous_kernel.
      T ws[tile_rows];
#pragma unroll
      for (int i = 0; i < tile_rows; ++i) {
        const std::int64_t row = r0 + i, w = row * g.count + s;
        const bool interior = !minimum && i < here && row >= 1 && row < g.n - 1;
        ws[i] = interior ? p.work[2 * all + w] + p.work[w] + p.work[all + w] : T(0);
      }
#pragma unroll
      for (int i = tile_rows - 1; i >= 0; --i) {
        if (i >= here) continue;
        const std::int64_t row = r0 + i;
        T v;
        if (minimum) {
          v = in[warp][0][lane][i] + in[warp][1][lane][i] + in[warp][2][lane][i] +
              in[warp][3][lane][i];
        } else if (row == 0) {
          v = x0;
        } else if (row == g.n - 1) {
          v = xm;
        } else {
          v = ws[i];
        }
        out[warp][lane][i] = v;
      }
    }
    __syncwarp();
    for (int j = 0; j < tile_rows; ++j) {
      const int e = j * 32 + lane, q = e / tile_rows, i = e % tile_rows;
      const std::int64_t o = __shfl_sync(full_warp, offset, q);
      if (q < systems && i < here) p.x[o + r0 + i] = out[warp][q][i];
    }
    __syncwarp();
  }
}

/// Device memory freed with the object.
struct Scratch {
  void* p = nullptr;
  explicit Scratch(std::size_t bytes) { cuda_ok(cudaMalloc(&p, bytes), "cudaMalloc"); }
  ~Scratch() { cudaFree(p); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
};

/// The median milliseconds of `reps` launches (after one untimed), each between two events.
template <class Launch>
double median_ms(int reps, cudaStream_t stream, Launch launch) {
  cudaEvent_t start, stop;
  cuda_ok(cudaEventCreate(&start), "cudaEventCreate");
  cuda_ok(cudaEventCreate(&stop), "cudaEventCreate");
  launch();
  cuda_ok(cudaGetLastError(), "bound kernel launch");
  std::vector<double> times;
  for (int r = 0; r < std::max(1, reps); ++r) {
    cuda_ok(cudaEventRecord(start, stream), "cudaEventRecord");
    launch();
    cuda_ok(cudaEventRecord(stop, stream), "cudaEventRecord");
    cuda_ok(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    cuda_ok(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    times.push_back(ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

template <class T>
PassBounds time_pass_bounds(const T* a, const T* b, const T* c, const T* d, T* x,
                            const std::vector<std::int64_t>& extents, int axis, int reps,
                            void* stream_ptr) {
  Geometry g{extents.at(static_cast<std::size_t>(axis)), 1, 1};
  std::int64_t total = 1;
  for (std::size_t k = 0; k < extents.size(); ++k) {
    total *= extents[k];
    if (static_cast<int>(k) < axis) g.stride *= extents[k];
  }
  g.count = total / g.n;
  const auto stream = static_cast<cudaStream_t>(stream_ptr);
  const auto count = static_cast<std::size_t>(g.count);
  Scratch work(3 * static_cast<std::size_t>(total) * sizeof(T)), rows(8 * count * sizeof(T)),
      ends(2 * count * sizeof(T));
  cuda_ok(cudaMemsetAsync(ends.p, 0, 2 * count * sizeof(T), stream), "cudaMemsetAsync");
  T* w = static_cast<T*>(work.p);
  T* r = static_cast<T*>(rows.p);
  const T* e = static_cast<const T*>(ends.p);
  const bool tiled = g.stride == 1;  // as gpu_path.cu picks its kernels
  const auto strided_blocks =
      static_cast<unsigned>((g.count + threads_per_block - 1) / threads_per_block);
  const auto tiled_blocks =
      static_cast<unsigned>((g.count + 32 * tile_warps - 1) / (32 * tile_warps));
  const auto pass1 = [&](T* workspace) {
    const Pass1<T> p{a, b, c, d, workspace, r};
    if (tiled) {
      pass1_tiled<T><<<tiled_blocks, 32 * tile_warps, 0, stream>>>(g, p);
    } else {
      if (workspace) {
        pass1_strided<T, true><<<strided_blocks, threads_per_block, 0, stream>>>(g, p);
      } else {
        pass1_strided<T, false><<<strided_blocks, threads_per_block, 0, stream>>>(g, p);
      }
    }
  };
  const auto pass2 = [&](const T* workspace) {
    const Pass2<T> p{workspace, a, b, c, d, e, x};
    if (tiled) {
      pass2_tiled<T><<<tiled_blocks, 32 * tile_warps, 0, stream>>>(g, p);
    } else {
      if (workspace) {
        pass2_strided<T, true><<<strided_blocks, threads_per_block, 0, stream>>>(g, p);
      } else {
        pass2_strided<T, false><<<strided_blocks, threads_per_block, 0, stream>>>(g, p);
      }
    }
  };
  PassBounds out;
  out.pass1_ms = median_ms(reps, stream, [&] { pass1(w); });
  out.pass2_ms = median_ms(reps, stream, [&] { pass2(w); });
  out.min1_ms = median_ms(reps, stream, [&] { pass1(nullptr); });
  out.min2_ms = median_ms(reps, stream, [&] { pass2(nullptr); });
  cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  return out;
}

template PassBounds time_pass_bounds<float>(const float*, const float*, const float*, const float*,
                                            float*, const std::vector<std::int64_t>&, int, int,
                                            void*);
template PassBounds time_pass_bounds<double>(const double*, const double*, const double*,
                                             const double*, double*,
                                             const std::vector<std::int64_t>&, int, int, void*);

}  // namespace triax::bench::mpi
