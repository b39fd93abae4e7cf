#pragma once
// cuda_block_coop_thomas: M cooperating threads per system (paper 000's register variant of
// block Thomas, Algorithm 12). The automatic choice of the cuda block plan.
//
// A system is solved by a group of G lanes of one warp, G the power of two >= M (1, 2, 4, 8):
// lane r holds row r of A[i], of the pivot block and of the right-hand sides [C[i] | d[i]].
// Holding rows (not the paper's columns) makes every row operation of the elimination local to
// a lane; what crosses lanes is a broadcast from one lane of the group (__shfl_sync of width G):
//   P = B[i] - A[i] C*[i-1]      row q of C*[i-1] and d*[i-1] from lane q, M (M + 1) shuffles;
//   LU of P, no pivoting          the pivot row k from lane k, then each lane below it updates;
//   back substitution             row k of the solution from lane k to the lanes above it;
//   u[i] = d*[i] - C*[i] u[i+1]   u[i+1] component q from lane q, M shuffles.
// The G - M padding lanes (M = 3, 5, 6, 7) compute on zeros and never load or store: padding to
// a power of two keeps a group inside one warp, so that the shuffles need no masks of their own.
//
// Loads: lane r reads entry (r, c) for c = 0..M-1. For a row-major block (array of blocks, the
// interleaved layout) one warp instruction touches every row of the group's blocks at a stride
// of M entries and the next M - 1 instructions read the rest of the same lines, which L1 keeps;
// the interleaved layout also puts the blocks of a warp's systems side by side. Other layouts
// are read at their strides as they are.
//
// C*[i] and d*[i] are kept for the backward pass in a device workspace sized by the plan (the
// output has room for d* but not for C*): entry e of lane r's row of block row i of system s at
// ((i * (M + 1) + e) * count + s) * M + r, e = 0..M-1 for C*, M for d*, so a group's stores
// and loads of one entry are M consecutive values and a warp's one run.
//
// Variants (CoopVariant, TRIAX_CUDA_BLOCK_COOP; block_launchers.hpp): `shuffle` is the above;
// `shared` passes C*[i-1] | d*[i-1] through a shared-memory stage of the group instead of M (M + 1)
// shuffles (block_coop_stage.cuh) and, where the three block operands have column stride 1,
// loads a row's entries at immediate offsets from one address (the workspace's at one
// multiply-add from the system's part); `shared_occupancy` also caps the
// registers (coop_min_blocks). Global loads and stores are the same in every variant, per lane
// and in order, so one bound (bench/gpu_block_bound.cu) serves them all.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "cuda/block_tridiag/block_access.cuh"
#include "cuda/block_tridiag/block_coop_stage.cuh"
#include "cuda/launch/launch_kernel.hpp"

namespace triax::detail::cuda {
namespace block_coop {

/// Where a thread stands: its group of G lanes in its warp and the block row it holds; the
/// grid-stride loop runs over the first system of each warp, so that every lane of a warp runs
/// the same iterations (the shuffles need the whole warp). bench/gpu_block_bound.cu maps its
/// threads alike.
template <int M>
struct GroupLanes {
  static constexpr int G = group_lanes<M>;
  int lane;  // the block row this thread holds
  int warp_lane;
  int group_in_warp;
  bool row_lane;

  __device__ GroupLanes()
      : lane(static_cast<int>(threadIdx.x % G)),
        warp_lane(static_cast<int>(threadIdx.x % 32)),
        group_in_warp(warp_lane / G),
        row_lane(lane < M) {}

