#pragma once
// The CUDA kernels of triax::FactoredSolver: one thread per system, the factors read through the
// read-only cache from a small device table (a compressed near-Toeplitz table is a few rows that
// every thread reads: they stay in L1). Neighbouring threads take neighbouring systems along the
// fastest batch dimension, so along axes >= 1 each row's loads and stores are coalesced.
//
// Where n <= MaxN, d' stays in registers: the solve reads d once and writes x once (2 arrays of
// traffic). Longer systems keep d' in x's own rows (or, for u += x, in the plan's workspace) and
// re-read it in the backward pass.

#include <cuda_runtime.h>

#include <cstdint>

#include "core/factored/factor_table.hpp"
#include "core/problem.hpp"
#include "cuda/factored/staging.cuh"

namespace triax::detail::cuda_factored {

template <class T>
__device__ inline bool finite(T v) {
  return isfinite(v);
}

/// s d where the table is scaled (two exact power-of-two factors), else d.
template <class T, bool Scaled>
__device__ inline T scaled_rhs(T d, const FactorView<T>& f) {
  return Scaled ? (d * f.scale[0]) * f.scale[1] : d;
}

/// Systems of at most MaxN rows: d' in registers (every loop unrolled over MaxN).
template <int MaxN, class T, bool Accumulate, bool Checked, bool Scaled>
__global__ void factored_registers(Problem p, const T* d, T* x, FactorView<T> f,
                                   int* info) {
  const std::int64_t s = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (s >= p.count) return;
  f.rows = f.rows_for(s);  // the system's group's matrix (a grouped table; else unchanged)
  const int n = static_cast<int>(p.n);
  const T* ds = d + p.system_offset(op_d, s);
  T* xs = x + p.system_offset(op_x, s);
  const std::int64_t rd = p.map[op_d].row_stride, rx = p.map[op_x].row_stride;
  T dp[MaxN];
  int first = 0, last = 0;
  T prev = T(0);
#pragma unroll
  for (int i = 0; i < MaxN; ++i) {
    if (i < n) {
      const T* fr = f.rows + 3 * f.index(i);
      T rhs = scaled_rhs<T, Scaled>(ds[i * rd], f);
      if (i > 0) rhs -= __ldg(fr) * prev;
      prev = rhs * __ldg(fr + 1);
      dp[i] = prev;
      if (Checked && first == 0 && !finite(prev)) first = i + 1;
    }
  }
  T next = T(0);
#pragma unroll
  for (int i = MaxN - 1; i >= 0; --i) {
    if (i < n) {
      T v = dp[i];
      if (i + 1 < n) v -= __ldg(f.rows + 3 * f.index(i) + 2) * next;
      next = v;
      const T out = Accumulate ? xs[i * rx] + v : v;
      xs[i * rx] = out;
      if (Checked && last == 0 && !finite(out)) last = i + 1;
    }
  }
  if (Checked) info[s] = f.breakdown != 0 ? f.breakdown : first != 0 ? first : last;
}

/// Any n: d' in x's rows (work == nullptr) or in work[i * count + s] (u += x, where x's rows
/// hold u), re-read by the backward pass.
template <class T, bool Accumulate, bool Checked, bool Scaled>
__global__ void factored_any(Problem p, const T* d, T* x, T* work, FactorView<T> f, int* info) {
  const std::int64_t s = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (s >= p.count) return;
  f.rows = f.rows_for(s);  // the system's group's matrix (a grouped table; else unchanged)
  const std::int64_t n = p.n;
  const T* ds = d + p.system_offset(op_d, s);
  T* xs = x + p.system_offset(op_x, s);
  const std::int64_t rd = p.map[op_d].row_stride, rx = p.map[op_x].row_stride;
  T* dps = Accumulate ? work + s : xs;
  const std::int64_t rp = Accumulate ? p.count : rx;
  int first = 0, last = 0;
  T prev = T(0);
#pragma unroll 4
  for (std::int64_t i = 0; i < n; ++i) {
    const T* fr = f.rows + 3 * f.index(i);
    T rhs = scaled_rhs<T, Scaled>(ds[i * rd], f);
    if (i > 0) rhs -= __ldg(fr) * prev;
    prev = rhs * __ldg(fr + 1);
    dps[i * rp] = prev;
    if (Checked && first == 0 && !finite(prev)) first = static_cast<int>(i + 1);
  }
  T next = prev;  // x[n-1] = d'[n-1]
  if (Accumulate) {
    const T out = xs[(n - 1) * rx] + next;
    xs[(n - 1) * rx] = out;
    if (Checked && !finite(out)) last = static_cast<int>(n);
  } else if (Checked && !finite(next)) {
    last = static_cast<int>(n);
  }
#pragma unroll 4
  for (std::int64_t i = n - 2; i >= 0; --i) {
    const T v = dps[i * rp] - __ldg(f.rows + 3 * f.index(i) + 2) * next;
    next = v;
    const T out = Accumulate ? xs[i * rx] + v : v;
    xs[i * rx] = out;
    if (Checked && last == 0 && !finite(out)) last = static_cast<int>(i + 1);
  }
  if (Checked) info[s] = f.breakdown != 0 ? f.breakdown : first != 0 ? first : last;
}

/// Systems whose rows are contiguous (along x, row stride 1 in d and x): one warp per 32 systems,
/// tiles of 32 rows x 32 systems staged through shared memory so that every global access is a
/// coalesced run of one system's rows (paper 000's shared-memory transpose, as the scalar
/// kernels stage along x). d' goes to x's rows (or to work, laid out like a packed x, for u += x)
/// a tile at a time and comes back a tile at a time in the backward pass.
constexpr int tile_rows = 32;
constexpr int tile_warps = 4;

template <class T, bool Accumulate, bool Checked, bool Scaled>
__global__ void __launch_bounds__(32 * tile_warps)
    factored_tiled(Problem p, const T* d, T* x, T* work, FactorView<T> f, int* info) {
  __shared__ T tiles[tile_warps][tile_rows][33];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  T(*tile)[33] = tiles[warp];
  const std::int64_t s0 = (blockIdx.x * std::int64_t(tile_warps) + warp) * 32;
  if (s0 >= p.count) return;
  const std::int64_t s = s0 + lane;
  const bool mine = s < p.count;
  f.rows = f.rows_for(mine ? s : s0);  // the lane's group's matrix (grouped tables)
  const int systems = static_cast<int>(p.count - s0 < 32 ? p.count - s0 : 32);
  const std::int64_t n = p.n;
  const std::int64_t od = mine ? p.system_offset(op_d, s) : 0;
  const std::int64_t ox = mine ? p.system_offset(op_x, s) : 0;
  // d' of system s: x's rows, or row i of work at s * n + i.
  const std::int64_t op = Accumulate ? s * n : ox;
  T* dp_base = Accumulate ? work : x;
  int first = 0, last = 0;
  T prev = T(0);
  for (std::int64_t i0 = 0; i0 < n; i0 += tile_rows) {
    const int rows = static_cast<int>(n - i0 < tile_rows ? n - i0 : tile_rows);
    for (int j = 0; j < systems; ++j) {
      const std::int64_t oj = __shfl_sync(0xffffffffu, od, j);
      if (lane < rows) tile[lane][j] = d[oj + i0 + lane];
    }
    __syncwarp();
    if (mine) {
      for (int r = 0; r < rows; ++r) {
        const std::int64_t i = i0 + r;
        const T* fr = f.rows + 3 * f.index(i);
        T rhs = scaled_rhs<T, Scaled>(tile[r][lane], f);
        if (i > 0) rhs -= __ldg(fr) * prev;
        prev = rhs * __ldg(fr + 1);
        tile[r][lane] = prev;
        if (Checked && first == 0 && !finite(prev)) first = static_cast<int>(i + 1);
      }
    }
    __syncwarp();
    for (int j = 0; j < systems; ++j) {
      const std::int64_t oj = __shfl_sync(0xffffffffu, op, j);
      if (lane < rows) dp_base[oj + i0 + lane] = tile[lane][j];
    }
    __syncwarp();
  }
  T next = T(0);
  const std::int64_t last0 = ((n - 1) / tile_rows) * tile_rows;
  for (std::int64_t i0 = last0; i0 >= 0; i0 -= tile_rows) {
    const int rows = static_cast<int>(n - i0 < tile_rows ? n - i0 : tile_rows);
    for (int j = 0; j < systems; ++j) {
      const std::int64_t oj = __shfl_sync(0xffffffffu, op, j);
      if (lane < rows) tile[lane][j] = dp_base[oj + i0 + lane];
    }
    __syncwarp();
    if (mine) {
      for (int r = rows - 1; r >= 0; --r) {
        const std::int64_t i = i0 + r;
        T v = tile[r][lane];
        if (i + 1 < n) v -= __ldg(f.rows + 3 * f.index(i) + 2) * next;
        next = v;
        tile[r][lane] = v;
      }
    }
    __syncwarp();
    for (int j = 0; j < systems; ++j) {
      const std::int64_t oj = __shfl_sync(0xffffffffu, ox, j);
      if (lane < rows) {
        T* at = x + oj + i0 + lane;
        tile[lane][j] = Accumulate ? *at + tile[lane][j] : tile[lane][j];
        *at = tile[lane][j];
      }
    }
    __syncwarp();
    if (Checked && mine) {
      for (int r = rows - 1; r >= 0 && last == 0; --r) {
        if (!finite(tile[r][lane])) last = static_cast<int>(i0 + r + 1);
      }
    }
    __syncwarp();
  }
  if (Checked && mine) info[s] = f.breakdown != 0 ? f.breakdown : first != 0 ? first : last;
}

/// Two arrays of traffic for n > 32 (unchecked): a block stages `lanes` neighbouring systems
/// whole in shared memory (every thread of the block loads, coalesced along whichever of rows or
/// lanes is contiguous), `lanes` threads run the sweeps in place there (one system each: the
/// chain per row is a multiply-add and a multiply, the loads of the tile and of the factors are
/// off it), and the whole block stores x. Many such blocks per SM keep the loads in flight while
/// others compute. Dynamic shared memory: n x (lanes + 1) values (the +1 keeps both the loads'
/// and the sweeps' accesses free of bank conflicts).
template <class T, bool Accumulate, bool Scaled>
__global__ void factored_staged(Problem p, const T* d, T* x, FactorView<T> f, int lanes) {
  extern __shared__ __align__(16) unsigned char staged_raw[];
  std::int64_t* off = reinterpret_cast<std::int64_t*>(staged_raw);  // [2][32]: d, x
  T* tile = reinterpret_cast<T*>(staged_raw + 64 * sizeof(std::int64_t));
  const int pitch = lanes + 1;
  const int n = static_cast<int>(p.n);
  const std::int64_t s0 = blockIdx.x * std::int64_t(lanes);
  const int valid = static_cast<int>(p.count - s0 < lanes ? p.count - s0 : lanes);
  const int t = threadIdx.x;
  if (t < valid) {
    off[t] = p.system_offset(op_d, s0 + t);
    off[32 + t] = p.system_offset(op_x, s0 + t);
  }
  __syncthreads();
  const std::int64_t rd = p.map[op_d].row_stride, rx = p.map[op_x].row_stride;
  // Rows contiguous (along x): neighbouring threads take neighbouring rows of one system; else
  // neighbouring lanes. Batched: 8 loads in flight a thread (staging.cuh).
  const int shift = __ffs(lanes) - 1;
  stage_elements<8>(
      n, shift, valid, rd == 1, [&](std::int64_t i, int j) { return d[off[j] + i * rd]; },
      [&](std::int64_t i, int j, T v) { tile[i * pitch + j] = v; });
  __syncthreads();
  if (t < valid) {
    f.rows = f.rows_for(s0 + t);  // the system's group's matrix (grouped tables)
    T prev = T(0);
    // Unrolled so that the tile's and the factors' loads of later rows issue ahead of the
    // recurrence (in-order issue would otherwise wait on each one).
#pragma unroll 4
    for (int i = 0; i < n; ++i) {
      const T* fr = f.rows + 3 * f.index(i);
      T rhs = scaled_rhs<T, Scaled>(tile[i * pitch + t], f);
      if (i > 0) rhs -= __ldg(fr) * prev;
      prev = rhs * __ldg(fr + 1);
      tile[i * pitch + t] = prev;
    }
    T next = prev;
#pragma unroll 4
    for (int i = n - 2; i >= 0; --i) {
      next = tile[i * pitch + t] - __ldg(f.rows + 3 * f.index(i) + 2) * next;
      tile[i * pitch + t] = next;
    }
  }
  __syncthreads();
  if (Accumulate) {
    stage_elements<8>(
        n, shift, valid, rx == 1, [&](std::int64_t i, int j) { return x[off[32 + j] + i * rx]; },
        [&](std::int64_t i, int j, T u) { x[off[32 + j] + i * rx] = u + tile[i * pitch + j]; });
  } else {
    stage_elements<8>(
        n, shift, valid, rx == 1, [&](std::int64_t i, int j) { return tile[i * pitch + j]; },
        [&](std::int64_t i, int j, T v) { x[off[32 + j] + i * rx] = v; });
  }
}

}  // namespace triax::detail::cuda_factored
