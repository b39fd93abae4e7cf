// thread_thomas_shuffle_transpose: one thread per system along axis 0, where each system is
// contiguous and neighbouring systems are far apart (paper 000, Algorithm 9). The warp splits
// into groups of G lanes (G = 4, 8 or 16, by precision and batch size), each group owning G
// neighbouring systems (lane j of the group owns system j). Rows come in blocks of G: in pass k the group reads G consecutive rows of its system
// k (lane j reads row j), one contiguous run per group; a G x G transpose through register
// shuffles (__shfl_xor butterfly, log2 G stages) then leaves each lane with G rows of its own
// system, on which it runs the Thomas steps. c' and d' go to a workspace interleaved by system
// (coalesced); the back substitution transposes its block of x back the same way and the group
// stores (or adds) it with the reading pattern. No shared memory.
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
constexpr int block_threads = 128;
constexpr unsigned full_mask = 0xffffffffu;

/// Transposes a G x G block held by the G lanes of a group: on entry lane j's v[k] is element
/// (k, j), on return lane j's v[k] is element (j, k). Stage m swaps bit m between the lane and
/// the register index, one shuffle per register pair.
template <int G, class T>
__device__ __forceinline__ void transpose_in_group(T (&v)[G], int lane_in_group) {
#pragma unroll
  for (int m = G / 2; m >= 1; m /= 2) {
    const bool upper = (lane_in_group & m) != 0;
#pragma unroll
    for (int k0 = 0; k0 < G; ++k0) {
      if ((k0 & m) != 0) continue;
      const int k1 = k0 | m;
      // The lower lane keeps its register k0 and sends k1; the upper one keeps k1, sends k0.
      const T sent = upper ? v[k0] : v[k1];
      const T got = __shfl_xor_sync(full_mask, sent, m, G);
      if (upper) {
        v[k0] = got;
      } else {
        v[k1] = got;
      }
    }
  }
}

/// Where the group's systems start: lane j's own base pointer, handed to every lane of its group.
template <int G, class T>
__device__ __forceinline__ T* base_of(T* own_base, int k) {
  return reinterpret_cast<T*>(
      __shfl_sync(full_mask, reinterpret_cast<unsigned long long>(own_base), k, G));
}

/// Reads rows [i0, i0 + G) of the group's G systems and leaves lane j with rows of its own
/// system in v (row i0 + r in v[r]). Only rows [lo, hi) are read (a: 1 .. n-1, c: 0 .. n-2,
/// since a[0] and c[n-1] may lie outside the caller's allocation); other rows and systems past
/// count read as 0.
template <int G, class T>
__device__ __forceinline__ void load_block(const T* own_base, std::int64_t row_stride,
                                           std::int64_t i0, std::int64_t lo, std::int64_t hi,
                                           std::int64_t first_system, std::int64_t count,
                                           int lane_in_group, T (&v)[G]) {
  const std::int64_t i = i0 + lane_in_group;
#pragma unroll
  for (int k = 0; k < G; ++k) {
    const T* base = base_of<G>(own_base, k);
    v[k] = (i >= lo && i < hi && first_system + k < count) ? base[i * row_stride] : T(0);
  }
  transpose_in_group<G>(v, lane_in_group);
}

