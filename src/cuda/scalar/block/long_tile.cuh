#pragma once
// The long path's tiles on the device (hybrid_kernel.cuh; the arithmetic is long_tile.hpp): one
// warp, lane i holding chunk i of a tile of long_path_tile_chunks chunks, turns the tile's chunk
// pairs into the tile's pair (reduce_only) or takes the tile's two end values back to every
// chunk's (finish_only). Along axis 0 the lanes hold their own chunks; along axes >= 1 a warp
// reads a tile's pairs from shared memory, where the block's threads wrote them (the chunks of
// one system are spread over several warps there).
#include <cstdint>

#include "cuda/scalar/block/long_tile.hpp"
#include "cuda/scalar/warp/hybrid_math.cuh"

namespace triax::detail::cuda {

/// reduce_only: the tile's 64 chunk-end equations with the two outer ones replaced by "first
/// unknown = Y_f" and "last unknown = Y_l", solved for three right-hand sides (its own, Y_f = 1,
/// Y_l = 1), and the tile's pair written to the workspace at element e (first equation) and
/// e + row_stride (last) of the four planes: lane 0 writes the first, lane 31 the last. Every lane
/// of the warp takes part; `valid` false (a system past the count) writes nothing.
template <class T>
__device__ __forceinline__ void tile_reduce_store(const Row<T>& first, const Row<T>& last, int lane,
                                                  bool valid, T* ws, std::int64_t plane,
                                                  std::int64_t e, std::int64_t row_stride) {
  const bool head = lane == 0, tail = lane == long_path_tile_chunks - 1;
  const Row<T> f = head ? identity_row<T>() : first;
  const Row<T> g = tail ? identity_row<T>() : last;
  const T f_rhs[3] = {head ? T(0) : first.rhs, head ? T(1) : T(0), T(0)};
  const T g_rhs[3] = {tail ? T(0) : last.rhs, T(0), tail ? T(1) : T(0)};
  T vf[3], vl[3];
  pair_solve_multi<T, 3>(f, f_rhs, g, g_rhs, long_path_tile_chunks, vf, vl);
  if (!valid) return;
  // Lane 0: its first equation with its last unknown (vl) substituted; lane 31: its last
  // equation with its first unknown (vf) substituted.
  if (head) {
    const Row<T> r = tile_first_equation(first, vl);
    ws[e] = r.sub;
    ws[plane + e] = r.diag;
    ws[2 * plane + e] = r.sup;
    ws[3 * plane + e] = r.rhs;
  }
  if (tail) {
    const Row<T> r = tile_last_equation(last, vf);
    const std::int64_t e1 = e + row_stride;
    ws[e1] = r.sub;
    ws[plane + e1] = r.diag;
    ws[2 * plane + e1] = r.sup;
    ws[3 * plane + e1] = r.rhs;
  }
}

/// finish_only: the same tile system once, with the right-hand side Y_f, d, Y_l, the tile's end
/// values from the reduced solve (x planes at 3 * plane + e and + row_stride): this lane's chunk
/// ends. Every lane of the warp takes part; `valid` false reads nothing (identity rows give 0).
template <class T>
__device__ __forceinline__ void tile_finish(const Row<T>& first, const Row<T>& last, int lane,
                                            bool valid, const T* ws, std::int64_t plane,
                                            std::int64_t e, std::int64_t row_stride, T& x_first,
                                            T& x_last) {
  const bool head = lane == 0, tail = lane == long_path_tile_chunks - 1;
  const Row<T> f = head ? identity_row<T>() : first;
  const Row<T> g = tail ? identity_row<T>() : last;
  T y_first = 0, y_last = 0;
  if (valid) {  // every lane reads the same two words
    y_first = ws[3 * plane + e];
    y_last = ws[3 * plane + e + row_stride];
  }
  const T f_rhs[1] = {head ? y_first : first.rhs};
  const T g_rhs[1] = {tail ? y_last : last.rhs};
  T xf[1], xl[1];
  pair_solve_multi<T, 1>(f, f_rhs, g, g_rhs, long_path_tile_chunks, xf, xl);
  x_first = xf[0];
  x_last = xl[0];
}

}  // namespace triax::detail::cuda
