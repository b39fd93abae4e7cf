// thread_thomas_shared_transpose: one thread per system along axis 0, where each system is
// contiguous and neighbouring systems are far apart (paper 000, Algorithm 8). A warp reads R rows
// of its 32 systems together, so that consecutive lanes read consecutive addresses, and
// transposes them through shared memory (rows padded by one element against bank conflicts);
// each lane then runs R Thomas steps from registers. c' and d' go to a workspace interleaved by
// system (coalesced); the back substitution fills the same tile and the warp writes x back with
// the coalesced pattern.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/problem.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/launch/kernels.hpp"
#include "cuda/launch/launch_kernel.hpp"
#include "cuda/solve_modes.cuh"
#include "cuda/scalar/thread/thomas_steps.cuh"

namespace triax::detail::cuda {
namespace {

constexpr int warp_size = 32;
constexpr int warps_per_block = 4;

template <class T>
struct Tile {
  static constexpr int rows = 64 / sizeof(T);  // R: one 64-byte segment of each system
  static constexpr int pitch = rows + 1;       // padded against bank conflicts
};

// The warp reads rows [i0, i0 + rows) of its 32 systems (system j starts at base of lane j)
// into tile[j * pitch + r]: pass k, lane l reads element e = k * 32 + l, i.e. system e / R, row
// e % R, so that each group of R lanes reads one contiguous segment.
// Only rows [lo, hi) are read (a: 1 .. n-1, c: 0 .. n-2: a[0] and c[n-1] may lie outside the
// caller's allocation); the tile keeps whatever it held for the others, which are never used.
template <class T>
__device__ void load_tile(const T* __restrict__ base_of_lane, std::int64_t i0, int rows,
                          std::int64_t lo, std::int64_t hi, std::int64_t row_stride, T* tile,
                          int lane) {
  constexpr int R = Tile<T>::rows;
  for (int k = 0; k < R; ++k) {
    const int e = k * warp_size + lane;
    const int j = e / R, r = e % R;
    const T* base = reinterpret_cast<const T*>(
        __shfl_sync(0xffffffffu, reinterpret_cast<std::uintptr_t>(base_of_lane), j));
    const std::int64_t i = i0 + r;
    if (r < rows && i >= lo && i < hi) tile[j * Tile<T>::pitch + r] = base[i * row_stride];
  }
  __syncwarp();
}

template <class T, bool Accumulate>
__device__ void store_tile(T* __restrict__ base_of_lane, std::int64_t i0, int rows,
                           std::int64_t row_stride, const T* tile, int lane, bool lane_valid) {
  constexpr int R = Tile<T>::rows;
  for (int k = 0; k < R; ++k) {
    const int e = k * warp_size + lane;
    const int j = e / R, r = e % R;
    T* base = reinterpret_cast<T*>(
        __shfl_sync(0xffffffffu, reinterpret_cast<std::uintptr_t>(base_of_lane), j));
    const bool valid = __shfl_sync(0xffffffffu, lane_valid, j);
    if (valid && r < rows) {
      T& out = base[(i0 + r) * row_stride];
      const T v = tile[j * Tile<T>::pitch + r];
      out = Accumulate ? out + v : v;
    }
  }
  __syncwarp();
}

template <class T, bool Accumulate, bool Checked>
__global__ void __launch_bounds__(warp_size* warps_per_block)
    shared_transpose_kernel(Problem p, Operands<T> ops, T* __restrict__ cp, T* __restrict__ dp) {
  constexpr int R = Tile<T>::rows;
  constexpr int pitch = Tile<T>::pitch;
  __shared__ T tiles[warps_per_block][op_x][warp_size * pitch];
  const int lane = threadIdx.x % warp_size;
  const int warp = threadIdx.x / warp_size;
  const std::int64_t count = p.count, n = p.n;
  const std::int64_t warps_total = std::int64_t(gridDim.x) * warps_per_block;
  for (std::int64_t group = std::int64_t(blockIdx.x) * warps_per_block + warp;
       group * warp_size < count; group += warps_total) {
    const std::int64_t s_real = group * warp_size + lane;
    const bool valid = s_real < count;
    const std::int64_t s = valid ? s_real : count - 1;  // spare lanes repeat the last system
    const T* in_base[op_x] = {ops.a + p.system_offset(op_a, s), ops.b + p.system_offset(op_b, s),
                              ops.c + p.system_offset(op_c, s), ops.d + p.system_offset(op_d, s)};
    T* x_base = ops.x + p.system_offset(op_x, s);
    T(&tile)[op_x][warp_size * pitch] = tiles[warp];

    ThomasForward<T, Checked> forward;
    for (std::int64_t i0 = 0; i0 < n; i0 += R) {
      const int rows = static_cast<int>(n - i0 < R ? n - i0 : R);
      for (int op = op_a; op < op_x; ++op) {
        load_tile(in_base[op], i0, rows, op == op_a ? 1 : 0, op == op_c ? n - 1 : n,
                  p.map[op].row_stride, tile[op], lane);
      }
#pragma unroll
      for (int r = 0; r < R; ++r) {
        if (r < rows) {
          const std::int64_t i = i0 + r;
          const T ai = i > 0 ? tile[op_a][lane * pitch + r] : T(0);      // a[0] is never used
          const T ci = i + 1 < n ? tile[op_c][lane * pitch + r] : T(0);  // nor c[n-1]
          forward.step(ai, tile[op_b][lane * pitch + r], ci, tile[op_d][lane * pitch + r], i);
          cp[i * count + s] = forward.cp;
          dp[i * count + s] = forward.dp;
        }
      }
      __syncwarp();
    }

    ThomasBackward<T, Checked> backward;
    const std::int64_t last_block = ((n - 1) / R) * R;
    for (std::int64_t i0 = last_block; i0 >= 0; i0 -= R) {
      const int rows = static_cast<int>(n - i0 < R ? n - i0 : R);
      T* out = tile[op_x - 1];  // reuse d's tile for the solution
#pragma unroll
      for (int r = R - 1; r >= 0; --r) {
        if (r < rows) {
          const std::int64_t i = i0 + r;
          out[lane * pitch + r] = backward.step(cp[i * count + s], dp[i * count + s]);
        }
      }
      __syncwarp();
      if (Checked) {
        // Checked mode inspects the stored values: do the add per lane, then store plainly.
#pragma unroll
        for (int r = R - 1; r >= 0; --r) {
          if (r < rows) {
            const std::int64_t i = i0 + r;
            T v = out[lane * pitch + r];
            if (Accumulate) v += x_base[i * p.map[op_x].row_stride];
            out[lane * pitch + r] = v;
            backward.check(v, i);
          }
        }
        __syncwarp();
        store_tile<T, false>(x_base, i0, rows, p.map[op_x].row_stride, out, lane, valid);
      } else {
        store_tile<T, Accumulate>(x_base, i0, rows, p.map[op_x].row_stride, out, lane, valid);
      }
    }
    if (Checked && valid) ops.info[s] = thomas_info(forward, backward);
  }
}

template <class T, bool Accumulate, bool Checked>
void launch(const Problem& p, const Operands<T>& ops, void* workspace, cudaStream_t stream) {
  T* cp = static_cast<T*>(workspace);
  T* dp = cp + p.n * p.count;
  const std::int64_t groups = (p.count + warp_size - 1) / warp_size;
  const std::int64_t blocks = (groups + warps_per_block - 1) / warps_per_block;
  const unsigned grid = static_cast<unsigned>(blocks < (1 << 30) ? blocks : (1 << 30));
  launch_kernel(shared_transpose_kernel<T, Accumulate, Checked>, grid, warp_size * warps_per_block,
                0, stream, p, ops, cp, dp);
}

}  // namespace

template <class T>
bool thread_thomas_shared_transpose_supports(const Problem& p) {
  // Built for rows that are contiguous in every operand (axis 0 of packed or padded arrays).
  for (int op = 0; op < operand_count; ++op) {
    if (p.map[op].row_stride != 1) return false;
  }
  return p.n >= 2;
}

template <class T>
std::size_t thread_thomas_shared_transpose_workspace(const Problem& p) {
  return interleaved_workspace_bytes<T>(p);
}

template <class T>
void thread_thomas_shared_transpose(const Problem& p, const Operands<T>& ops, void* workspace,
                                    cudaStream_t stream) {
  with_solve_mode(ops, [&](auto accumulate, auto checked) {
    launch<T, accumulate.value, checked.value>(p, ops, workspace, stream);
  });
}

TRIAX_INSTANTIATE_CUDA_ALGORITHM(thread_thomas_shared_transpose)

}  // namespace triax::detail::cuda
