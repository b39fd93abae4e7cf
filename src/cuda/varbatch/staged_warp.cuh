#pragma once
// One warp solves one run of at most staged_rows rows of unit row stride held in shared memory
// (var_thread_thomas.cu's staged kernel and the segment kernels of var_segments.cuh). The warp
// reads the rows in coalesced runs into its stage, each lane takes a chunk of them (32 chunks of
// n / 32 or n / 32 + 1 rows; for n < 64, chunks of 2 or 3), and the Thomas-PCR hybrid's
// arithmetic (warp/hybrid_math.cuh: the modified Thomas sweep per chunk, PCR over shuffles on the
// reduced pairs, the back substitution) solves it there; x goes out in coalesced runs. Every
// value is read once and written once.
// Row k of chunk j sits at k * stage_pitch + j: lanes (chunks) reading their k-th row hit
// distinct banks, and so do the loads, whose consecutive rows mostly share a chunk.
#include <cuda_runtime.h>

#include "cuda/scalar/warp/hybrid_math.cuh"

namespace triax::detail::cuda {

constexpr int stage_warp = 32;
constexpr int staged_rows = 512;
constexpr int stage_chunk_rows = staged_rows / stage_warp;  // the longest chunk when n >= 64
constexpr int stage_pitch = stage_warp + 1;
constexpr int stage_size = stage_chunk_rows * stage_pitch;

template <class T>
struct StagedRows {
  static constexpr int unroll = 1;
  T *a, *b, *c, *d;  // this lane's column: row k of its chunk at k * stage_pitch
  __device__ __forceinline__ static int bound(int length) { return length; }
  __device__ __forceinline__ T& sub(int k) { return a[k * stage_pitch]; }
  __device__ __forceinline__ T& diag(int k) { return b[k * stage_pitch]; }
  __device__ __forceinline__ T& sup(int k) { return c[k * stage_pitch]; }
  __device__ __forceinline__ T& rhs(int k) { return d[k * stage_pitch]; }
};

// How a run of n rows is cut into the warp's 32 chunks: chunk j has length(j) rows; chunk_of(i)
// gives the chunk of row i and its place in it.
struct Chunks {
  int n, q, rem, big, pairs;  // n >= 64: q or q + 1 rows; n < 64: pairs of 2, the last 2 or 3
  __device__ __forceinline__ explicit Chunks(int rows) : n(rows) {
    q = n / stage_warp;
    rem = n % stage_warp;
    big = rem * (q + 1);
    pairs = n / 2 > 0 ? n / 2 : 1;
  }
  __device__ __forceinline__ int length(int j) const {
    if (n >= 2 * stage_warp) return q + (j < rem ? 1 : 0);
    if (n == 1) return j == 0 ? 1 : 0;
    if (j < pairs - 1) return 2;
    return j == pairs - 1 ? n - 2 * (pairs - 1) : 0;
  }
  __device__ __forceinline__ void chunk_of(int i, int& j, int& k) const {
    if (n >= 2 * stage_warp) {
      if (i < big) {
        j = i / (q + 1);
        k = i - j * (q + 1);
      } else {
        j = rem + (i - big) / q;
        k = i - big - (j - rem) * q;
      }
    } else {
      j = min(i / 2, pairs - 1);
      k = i - 2 * j;
    }
  }
  /// The stage index of row i.
  __device__ __forceinline__ int at(int i) const {
    int j, k;
    chunk_of(i, j, k);
    return k * stage_pitch + j;
  }
};

/// A warp's stage: four arrays of stage_size values.
template <class T>
struct Stage {
  T *a, *b, *c, *d;
};

/// Rows 0..n-1 at a, b, c, d into the stage. a of row 0 is not read where `starts` (the
/// system's first row: stored as 0), nor c of row n-1 where `ends`; a run inside a system (a
/// segment) reads both, which couple it to its neighbours.
template <class T>
__device__ __forceinline__ void stage_load(const Stage<T>& s, const Chunks& chunks, const T* a,
                                           const T* b, const T* c, const T* d, bool starts,
                                           bool ends, int lane) {
  const int n = chunks.n;
#pragma unroll 4
  for (int i = lane; i < n; i += stage_warp) {
    const int e = chunks.at(i);
    s.a[e] = i > 0 || !starts ? a[i] : T(0);
    s.b[e] = b[i];
    s.c[e] = i + 1 < n || !ends ? c[i] : T(0);
    s.d[e] = d[i];
  }
}

/// Solves the staged rows (a of row 0 and c of row n-1 zero); x replaces the stage's d.
template <class T>
__device__ __forceinline__ void stage_solve(const Stage<T>& s, const Chunks& chunks, int lane) {
  StagedRows<T> rows{s.a + lane, s.b + lane, s.c + lane, s.d + lane};
  const int L = chunks.length(lane);
  Row<T> first, last;
  chunk_reduce<T>(rows, L, first, last);
  T x_first, x_last;
  pair_solve<T>(first, last, stage_warp, x_first, x_last);
  chunk_back<T>(rows, L, x_first, x_last);
}

/// x of rows 0..n-1 from the stage (added to x's values where Accumulate).
template <class T, bool Accumulate>
__device__ __forceinline__ void stage_store(const Stage<T>& s, const Chunks& chunks, T* x,
                                            int lane) {
#pragma unroll 4
  for (int i = lane; i < chunks.n; i += stage_warp) {
    const T v = s.d[chunks.at(i)];
    x[i] = Accumulate ? x[i] + v : v;
  }
}

}  // namespace triax::detail::cuda
