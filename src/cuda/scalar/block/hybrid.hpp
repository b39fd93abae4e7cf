#pragma once
// Host side of the Thomas-PCR hybrid kernels (hybrid_kernel.cuh): which arrangement and chunk
// size a problem gets, the workspace of the long path, and the launch. warp_thomas_pcr and
// block_thomas_pcr are two families of configurations of this one machinery.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "core/problem.hpp"

namespace triax::detail::cuda {

enum class HybridFamily {
  warp,   // at most 32 chunk threads per system (Algorithms 10 and 11 as in paper 000)
  block,  // up to 256 chunk threads per system, and the long path beyond
};

/// How a block's threads map onto systems and chunks, and how rows reach them.
enum class Mapping {
  chunk_fastest,   // a system's chunk threads consecutive; rows through a shared-memory transpose
  chunk_direct,    // the same threads, each loading its own chunk with 16-byte vectors (aligned)
  chunk_shifted,   // the same, chunks cut from the vector boundary before each system's row 0
                   // (systems that start between vectors; the ends element by element)
  system_fastest,  // neighbouring systems in consecutive threads (axes >= 1)
  system_staged,   // the same threads, with a, b and c in shared memory (staged_kernel.cuh)
  system_pipelined,  // the same threads, persistent blocks streaming the next group of systems
                     // into shared memory while they solve one (pipelined_kernel.cuh)
};

/// One launch configuration. M: rows per thread (8, or 16 for float); P: chunk threads per
/// system in a block; S: systems per block; C: blocks per system, a thread-block cluster
/// (Hopper; neighbouring systems adjacent only; not in checked mode, where hybrid_run takes the
/// one-block choice of the same problem).
struct HybridConfig {
  Mapping map = Mapping::chunk_fastest;
  int M = 8;
  int P = 32;
  int S = 8;
  int C = 1;
};

/// How many of `slots` resident blocks (or clusters) the persistent pipelined kernel launches for
/// `groups` groups. Where each SM holds one block, as few as still take the same number of
/// rounds, so that every one launched runs a full share and the rest of the SMs stay free: 1024
/// groups on 66 clusters take 16 rounds either way, and on 64 float n = 1024 ran 0.6% faster
/// (other shapes level to 1.7%). With several blocks per SM, fewer blocks would load some SMs
/// less than others: float n = 64 and 128 (blocks of 128 and 256 threads) lost 2-4% that way, so
/// there every slot is taken (docs/algorithms.md, "Clusters in flight").
inline std::int64_t balanced_launch(std::int64_t groups, std::int64_t slots, int blocks_per_sm) {
  const std::int64_t launched = std::max<std::int64_t>(1, std::min(groups, slots));
  if (blocks_per_sm > 1 || groups <= launched) return launched;
  const std::int64_t rounds = (groups + launched - 1) / launched;
  return (groups + rounds - 1) / rounds;
}

/// The configuration the family uses for p; false when the family cannot take p.
template <class T>
bool hybrid_choose(const Problem& p, HybridFamily family, HybridConfig& cfg);

/// Device bytes the configuration needs (0 unless p.n > M * P: the long path).
template <class T>
std::size_t hybrid_workspace(const Problem& p, const HybridConfig& cfg);

/// Enqueues the solve on the stream. workspace: hybrid_workspace(p, cfg) bytes.
template <class T>
void hybrid_run(const Problem& p, const Operands<T>& ops, const HybridConfig& cfg, void* workspace,
                cudaStream_t stream);

/// The three entry points of an algorithm (cuda/launch/kernels.hpp) for one family: whether it
/// takes p, its workspace, and the solve with the configuration hybrid_choose gives.
template <class T>
bool hybrid_supports(const Problem& p, HybridFamily family) {
  HybridConfig cfg;
  return hybrid_choose<T>(p, family, cfg);
}
template <class T>
std::size_t hybrid_family_workspace(const Problem& p, HybridFamily family) {
  HybridConfig cfg;
  return hybrid_choose<T>(p, family, cfg) ? hybrid_workspace<T>(p, cfg) : 0;
}
template <class T>
void hybrid_solve(const Problem& p, const Operands<T>& ops, HybridFamily family, void* workspace,
                  cudaStream_t stream) {
  HybridConfig cfg;
  hybrid_choose<T>(p, family, cfg);
  hybrid_run<T>(p, ops, cfg, workspace, stream);
}

/// Whether cfg is a configuration hybrid_run accepts (P a power of two up to 32 or a multiple
/// of 32, S * P a multiple of 32 and at most 512, M = 8, or 16 for float; C = 1, or 2, 4 or 8
/// with P a power of two up to 32 for neighbouring systems adjacent). system_staged: S a power
/// of two up to 32, S * P up to 1024, and its shared memory within the current device's.
template <class T>
bool hybrid_config_valid(const HybridConfig& cfg);

}  // namespace triax::detail::cuda