template <class T, int G, bool Accumulate, bool Checked>
__global__ void __launch_bounds__(block_threads)
    shuffle_transpose_kernel(Problem p, Operands<T> ops, T* __restrict__ cp, T* __restrict__ dp) {
  const int lane = threadIdx.x % warp_size;
  const int lane_in_group = lane % G;
  const std::int64_t count = p.count, n = p.n;
  const std::int64_t warps_total = std::int64_t(gridDim.x) * (block_threads / warp_size);
  for (std::int64_t warp = std::int64_t(blockIdx.x) * (block_threads / warp_size) +
                           threadIdx.x / warp_size;
       warp * warp_size < count; warp += warps_total) {
    const std::int64_t s_real = warp * warp_size + lane;
    const bool valid = s_real < count;
    const std::int64_t s = valid ? s_real : count - 1;  // spare lanes point at a real system
    const std::int64_t first_system = s_real - lane_in_group;
    const T* in_base[op_x] = {ops.a + p.system_offset(op_a, s), ops.b + p.system_offset(op_b, s),
                              ops.c + p.system_offset(op_c, s), ops.d + p.system_offset(op_d, s)};
    T* x_base = ops.x + p.system_offset(op_x, s);
    const std::int64_t rx = p.map[op_x].row_stride;

    ThomasForward<T, Checked> forward;
    for (std::int64_t i0 = 0; i0 < n; i0 += G) {
      T v[op_x][G];
#pragma unroll
      for (int op = op_a; op < op_x; ++op) {
        load_block<G>(in_base[op], p.map[op].row_stride, i0, op == op_a ? 1 : 0,
                      op == op_c ? n - 1 : n, first_system, count, lane_in_group, v[op]);
      }
#pragma unroll
      for (int r = 0; r < G; ++r) {
        const std::int64_t i = i0 + r;
        if (i < n) {
          const T ai = i > 0 ? v[op_a][r] : T(0);      // a[0] is never used
          const T ci = i + 1 < n ? v[op_c][r] : T(0);  // nor c[n-1]
          forward.step(ai, v[op_b][r], ci, v[op_d][r], i);
          if (valid) {
            cp[i * count + s] = forward.cp;
            dp[i * count + s] = forward.dp;
          }
        }
      }
    }

    ThomasBackward<T, Checked> backward;
    for (std::int64_t i0 = ((n - 1) / G) * G; i0 >= 0; i0 -= G) {
      T xs[G];
#pragma unroll
      for (int r = G - 1; r >= 0; --r) {
        const std::int64_t i = i0 + r;
        xs[r] = (i < n && valid) ? backward.step(cp[i * count + s], dp[i * count + s]) : T(0);
      }
      if (Accumulate) {
        // The old outputs come in with the reading pattern and the same transpose.
        T old[G];
        load_block<G>(x_base, rx, i0, 0, n, first_system, count, lane_in_group, old);
#pragma unroll
        for (int r = 0; r < G; ++r) xs[r] += old[r];
      }
      if (Checked) {
#pragma unroll
        for (int r = G - 1; r >= 0; --r) {
          if (i0 + r < n) backward.check(xs[r], i0 + r);
        }
      }
      // Back to the reading pattern: lane j now holds row i0 + j of the group's systems.
      transpose_in_group<G>(xs, lane_in_group);
      const std::int64_t i = i0 + lane_in_group;
#pragma unroll
      for (int k = 0; k < G; ++k) {
        T* base = base_of<G>(x_base, k);
        if (i < n && first_system + k < count) base[i * rx] = xs[k];
      }
    }
    if (Checked && valid) ops.info[s] = thomas_info(forward, backward);
  }
}

/// G, the systems of a group and rows of a block. Larger blocks mean longer contiguous reads and
/// more loads in flight per thread, but more registers; with few systems the smaller ones won.
/// H100, axis 0, n = 256..2048 (% of the device copy, G = 4 / 8 / 16):
///   float,  65536 systems: 23 / 33 / 35;  32768: 31 / 34 / 24;  16384: 23 / 21 / 14
///   double, 65536 systems: 33 / 38 / 42;  32768: 38 / 39 / 42;  16384: 31 / 28 / 29
template <class T>
int group_lanes_for(std::int64_t count) {
  if (sizeof(T) == 4) return count >= 65536 ? 16 : count >= 32768 ? 8 : 4;
  return count >= 32768 ? 16 : 4;
}

template <class T, bool Accumulate, bool Checked>
void launch(const Problem& p, const Operands<T>& ops, void* workspace, cudaStream_t stream) {
  T* cp = static_cast<T*>(workspace);
  T* dp = cp + p.n * p.count;
  const std::int64_t warps = (p.count + warp_size - 1) / warp_size;
  const std::int64_t blocks = (warps * warp_size + block_threads - 1) / block_threads;
  const unsigned grid = static_cast<unsigned>(blocks < (1 << 30) ? blocks : (1 << 30));
  switch (group_lanes_for<T>(p.count)) {
    case 4:
      launch_kernel(shuffle_transpose_kernel<T, 4, Accumulate, Checked>, grid, block_threads, 0,
                    stream, p, ops, cp, dp);
      break;
    case 8:
      launch_kernel(shuffle_transpose_kernel<T, 8, Accumulate, Checked>, grid, block_threads, 0,
                    stream, p, ops, cp, dp);
      break;
    default:
      launch_kernel(shuffle_transpose_kernel<T, 16, Accumulate, Checked>, grid, block_threads, 0,
                    stream, p, ops, cp, dp);
      break;
  }
}

}  // namespace

template <class T>
bool thread_thomas_shuffle_transpose_supports(const Problem& p) {
  // Correct for any layout; it pays only where the right-hand side and the output are read and
  // written along contiguous rows (axis 0).
  return p.map[op_d].row_stride == 1 && p.map[op_x].row_stride == 1;
}

template <class T>
std::size_t thread_thomas_shuffle_transpose_workspace(const Problem& p) {
  return interleaved_workspace_bytes<T>(p);
}

template <class T>
void thread_thomas_shuffle_transpose(const Problem& p, const Operands<T>& ops, void* workspace,
                                     cudaStream_t stream) {
  with_solve_mode(ops, [&](auto accumulate, auto checked) {
    launch<T, accumulate.value, checked.value>(p, ops, workspace, stream);
  });
}

TRIAX_INSTANTIATE_CUDA_ALGORITHM(thread_thomas_shuffle_transpose)

}  // namespace triax::detail::cuda