  /// The warp's first system in the first iteration, and the step between iterations.
  __device__ std::int64_t first_system() const {
    return (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x - warp_lane) / G;
  }
  __device__ static std::int64_t system_step() {
    return std::int64_t(gridDim.x) * blockDim.x / G;
  }
};

/// Where entry e of lane `lane`'s row of block row i of system s (of `count`) lies in the
/// workspace: e < M is C*[i](lane, e), e = M is d*[i](lane).
template <int M>
__device__ __forceinline__ std::int64_t work_index(std::int64_t i, int e, std::int64_t count,
                                                   std::int64_t s, int lane) {
  return ((i * (M + 1) + e) * count + s) * M + lane;
}

/// The value of v held by lane `source` of the caller's group of G lanes.
template <int G, class T>
__device__ __forceinline__ T from_lane(T v, int source) {
  return __shfl_sync(0xffffffffu, v, source, G);
}

/// Whether pred holds on some lane of the caller's group (every lane of the warp calls it).
template <int G>
__device__ __forceinline__ bool group_any(bool pred, int group_in_warp) {
  const unsigned votes = __ballot_sync(0xffffffffu, pred) >> (group_in_warp * G);
  return (votes & ((1u << G) - 1u)) != 0;
}

/// The largest v over the caller's group.
template <int G>
__device__ __forceinline__ int group_max(int v) {
#pragma unroll
  for (int offset = G / 2; offset > 0; offset /= 2) {
    const int other = __shfl_xor_sync(0xffffffffu, v, offset, G);
    v = other > v ? other : v;
  }
  return v;
}

/// The right-hand sides' row operation of the elimination and the back substitution: where
/// `apply`, this lane's row [crow | drow] -= factor x lane k's row.
template <int G, class T, int M>
__device__ __forceinline__ void subtract_row(T (&crow)[M], T& drow, int k, bool apply, T factor) {
#pragma unroll
  for (int c = 0; c < M; ++c) {
    const T kc = from_lane<G>(crow[c], k);
    if (apply) crow[c] -= factor * kc;
  }
  const T kd = from_lane<G>(drow, k);
  if (apply) drow -= factor * kd;
}

/// Entry (r, c) of block row i of a block operand; with UnitCols (column stride 1) the row's
/// entries share one address computation and load at immediate offsets from it.
template <bool UnitCols, class T>
__device__ __forceinline__ T block_entry(const BlockSystem<T>& sys, const T* op_ptr, int op,
                                         std::int64_t i, int r, int c) {
  if constexpr (UnitCols) {
    return __ldg(op_ptr + sys.at(op, i, r) + c);
  } else {
    return sys.block(op_ptr, op, i, r, c);
  }
}

/// 1 / pivot: an IEEE division, or (ApproxRcp, float) the hardware's approximate reciprocal
/// without the division's slow path (the tuned kernels' `rcp` knob). The approximation flushes
/// its operand and result: it returns 0 above 2^126 and inf below 2^-126, where the division
/// gives a subnormal or finite reciprocal. So a pivot there is first brought inside by an exact
/// power of two s, and the reciprocal scaled back by s: 1 / p = s / (p s), the same value the
/// division gives to within the approximation's ulp, and a system times any power of two solves
/// as the unscaled one (issue 34). Two compares, two selects and two multiplies.
template <bool ApproxRcp, class T>
__device__ __forceinline__ T reciprocal(T pivot) {
  if constexpr (ApproxRcp && sizeof(T) == 4) {
    const float magnitude = fabsf(pivot);
    const float s = magnitude > 0x1p126f ? 0x1p-2f : (magnitude < 0x1p-126f ? 0x1p2f : 1.0f);
    return __fdividef(1.0f, pivot * s) * s;
  } else {
    return T(1) / pivot;
  }
}

/// The kernel's body; the __global__ wrappers below differ only in their launch bounds. Threads:
/// of a thread block (the stage's size); ApproxRcp: reciprocal's; LateScale: the back
/// substitution leaves rows unscaled and each lane scales its own once at the end (M + 1
/// multiplies a lane where the warp otherwise issues M (M + 1), predicated on lane == k): lane j
/// removes lane k's unscaled row times U(j, k) / U(k, k), the multiplier its elimination step k
/// computed anyway (the tuned kernels' `ls` knob; the same loads and stores).
template <class T, int M, bool Accumulate, bool Checked, CoopVariant V, bool UnitCols,
          int Threads = block_kernel_threads, bool ApproxRcp = false, bool LateScale = false>
__device__ __forceinline__ void block_coop_thomas(const BlockProblem& p, const Operands<T>& ops,
                                                  T* __restrict__ work) {
  constexpr int G = group_lanes<M>;
  constexpr bool staged = V != CoopVariant::shuffle;
  using Stage = GroupStage<T, M>;
  __shared__ typename Stage::Vec stage_all[staged ? Stage::block_vecs(Threads) : 1];
  const int group_in_block = static_cast<int>(threadIdx.x / G);
  T* const stage = staged ? Stage::of_group(stage_all, group_in_block) : nullptr;
  const std::int64_t count = p.grid.count;
  const std::int64_t n = p.grid.n;
  const GroupLanes<M> g;
  const int lane = g.lane, group_in_warp = g.group_in_warp;
  const bool row_lane = g.row_lane;
  // Groups past the last system solve a copy of it and store nothing.
  for (std::int64_t warp_first = g.first_system(); warp_first < count;
       warp_first += g.system_step()) {
    const std::int64_t s = warp_first + group_in_warp;
    const bool active = s < count;
    const bool owner = active && row_lane;  // loads nothing twice, stores nothing it should not
    const BlockSystem<T> sys(p, active ? s : count - 1);
    // Entry e of this lane's row of block row i in the workspace. work_index(i, e) is
    // (i (M + 1) + e) count M + s M + lane: the staged variants keep the system's part and the
    // entry stride, so that an entry costs one multiply-add.
    auto stash = [&] {
      if constexpr (staged) {
        return [row = work + s * M + lane, entry_stride = count * M](std::int64_t i,
                                                                      int e) -> T& {
          return row[(i * (M + 1) + e) * entry_stride];
        };
      } else {
        return [&](std::int64_t i, int e) -> T& {
          return work[work_index<M>(i, e, count, s, lane)];
        };
      }
    }();

    T cprev[M];   // row `lane` of C*[i-1]
    T dprev = 0;  // component `lane` of d*[i-1]
#pragma unroll
    for (int c = 0; c < M; ++c) cprev[c] = 0;
    T inv_own = 0;  // the reciprocal of this lane's pivot
    int breakdown = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      T prow[M];                     // row `lane` of the pivot block, then of U
      T crow[M];                     // row `lane` of C[i], then of C*[i]
      T drow;                        // component `lane` of d[i], then of d*[i]
      const bool has_c = i + 1 < n;  // C[n-1] is never read
#pragma unroll
      for (int c = 0; c < M; ++c) {
        prow[c] = row_lane ? block_entry<UnitCols>(sys, ops.b, op_b, i, lane, c) : T(0);
        crow[c] = row_lane && has_c ? block_entry<UnitCols>(sys, ops.c, op_c, i, lane, c) : T(0);
      }
      drow = row_lane ? ops.d[sys.at(op_d, i, lane)] : T(0);
      if (i > 0) {
        T arow[M];
#pragma unroll
        for (int q = 0; q < M; ++q) {
          arow[q] = row_lane ? block_entry<UnitCols>(sys, ops.a, op_a, i, lane, q) : T(0);
        }
        if constexpr (staged) {
          __syncwarp();  // the group's rows of C*[i-1] | d*[i-1] are in its stage
          Stage::subtract_product(stage, arow, prow, drow);
        } else {
#pragma unroll
          for (int q = 0; q < M; ++q) {
            drow -= arow[q] * from_lane<G>(dprev, q);
#pragma unroll
            for (int c = 0; c < M; ++c) prow[c] -= arow[q] * from_lane<G>(cprev[c], q);
          }
        }
      }

      // Elimination below each pivot, applied to the right-hand sides at once.
#pragma unroll
      for (int k = 0; k < M; ++k) {
        const T pivot = from_lane<G>(prow[k], k);
        if (Checked && breakdown == 0 && !pivot_usable(pivot)) {
          breakdown = static_cast<int>(i + 1);
        }
        const T inv = reciprocal<ApproxRcp>(pivot);
        if (lane == k) inv_own = inv;
        const bool below = lane > k;
        const T l = prow[k] * inv;
        // Lanes above k: U(lane, k) / U(k, k), the factor of the back substitution; the others
        // never read column k again.
        if constexpr (LateScale) prow[k] = l;
#pragma unroll
        for (int c = k + 1; c < M; ++c) {
          const T pkc = from_lane<G>(prow[c], k);
          if (below) prow[c] -= l * pkc;
        }
        subtract_row<G>(crow, drow, k, below, l);
      }
      // Back substitution from the last row up: lane k finishes its row, then the lanes above
      // it remove its contribution.
#pragma unroll
      for (int k = M - 1; k >= 0; --k) {
        if (!LateScale && lane == k) {
#pragma unroll
          for (int c = 0; c < M; ++c) crow[c] *= inv_own;
          drow *= inv_own;
        }
        if (k > 0) {
          const bool above = lane < k;
          const T ukk = prow[k];  // U(lane, k); with LateScale, over U(k, k)
          subtract_row<G>(crow, drow, k, above, ukk);
        }
      }
      if constexpr (LateScale) {
#pragma unroll
        for (int c = 0; c < M; ++c) crow[c] *= inv_own;
        drow *= inv_own;
      }
      if (Checked) {
        const bool bad_d = group_any<G>(row_lane && !isfinite(drow), group_in_warp);
        if (breakdown == 0 && bad_d) breakdown = static_cast<int>(i + 1);
      }
      if (owner) {
        if (has_c) {
#pragma unroll
          for (int c = 0; c < M; ++c) stash(i, c) = crow[c];
        }
        stash(i, M) = drow;
      }
      if constexpr (staged) {
        __syncwarp();  // every lane of the group has read C*[i-1] | d*[i-1] from the stage
        if (row_lane) Stage::put_row(stage, lane, crow, drow);
      } else {
#pragma unroll
        for (int c = 0; c < M; ++c) cprev[c] = crow[c];
      }
      dprev = drow;
    }

    // u[i] = d*[i] - C*[i] u[i+1]; d*[n-1] is still in dprev. Each lane notes the last block row
    // where its stored component is not finite; the group's last such row is reported.
    T u = dprev;
    int bad = 0;
    for (std::int64_t i = n - 1; i >= 0; --i) {
      if (i + 1 < n) {
        T v = owner ? stash(i, M) : T(0);
#pragma unroll
        for (int q = 0; q < M; ++q) {
          const T cq = owner ? stash(i, q) : T(0);
          v -= cq * from_lane<G>(u, q);
        }
        u = v;
      }
      if (owner) {
        T& out = ops.x[sys.at(op_x, i, lane)];
        const T stored = Accumulate ? out + u : u;
        out = stored;
        if (Checked && bad == 0 && !isfinite(stored)) bad = static_cast<int>(i + 1);
      }
    }
    if (Checked) {
      bad = group_max<G>(bad);
      if (active && lane == 0) ops.info[s] = breakdown != 0 ? breakdown : bad;
    }
  }
}

template <class T, int M, bool Accumulate, bool Checked, CoopVariant V, bool UnitCols>
__global__ void __launch_bounds__(block_kernel_threads)
    block_coop_thomas_kernel(const __grid_constant__ BlockProblem p, Operands<T> ops,
                             T* __restrict__ work) {
  block_coop_thomas<T, M, Accumulate, Checked, V, UnitCols>(p, ops, work);
}

/// Thread blocks of 128 threads an SM that the shared_occupancy variant asks ptxas to fit (0: no
/// cap): the most that fit with at most two spill instructions inside the row loops of the
/// unchecked kernels on unit-column layouts (ptxas -v and the SASS, sm_90: a few words spilled;
/// up to 8 spill instructions in the loops in checked mode): 8 (64 registers) in float and for
/// double M <= 5, 7 (72) for double M = 6, 6 (80) for M = 7; double M = 8 keeps its 102 (4 blocks).
/// Eight blocks of four warps split the paper's batches of float M = 8 and double M = 4 (8192
/// warps of systems) into two even rounds over 132 SMs, where the seven blocks of their 72
/// registers in the shuffle variant leave 2.2 rounds.
template <class T, int M>
inline constexpr int coop_min_blocks = sizeof(T) == 4 || M <= 5 ? 8
                                       : M == 6                 ? 7
                                       : M == 7                 ? 6
                                                                : 0;

template <class T, int M, bool Accumulate, bool Checked, CoopVariant V, bool UnitCols,
          int MinBlocks>
__global__ void __launch_bounds__(block_kernel_threads, MinBlocks)
    block_coop_thomas_capped_kernel(const __grid_constant__ BlockProblem p, Operands<T> ops,
                                    T* __restrict__ work) {
  block_coop_thomas<T, M, Accumulate, Checked, V, UnitCols>(p, ops, work);
}

}  // namespace block_coop

