#pragma once
// The long path's block along axes >= 1 (Mapping::system_fastest, hybrid.cu): P chunk threads of
// each of S neighbouring systems. Host arithmetic (the launch's choice), free of CUDA, so that a
// CI test without a GPU checks the rule (tests/core/long_tile_test.cpp).
//
// Round 1 (docs/notes/2026-11-27-longaxes.md) took P = 128, S = 4 (512 threads) in float and
// double. In float that reads each row as a 16-byte run per block (half a 32-byte sector; the
// neighbouring block reads the other half through L2), and a 512-thread block at 98-103
// registers is alone on its SM, so its load, reduce and store phases do not overlap: 52-55% of
// the two-pass bound on the H100 where axis 0 reaches 65%. Round 2's float default is P = 32,
// S = 8: every row a whole 32-byte sector per block, and blocks of 256 threads, two per SM at
// up to 128 registers (the same 16 warps, but two blocks' phases interleave). A tile of 32
// chunks is then one system's chunks of the block, one tile per warp as before. On the H100 it
// ran 1.44-1.69x faster than round 1 (docs/performance.md, "Few long systems"); single rows favour
// 32 x 16 (float) and 32 x 8 (double), not yet the defaults. TRIAX_CUDA_HYBRID_LONG_AXES=P,S
// picks another block (hybrid.cu).
#include <cstdint>

#include "cuda/scalar/block/long_tile.hpp"

namespace triax::detail::cuda {

struct LongBlock {
  int P;  // chunk threads per system in a block
  int S;  // systems per block
};

/// Round 1's block (P = 128, S = 4), the one that reaches furthest along the grid's y.
constexpr LongBlock long_block_round1{128, 4};

/// Whether the tiled long path takes this block along axes >= 1: whole tiles per system (P a
/// multiple of 32, so each warp takes one tile), at most 512 threads (the kernel's register
/// budget, hybrid_max_threads).
constexpr bool long_block_valid(LongBlock b) {
  return b.P >= long_path_tile_chunks && b.P % long_path_tile_chunks == 0 && b.S >= 1 &&
         b.S * b.P <= 512;
}

/// Whether a system of n rows in chunks of M rows needs at most 65535 blocks along the grid's y
/// (P chunks each).
constexpr bool long_block_fits(LongBlock b, std::int64_t n, int M) {
  const std::int64_t rows_per_block = std::int64_t(M) * b.P;
  return (n + rows_per_block - 1) / rows_per_block <= 65535;
}

/// The block for n rows of elements of elem_bytes in chunks of M rows. `wanted`: the switch's
/// block, or {0, 0} for the default (float P = 32, S = 8; double round 1's, whose rows already
/// move in 32-byte runs). Where the grid's y cannot hold the block's tiles (float n > 65535 x
/// 512 rows at P = 32), round 1's block, which reaches 4x further.
constexpr LongBlock long_axes_block(int elem_bytes, std::int64_t n, int M, LongBlock wanted) {
  const LongBlock b = long_block_valid(wanted) ? wanted
                      : elem_bytes == 4        ? LongBlock{32, 8}
                                               : long_block_round1;
  return long_block_fits(b, n, M) ? b : long_block_round1;
}

}  // namespace triax::detail::cuda
