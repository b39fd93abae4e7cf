#pragma once
// The axis-0 aligned-span path (Mapping::chunk_span; index arithmetic and its reasons in
// span_index.hpp): a group of lanes moves its contiguous run of rows between global and shared
// memory in aligned 16-byte vectors, whatever the run's length and the alignment of its first
// element, and never outside an operand's lowest and highest element (the few vectors that
// cross one go element by element). Loads are cp.async copies straight into shared memory, so
// no register holds a value in flight (the staged path held every loaded vector and each run's
// single end elements in registers: 86 registers and three blocks per SM,
// docs/notes/2026-11-26-shapes.md). Stores write whole vectors inside the run and single
// elements in the two vectors it shares with its neighbours, which are never written.
#include <cuda_pipeline_primitives.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/scalar/block/global_loads.cuh"
#include "cuda/scalar/block/span_index.hpp"
#include "cuda/scalar/block/vec16.cuh"

namespace triax::detail::cuda {

/// Elements between the 16-byte boundary at or before p and p.
template <class T>
__device__ __forceinline__ int span_misalignment(const T* p) {
  return static_cast<int>((reinterpret_cast<std::uintptr_t>(p) % 16) / sizeof(T));
}

/// Starts the copies of the vectors covering the run of len elements at run into the group's
/// area (slots from gstart of the operand's array `st`); lane gi of gw takes vectors gi + gw i.
/// A vector that crosses the operand's lowest (lo) or highest (hi) element is loaded element by
/// element, the run's elements only (span_index.hpp: memory past them may not be the caller's).
/// Returns the run's misalignment. The caller commits and waits (__pipeline_*), then __syncwarp.
template <class T, int M>
__device__ __forceinline__ int span_copy(const T* run, int len, const T* lo, const T* hi, int gi,
                                         int gw, T* st, int gstart) {
  using I = SpanIndex<T>;
  constexpr int V = I::V;
  const int mis = span_misalignment(run);
  const T* span = run - mis;
  const int nv = I::vectors(mis, len);
#pragma unroll
  for (int i = 0; i < I::template copies_per_lane<M>; ++i) {
    const int v = gi + gw * i;
    if (v >= nv) continue;
    T* to = st + I::slot(gstart + v * V);
    if (I::inside(span + v * V, lo, hi)) {
      copy_16_async(to, span + v * V);
    } else {
#pragma unroll
      for (int k = 0; k < V; ++k) {
        const int e = v * V - mis + k;
        if (e >= 0 && e < len) to[k] = run[e];
      }
    }
  }
  return mis;
}

/// A lane's chunk of L rows starting at span element `first` of the group's area, into out
/// (rows past L hold 0), read in the rotated order of span_index.hpp.
template <class T, int M>
__device__ __forceinline__ void span_read(const T* st, int gstart, int first, int L, int skew,
                                          T (&out)[M]) {
  using I = SpanIndex<T>;
#pragma unroll
  for (int k = 0; k < M; ++k) {
    const int r = I::read_row(k, skew, M);
    out[k] = r < L ? st[I::slot(gstart + first + r)] : T(0);
  }
  rotate_right<I::V>(out, skew);
}

/// The inverse: a lane's L values v[0 .. L-1] to span elements first .. first + L - 1.
template <class T, int M>
__device__ __forceinline__ void span_write(T* st, int gstart, int first, int L, int skew,
                                           const T (&v)[M]) {
  using I = SpanIndex<T>;
  T w[M];
#pragma unroll
  for (int k = 0; k < M; ++k) w[k] = v[k];
  rotate_left<I::V>(w, skew);
#pragma unroll
  for (int k = 0; k < M; ++k) {
    const int r = (k + skew) & (M - 1);
    if (r < L) st[I::slot(gstart + first + r)] = w[k];
  }
}

/// The group's staged run (span_write, misalignment of run) to global memory at run, len
/// elements (added to what is there, accumulating). Checked: returns 1 + the last row whose
/// stored value is not finite (rows counted from row_of_run), else 0.
template <class T, int M, bool Accumulate, bool Checked>
__device__ __forceinline__ int span_store(T* run, int len, int gi, int gw, const T* st, int gstart,
                                          int row_of_run) {
  using I = SpanIndex<T>;
  constexpr int V = I::V;
  const int mis = span_misalignment(run);
  T* span = run - mis;
  const int nv = I::vectors(mis, len);
  int bad = 0;
#pragma unroll
  for (int i = 0; i < I::template copies_per_lane<M>; ++i) {
    const int v = gi + gw * i;
    if (v >= nv) continue;
    const int e0 = v * V - mis;  // run element of the vector's first element
    const T* from = st + I::slot(gstart + v * V);
    if (e0 >= 0 && e0 + V <= len) {
      T e[V];
      unpack(*reinterpret_cast<const VecOf<T>*>(from), e);
      if constexpr (Accumulate) {
        T old[V];
        unpack(*reinterpret_cast<const VecOf<T>*>(span + v * V), old);
#pragma unroll
        for (int k = 0; k < V; ++k) e[k] += old[k];
      }
      if constexpr (Checked) {
#pragma unroll
        for (int k = 0; k < V; ++k) {
          if (!isfinite(e[k])) bad = max(bad, row_of_run + e0 + k + 1);
        }
      }
      *reinterpret_cast<VecOf<T>*>(span + v * V) = pack<T>(e);
    } else {
#pragma unroll
      for (int k = 0; k < V; ++k) {
        const int e = e0 + k;
        if (e >= 0 && e < len) {
          T x = from[k];
          if constexpr (Accumulate) x += run[e];
          run[e] = x;
          if (Checked && !isfinite(x)) bad = max(bad, row_of_run + e + 1);
        }
      }
    }
  }
  return bad;
}

}  // namespace triax::detail::cuda
