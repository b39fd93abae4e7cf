#pragma once
// The long path's tiles (hybrid_kernel.cuh, docs/algorithms.md "Long path"): how a tile of
// long_path_tile_chunks chunks becomes two equations. Plain arithmetic on rows of any type with
// sub, diag, sup and rhs, usable on the host, so that a CI test without a GPU checks it
// (tests/core/long_tile_test.cpp).
//
// The tile's 2G chunk-end equations (G chunks, two each, in order) couple to the rest of the
// system only through the first one's sub (the previous tile's last unknown) and the last one's
// sup (the next tile's first unknown). Solve the tile with those two equations replaced by
// "first unknown = Y_f" and "last unknown = Y_l" for three right-hand sides: its own with
// Y_f = Y_l = 0, then Y_f = 1, then Y_l = 1. Every unknown of the tile is then
// v[0] + v[1] Y_f + v[2] Y_l. The second unknown's v (the first chunk's last end) substituted
// into the first equation, and the second-to-last unknown's v (the last chunk's first end) into
// the last, give the tile's pair: tridiagonal in (previous tile's Y_l, Y_f, Y_l, next tile's
// Y_f), the form a chunk's pair has. No division: the couplings v[1], v[2] decay across a
// dominant tile, and a form that divided by them would overflow.
#include <cstdint>

#include "core/problem.hpp"  // TRIAX_HOST_DEVICE

namespace triax::detail::cuda {

/// Chunks per tile: one warp's lanes.
constexpr int long_path_tile_chunks = 32;

/// Rows of the long path's reduced system for `chunks` chunks (a multiple of the tile where
/// tiled): two per tile, or two per chunk.
TRIAX_HOST_DEVICE constexpr std::int64_t long_path_reduced_rows(std::int64_t chunks, bool tiled) {
  return tiled ? 2 * (chunks / long_path_tile_chunks) : 2 * chunks;
}

/// Along axes >= 1 (Mapping::system_fastest: thread t holds chunk t / S of system t % S, so a
/// system's 32 consecutive chunks lie across S warps) the long path hands the block's S P / 32
/// tiles to its S P / 32 warps through shared memory: warp w takes system w / (P / 32) of the
/// block and its chunks first_chunk + lane, lane 0 .. 31 (P a multiple of the tile).
struct WarpTile {
  int system;       // within the block
  int first_chunk;  // within the block; the tile's index in the block is first_chunk / 32
};
TRIAX_HOST_DEVICE constexpr WarpTile warp_tile(int warp, int P) {
  const int tiles_per_system = P / long_path_tile_chunks;
  return {warp / tiles_per_system, warp % tiles_per_system * long_path_tile_chunks};
}

/// The tile's first equation: its first chunk's first equation `f` with the next unknown
/// v_next[0] + v_next[1] Y_f + v_next[2] Y_l substituted.
template <class Row, class T>
TRIAX_HOST_DEVICE inline Row tile_first_equation(const Row& f, const T (&v_next)[3]) {
  Row r = f;
  r.diag = f.diag + f.sup * v_next[1];
  r.sup = f.sup * v_next[2];
  r.rhs = f.rhs - f.sup * v_next[0];
  return r;
}

/// The tile's last equation: its last chunk's last equation `g` with the previous unknown
/// v_prev[0] + v_prev[1] Y_f + v_prev[2] Y_l substituted.
template <class Row, class T>
TRIAX_HOST_DEVICE inline Row tile_last_equation(const Row& g, const T (&v_prev)[3]) {
  Row r = g;
  r.sub = g.sub * v_prev[1];
  r.diag = g.diag + g.sub * v_prev[2];
  r.rhs = g.rhs - g.sub * v_prev[0];
  return r;
}

}  // namespace triax::detail::cuda
