#pragma once
// Back-to-back systems longer than one warp's stage (staged_warp.cuh), in three launches whose
// work is proportional to the rows and spread over every SM whatever the length distribution:
// each system is cut into segments of 257..512 rows, and one warp takes one segment.
//  1. reduce: the warp stages its segment, each lane reduces its chunk (chunk_reduce) to two
//     equations, and lane 0 reduces those 64 (a tridiagonal run in the chunks' end unknowns)
//     the same way to the segment's two: its first and last rows with the interior eliminated,
//     coupled to the neighbouring segments only. They go to a small batch in the workspace
//     (2 rows per segment, about 1 / 128 of the rows).
//  2. the reduced systems (2 rows per segment: at most staged_rows for systems of up to
//     max_segmented_rows) are themselves a variable batch of short systems: the staged kernel
//     solves them in place, giving each segment's first and last x.
//  3. back: the warp stages its segment again, replaces its first and last rows by the identity
//     with those x, and solves it as a short system; x goes out once.
// The price is the second read of a, b, c, d (9 accesses per row against 5), the same as the
// fixed-size hybrid's long path; in exchange no system waits on one thread (the per-thread
// kernel ran a 8192-row system as 8192 dependent steps) and no system needs a launch of its own.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/problem.hpp"
#include "cuda/varbatch/staged_warp.cuh"

namespace triax::detail::cuda {

constexpr int segment_warps = 2;  // per block: 2 x 4 x 16.5 KiB of double stage in 48 KiB
/// Longest system the segments take: its reduced system (2 rows per segment of at most
/// staged_rows) must fit one stage.
constexpr std::int64_t max_segmented_rows = std::int64_t(staged_rows) * (staged_rows / 2);

struct Segment {
  std::int64_t start;    // element offset of the segment's row 0 (every operand)
  std::int64_t reduced;  // index of its first reduced row (the last follows) in the workspace
  int rows;              // 257..512
  int ends;              // bit 0: row 0 is its system's first row; bit 1: the last is its last
};

/// Rows at unit stride in shared memory, read by one lane.
template <class T>
struct LinearRows {
  static constexpr int unroll = 1;
  T *a, *b, *c, *d;
  __device__ __forceinline__ static int bound(int length) { return length; }
  __device__ __forceinline__ T& sub(int k) { return a[k]; }
  __device__ __forceinline__ T& diag(int k) { return b[k]; }
  __device__ __forceinline__ T& sup(int k) { return c[k]; }
  __device__ __forceinline__ T& rhs(int k) { return d[k]; }
};

template <class T>
__global__ void __launch_bounds__(segment_warps* stage_warp)
    var_segment_reduce_kernel(Operands<T> ops, const Segment* __restrict__ segments,
                              std::int64_t count, T* __restrict__ ra, T* __restrict__ rb,
                              T* __restrict__ rc, T* __restrict__ rd) {
  __shared__ T stage[segment_warps][4][stage_size];
  __shared__ T pairs[segment_warps][4][2 * stage_warp];
  const int lane = threadIdx.x % stage_warp, wib = threadIdx.x / stage_warp;
  const Stage<T> st{stage[wib][0], stage[wib][1], stage[wib][2], stage[wib][3]};
  T* pa = pairs[wib][0];
  T* pb = pairs[wib][1];
  T* pc = pairs[wib][2];
  T* pd = pairs[wib][3];
  for (std::int64_t w = std::int64_t(blockIdx.x) * segment_warps + wib; w < count;
       w += std::int64_t(gridDim.x) * segment_warps) {
    const Segment g = segments[w];
    const Chunks chunks(g.rows);
    stage_load(st, chunks, ops.a + g.start, ops.b + g.start, ops.c + g.start, ops.d + g.start,
               (g.ends & 1) != 0, (g.ends & 2) != 0, lane);
    __syncwarp();
    StagedRows<T> rows{st.a + lane, st.b + lane, st.c + lane, st.d + lane};
    Row<T> first, last;
    chunk_reduce<T>(rows, chunks.length(lane), first, last);
    // The chunks' equations in order [first_0, last_0, first_1, ...]: tridiagonal in the chunks'
    // end unknowns; first_0 keeps the segment's a (its link to the previous segment) and
    // last_31 its c (to the next). Segments have 257 rows or more: no chunk is empty.
    pa[2 * lane] = first.sub;
    pb[2 * lane] = first.diag;
    pc[2 * lane] = first.sup;
    pd[2 * lane] = first.rhs;
    pa[2 * lane + 1] = last.sub;
    pb[2 * lane + 1] = last.diag;
    pc[2 * lane + 1] = last.sup;
    pd[2 * lane + 1] = last.rhs;
    __syncwarp();
    if (lane == 0) {
      LinearRows<T> r{pa, pb, pc, pd};
      Row<T> sf, sl;
      chunk_reduce<T>(r, 2 * stage_warp, sf, sl);
      ra[g.reduced] = sf.sub;
      rb[g.reduced] = sf.diag;
      rc[g.reduced] = sf.sup;
      rd[g.reduced] = sf.rhs;
      ra[g.reduced + 1] = sl.sub;
      rb[g.reduced + 1] = sl.diag;
      rc[g.reduced + 1] = sl.sup;
      rd[g.reduced + 1] = sl.rhs;
    }
    __syncwarp();  // the next segment overwrites the stage and the pairs
  }
}

/// rx: the reduced batch's solution (each segment's first and last x).
template <class T, bool Accumulate>
__global__ void __launch_bounds__(segment_warps* stage_warp)
    var_segment_back_kernel(Operands<T> ops, const Segment* __restrict__ segments,
                            std::int64_t count, const T* __restrict__ rx) {
  __shared__ T stage[segment_warps][4][stage_size];
  const int lane = threadIdx.x % stage_warp, wib = threadIdx.x / stage_warp;
  const Stage<T> st{stage[wib][0], stage[wib][1], stage[wib][2], stage[wib][3]};
  for (std::int64_t w = std::int64_t(blockIdx.x) * segment_warps + wib; w < count;
       w += std::int64_t(gridDim.x) * segment_warps) {
    const Segment g = segments[w];
    const Chunks chunks(g.rows);
    // The end rows are replaced below: their a and c need not be read.
    stage_load(st, chunks, ops.a + g.start, ops.b + g.start, ops.c + g.start, ops.d + g.start, true,
               true, lane);
    __syncwarp();
    if (lane == 0) {
      const int e0 = chunks.at(0), e1 = chunks.at(g.rows - 1);
      st.a[e0] = T(0);
      st.b[e0] = T(1);
      st.c[e0] = T(0);
      st.d[e0] = rx[g.reduced];
      st.a[e1] = T(0);
      st.b[e1] = T(1);
      st.c[e1] = T(0);
      st.d[e1] = rx[g.reduced + 1];
    }
    __syncwarp();
    stage_solve(st, chunks, lane);
    __syncwarp();
    stage_store<T, Accumulate>(st, chunks, ops.x + g.start, lane);
    __syncwarp();
  }
}

}  // namespace triax::detail::cuda