/// The launcher of variant V (block_launchers.hpp), instantiated in a translation unit of its own
/// per precision and variant (block_coop_<variant>_<precision>.cu), so that they compile in
/// parallel. Unit columns (A, B, C of column stride 1) only where the variant uses them.
template <class T, CoopVariant V>
void cuda_block_coop_variant(const BlockProblem& p, const Operands<T>& ops, void* workspace,
                             cudaStream_t stream) {
  const bool unit = V != CoopVariant::shuffle && p.entry_col[op_a] == 1 &&
                    p.entry_col[op_b] == 1 && p.entry_col[op_c] == 1;
  with_block_size_and_mode(p, ops, [&](auto m, auto accumulate, auto checked) {
    constexpr int M = m.value;
    auto go = [&](auto unit_cols) {
      using namespace block_coop;
      auto launch = [&](auto kernel) {
        launch_kernel(kernel, block_kernel_grid(p.grid.count * group_lanes<M>),
                      block_kernel_threads, 0, stream, p, ops, static_cast<T*>(workspace));
      };
      if constexpr (V == CoopVariant::shared_occupancy && (coop_min_blocks<T, M> > 0)) {
        launch(block_coop_thomas_capped_kernel<T, M, accumulate.value, checked.value, V,
                                               unit_cols.value, coop_min_blocks<T, M>>);
      } else {
        launch(block_coop_thomas_kernel<T, M, accumulate.value, checked.value, V,
                                        unit_cols.value>);
      }
    };
    if constexpr (V == CoopVariant::shuffle) {
      go(std::false_type{});
    } else if (unit) {
      go(std::true_type{});
    } else {
      go(std::false_type{});
    }
  });
}

/// In a variant's per-precision .cu, inside namespace triax::detail::cuda.
#define TRIAX_INSTANTIATE_COOP_VARIANT(T, V)                              \
  template void cuda_block_coop_variant<T, CoopVariant::V>(const BlockProblem&, \
                                                           const Operands<T>&, void*, cudaStream_t);

}  // namespace triax::detail::cuda
