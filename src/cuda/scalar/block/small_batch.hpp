#pragma once
// Small batches along axis 0 (issue 30): spreading few systems over the whole GPU. Plain host
// arithmetic, so that a test without a GPU checks it (tests/core/small_batch_test.cpp);
// hybrid.cu applies it where the switch below turns it on.
//
// The default rule of the register hybrid gives each system its chunks of M rows (P chunk
// threads) and packs 256 / P systems into a block. That is right for large batches, but 256
// systems of 512 float rows then run as 64 blocks of 256 threads: half of an H100's 132 SMs hold
// nothing, and the others hold one block, far too few loads in flight for a memory-bound kernel.
// Two levers, neither changing what a block computes, only how it is cut:
//   - fewer systems per block, so that there are at least as many blocks as SMs;
//   - more chunk threads per system (shorter chunks: split_rows gives P chunks of n / P rows),
//     doubling P while the batch has fewer threads than `fill` blocks of 256 per SM and each
//     chunk keeps at least `min_rows` rows (shorter chunks move the work into the PCR steps of
//     the reduced system, log2 P of them, so the sweep finds where that stops paying).
#include <algorithm>
#include <cstdint>

namespace triax::detail::cuda {

/// The knobs of the spread (environment: TRIAX_CUDA_SMALL_FILL, TRIAX_CUDA_SMALL_ROWS; hybrid.cu).
struct SmallBatchKnobs {
  int fill = 3;      // wanted resident blocks of 256 threads per SM (3: what 80 registers allow)
  int min_rows = 4;  // the fewest rows a chunk thread keeps when P is doubled
};

/// The largest chunk threads per system and threads per block along axis 0 (chunk_block_threads
/// in hybrid_kernel.cuh, which this header does not include so that it stays host-only).
constexpr int small_batch_block_threads = 256;

struct ChunkSpread {
  int P;  // chunk threads per system
  int S;  // systems per block
};

/// The spread for `count` systems of n rows on `sms` SMs, from the default rule's P (a power of
/// two up to 32 or a multiple of 32, at most 256, n <= M P) and S. Returns the same P and S where
/// the batch already has the threads it wants. The result keeps P valid as above, S P a
/// multiple of 32 and at most 256, and n <= M P (P only grows).
inline ChunkSpread small_batch_spread(std::int64_t n, std::int64_t count, int P, int S, int sms,
                                      const SmallBatchKnobs& k) {
  constexpr int most = small_batch_block_threads;
  const std::int64_t wanted = std::int64_t(std::max(1, k.fill)) * std::max(1, sms) * most;
  if (count * P >= wanted) return {P, S};
  const int rows = std::max(2, k.min_rows);
  int p = P;
  // Doubling a power of two stays one; a multiple of 32 stays one.
  while (2 * p <= most && count * p < wanted && n >= std::int64_t(2) * p * rows) p *= 2;
  // As many systems per block as still leave a block for every SM (at least one system).
  int s = static_cast<int>(std::clamp<std::int64_t>(count / std::max(1, sms), 1, most / p));
  while (s * p % 32 != 0) ++s;
  return {p, s};
}

}  // namespace triax::detail::cuda
