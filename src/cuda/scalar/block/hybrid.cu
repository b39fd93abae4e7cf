// Host side of the Thomas-PCR hybrid: configurations, the long path's recursion, launches. The
// kernels themselves are hybrid_kernel.cuh; every instantiation lives in this translation unit.
#include "cuda/scalar/block/hybrid.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "core/unified_units.hpp"
#include "cuda/scalar/block/chunk_split.cuh"
#include "cuda/scalar/block/hybrid_kernel.cuh"
#include "cuda/scalar/block/long_block.hpp"
#include "cuda/scalar/block/pipelined_kernel.cuh"
#include "cuda/scalar/block/small_batch.hpp"
#include "cuda/scalar/block/staged_kernel.cuh"
#include "cuda/cuda_check.hpp"
#include "cuda/launch/device_occupancy.hpp"
#include "cuda/launch/launch_kernel.hpp"
#include "cuda/solve_modes.cuh"

namespace triax::detail::cuda {
static_assert(small_batch_block_threads == chunk_block_threads,
              "small_batch.hpp's block is the chunk arrangement's");
namespace {

constexpr std::size_t workspace_alignment = 256;

std::size_t align_up(std::size_t v) {
  return (v + workspace_alignment - 1) / workspace_alignment * workspace_alignment;
}

int next_pow2(std::int64_t v) {
  int r = 1;
  while (r < v) r *= 2;
  return r;
}

/// The long path's rows per chunk: the largest M that a thread keeps without spilling.
template <class T>
constexpr int long_path_chunk = sizeof(T) == 4 ? 16 : 8;

bool fits_fused(std::int64_t n, const HybridConfig& cfg) {
  return n <= std::int64_t(cfg.M) * cfg.P * cfg.C;
}

/// Systems per block where neighbouring systems are adjacent, for P chunk threads in a block:
/// measured on the H100, whole 32-byte sectors per row (S * sizeof(T) >= 32) where the block
/// allows, up to 32 systems. Float blocks of about 256 threads up to P = 32 chunks (then 512),
/// double blocks of about 512 threads.
template <class T>
int systems_per_block(int P) {
  const int s_min = 32 / static_cast<int>(sizeof(T));
  const int threads = sizeof(T) == 4 && P <= 32 ? 256 : hybrid_max_threads;
  int S = std::clamp(threads / P, 1, 32);
  if (S < s_min && s_min * P <= hybrid_max_threads) S = s_min;
  while (S * P % 32 != 0) ++S;
  return S;
}

/// Shared memory a block of the current device may opt into (0 without a device).
int shared_optin_bytes() { return device_attribute<cudaDevAttrMaxSharedMemoryPerBlockOptin>(); }

/// A switch in the environment: "0" off, "1" wherever a configuration exists, anything else (or
/// unset, -1) the default rule of hybrid_choose. TRIAX_CUDA_HYBRID_STAGED: a, b and c staged in
/// shared memory; TRIAX_CUDA_HYBRID_CLUSTER: thread-block clusters.
int env_switch(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) return -1;
  const std::string_view w(v);
  return w == "0" ? 0 : w == "1" ? 1 : -1;
}

/// Whether chunk_fastest stores x's contiguous rows in 16-byte vectors (HybridShape::vector_stage;
/// its loads are asynchronous element copies, run_stage.cuh). Measured on an H200 (2026-11-28,
/// along x, % of the copy, per element / vectors): float n = 3000 36.1 / 38.4, 4000 41.1 / 43.1,
/// 1001 55.5 / 56.4, double 166 54.0 / 55.2; nowhere more than 1% worse. Groups of fewer than
/// 4 lanes (P < 4) cannot take a run's ends (up to 3 elements each).
/// TRIAX_CUDA_HYBRID_VECTOR_STAGE=0 / 1: never / wherever P >= 4.
template <class T>
bool vector_stage_on(int P) {
  const int sw = env_switch("TRIAX_CUDA_HYBRID_VECTOR_STAGE");
  if (P < 4) return false;
  return sw != 0;
}

/// Whether the register kernel reads a, b, c and d as Unified-Vector units (HybridShape::unified):
/// where they are components 0..3 of one aligned buffer (core/unified_units.hpp). The rows of
/// Flat-like neighbours are then whole units side by side, so the staged kernel's longer runs buy
/// nothing and its per-element copies would read every sector four times: hybrid_run takes the
/// register kernel (docs/algorithms.md, "Unified-Vector units"). By default only in float with
/// 256 < n <= 512, where that move from the staged kernel made it 4-9% faster; elsewhere the unit
/// loads measured from 4% faster (float n = 64, 25600 systems) to 8% slower than the per-operand
/// path, slower on 12 of those 14 rows and level on one (H100, 2026-11-28,
/// bench/results/layouts/gpu-h100-uv31.txt). TRIAX_CUDA_UNIFIED=1: wherever the units are found
/// (the tests), =0: never; read at every solve.
template <class T>
bool unified_path(const Problem& p, const Operands<T>& ops) {
  const int sw = env_switch("TRIAX_CUDA_UNIFIED");
  if (sw == 0) return false;
  if (sw == -1 && !(sizeof(T) == 4 && p.n > 256 && p.n <= 512)) return false;
  const void* const ptrs[4] = {ops.a, ops.b, ops.c, ops.d};
  return unified_units(p, sizeof(T), ptrs);
}

/// A positive integer knob from the environment, or `fallback` when unset or not one.
int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  const int got = v == nullptr ? 0 : std::atoi(v);
  return got > 0 ? got : fallback;
}

/// Whether the small-batch spread (small_batch.hpp) applies, and its knobs.
/// TRIAX_CUDA_SMALL_BATCH=1 turns it on, anything else leaves today's rule: it is off by default
/// until the H100 sweep (bench --suite small, docs/algorithms.md "Small batches") says where it
/// wins. TRIAX_CUDA_SMALL_FILL: blocks of 256 threads wanted per SM; TRIAX_CUDA_SMALL_ROWS: the
/// fewest rows per chunk thread. Read at every choice, so one process times every setting.
bool small_batch_on(SmallBatchKnobs& k) {
  if (env_switch("TRIAX_CUDA_SMALL_BATCH") != 1) return false;
  k.fill = env_int("TRIAX_CUDA_SMALL_FILL", k.fill);
  k.min_rows = env_int("TRIAX_CUDA_SMALL_ROWS", k.min_rows);
  return true;
}

/// Whether the current device launches thread-block clusters (Hopper and later).
bool device_has_clusters() { return device_attribute<cudaDevAttrClusterLaunch>() != 0; }

/// The staged configuration for P chunk threads of M rows: the most systems per block (a power
/// of two up to 32) that max_threads and the device's shared memory allow, with runs of at
/// least 16 bytes per row. False where there is none.
template <class T>
bool staged_choose(int M, int P, int max_threads, HybridConfig& cfg) {
  HybridConfig c{Mapping::system_staged, M, P, 32, 1};
  for (; c.S * static_cast<int>(sizeof(T)) >= 16; c.S /= 2) {
    if (c.S * P <= max_threads && hybrid_config_valid<T>(c)) {
      cfg = c;
      return true;
    }
  }
  return false;
}

/// The long path: K chunks of at most long_path_chunk rows, K a multiple of P. The reduced
/// system has 2 rows per tile of long_path_tile_chunks chunks along any axis (hybrid_kernel.cuh),
/// or 2 per chunk (2K) with TRIAX_CUDA_HYBRID_LONG_TILES=0.
struct LongSplit {
  HybridShape shape;
  std::int64_t chunks;  // K
  int tiles;            // K / P: blocks along the grid's y
};

/// Whether the long path reduces warp tiles (where the layout allows): a tuning aid,
/// TRIAX_CUDA_HYBRID_LONG_TILES=0 takes a pair per chunk everywhere, for comparisons on the device
/// (docs/notes/2026-11-27-longsys.md). Read once per process: a plan sizes its workspace by it
/// when made, and a solve must split the rows the same way.
bool long_tiles_on() {
  static const bool on = env_switch("TRIAX_CUDA_HYBRID_LONG_TILES") != 0;
  return on;
}

/// Whether systems of up to 512 chunks (from 385 in float, 257 in double) along axes >= 1 take
/// clusters of 16 blocks (a non-portable size) instead of the long path:
/// TRIAX_CUDA_HYBRID_CLUSTER16=0 keeps the long path (docs/algorithms.md, "Past 256 chunks").
/// Read at every choice, as the other switches; a plan's workspace holds the long path's either
/// way (hybrid_workspace), which checked mode takes.
bool wide_clusters_on() { return env_switch("TRIAX_CUDA_HYBRID_CLUSTER16") != 0; }

/// Whether clusters take as many blocks as hold the chunks (3, 5, 6, ... 16) rather than the power
/// of two at or above (TRIAX_CUDA_HYBRID_CLUSTER_EXACT=1; off by default until measured): fewer
/// blocks per group, each with chunks of more rows; float then takes clusters of 16 from 257
/// chunks, as double does (the rows a power of two left idle were why float started past 384).
bool exact_clusters_on() { return env_switch("TRIAX_CUDA_HYBRID_CLUSTER_EXACT") == 1; }

/// Whether a float system of 257 to 512 chunks along x takes one block of 512 threads instead of
/// the long path: TRIAX_CUDA_HYBRID_WIDE_X=0 keeps the long path. Read at every choice, as
/// wide_clusters_on, with the same workspace.
bool wide_x_on() { return env_switch("TRIAX_CUDA_HYBRID_WIDE_X") != 0; }

/// The long path's block along axes >= 1 (long_block.hpp) asked for by
/// TRIAX_CUDA_HYBRID_LONG_AXES=P,S (e.g. 128,4: round 1's), or {0, 0} for the default rule: a
/// tuning aid for comparisons on the device. Read once per process, like long_tiles_on (a plan's
/// workspace is sized by the block when made); a value the tiles cannot take is said once and
/// ignored.
LongBlock long_axes_wanted() {
  static const LongBlock wanted = [] {
    const char* v = std::getenv("TRIAX_CUDA_HYBRID_LONG_AXES");
    LongBlock b{0, 0};
    if (v == nullptr) return b;
    if (std::sscanf(v, "%d,%d", &b.P, &b.S) != 2 || !long_block_valid(b)) {
      std::fprintf(stderr,
                   "triax: TRIAX_CUDA_HYBRID_LONG_AXES=%s ignored (P,S: P a multiple of 32, "
                   "S P <= 512)\n",
                   v);
      return LongBlock{0, 0};
    }
    return b;
  }();
  return wanted;
}

template <class T>
LongSplit long_split(const Problem& p, const HybridConfig& cfg) {
  constexpr int M = long_path_chunk<T>;
  const std::int64_t wanted = (p.n + M - 1) / M;
  LongSplit ls{};
  ls.shape =
      split_rows(p.n, static_cast<int>(std::min<std::int64_t>(wanted, 1 << 30)), cfg.P, cfg.S);
  ls.chunks = (ls.shape.active + cfg.P - 1) / cfg.P * std::int64_t(cfg.P);
  ls.tiles = static_cast<int>(ls.chunks / cfg.P);
  // Along axis 0 a tile is a warp's own chunks; along axes >= 1 (system_fastest) its chunks
  // lie across S warps and meet in shared memory (hybrid_kernel.cuh). Either way P must be a
  // multiple of the tile, which the long path's P = 128 is.
  ls.shape.tiled = cfg.P % long_path_tile_chunks == 0 && long_tiles_on();
  ls.shape.reduced_rows = long_path_reduced_rows(ls.chunks, ls.shape.tiled);
  if (cfg.map != Mapping::system_fastest) {
    ls.shape.red_sys_stride = ls.shape.reduced_rows;
    ls.shape.red_row_stride = 1;
  } else {
    ls.shape.red_sys_stride = 1;
    ls.shape.red_row_stride = p.count;
  }
  return ls;
}

/// The batch of reduced systems in the workspace, as a Problem of its own.
template <class T>
Problem reduced_problem(const Problem& p, const LongSplit& ls) {
  Problem r{};
  r.n = ls.shape.reduced_rows;
  r.count = p.count;
  r.batch_rank = 1;
  r.batch_extents[0] = p.count;
  for (int op = 0; op < operand_count; ++op) {
    r.map[op].offset = 0;
    r.map[op].row_stride = ls.shape.red_row_stride;
    r.map[op].batch_strides[0] = ls.shape.red_sys_stride;
  }
  return r;
}

template <class T, int M, Mapping Map, Phase Ph, bool Acc, bool Chk>
void launch_one(const Problem& p, const Operands<T>& ops, const HybridShape& sh, int tiles,
                cudaStream_t stream) {
  const int threads = sh.S * sh.P;
  const HybridSmem<T> lay = HybridSmem<T>::make(sh, M, Map, Ph);
  const std::size_t smem = lay.bytes(threads / 32, sh.S);
  auto kernel = hybrid_kernel<T, M, Map, Ph, Acc, Chk>;
  allow_shared_memory(kernel, smem);
  const std::int64_t blocks = (p.count + sh.S - 1) / sh.S;
  const dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>(tiles));
  if constexpr (Ph == Phase::clustered) {
    // The `tiles` blocks of a column (one group of S systems) form one cluster.
    launch_cluster_kernel(kernel, grid, threads, smem, stream, static_cast<unsigned>(tiles), p, ops,
                          sh);
  } else {
    launch_kernel(kernel, grid, threads, smem, stream, p, ops, sh);
  }
}

template <class T, Mapping Map, Phase Ph, bool Acc, bool Chk>
void launch_m(int M, const Problem& p, const Operands<T>& ops, const HybridShape& sh, int tiles,
              cudaStream_t stream) {
  constexpr bool one_pass = Ph == Phase::fused || Ph == Phase::clustered;
  if constexpr (one_pass && sizeof(T) == 4) {
    if (M == 8) return launch_one<T, 8, Map, Ph, Acc, Chk>(p, ops, sh, tiles, stream);
    if constexpr (Ph == Phase::fused && Map != Mapping::system_fastest) {  // along x only
      if (M == 12) return launch_one<T, 12, Map, Ph, Acc, Chk>(p, ops, sh, tiles, stream);
    }
    return launch_one<T, 16, Map, Ph, Acc, Chk>(p, ops, sh, tiles, stream);
  } else {
    (void)M;  // double: 8 rows only; the long path: long_path_chunk
    launch_one<T, one_pass ? 8 : long_path_chunk<T>, Map, Ph, Acc, Chk>(p, ops, sh, tiles, stream);
  }
}

/// The pipelined kernel's precondition on the layout: a group's S systems adjacent in a, b, c
/// and d (unit stride along the first batch dimension, which S divides) and every row run of a
/// group at a multiple of 16 bytes from the pointer (offsets, row strides and the other batch
/// strides).
template <class T>
bool pipelined_layout_ok(const Problem& p, int S) {
  constexpr int V = 16 / sizeof(T);
  if (p.batch_rank < 1 || p.batch_extents[0] % S != 0) return false;
  for (int op = 0; op < op_x; ++op) {
    const OperandMap& m = p.map[op];
    if (m.batch_strides[0] != 1 || m.row_stride % V != 0 || m.offset % V != 0) return false;
    for (int k = 1; k < p.batch_rank; ++k) {
      if (m.batch_strides[k] % V != 0) return false;
    }
  }
  return true;
}

/// ... and on the pointers: a, b, c and d 16-byte aligned.
template <class T>
bool pipelined_pointers_ok(const Operands<T>& ops) {
  const T* ptrs[op_x] = {ops.a, ops.b, ops.c, ops.d};
  for (const T* ptr : ptrs) {
    if (reinterpret_cast<std::uintptr_t>(ptr) % 16 != 0) return false;
  }
  return true;
}

/// The staged kernel: one block per group of S systems, or (Clustered) a cluster of sh.C blocks.
/// Its copies of a, b and c go in 16-byte pieces where the layout streams groups as the
/// pipelined kernel's does (TRIAX_CUDA_HYBRID_STAGED_VECTOR=0: never).
template <class T, bool Clustered, bool Acc, bool Chk>
void launch_staged(int M, const Problem& p, const Operands<T>& ops, const HybridShape& sh,
                   cudaStream_t stream) {
  const auto launch = [&](auto kernel, int m) {
    const std::size_t smem = StagedSmem<T>::make(m, sh.P, sh.S, Clustered).bytes(sh.S);
    const int threads = sh.S * sh.P;
    allow_shared_memory(kernel, smem);
    const dim3 grid(static_cast<unsigned>((p.count + sh.S - 1) / sh.S),
                    static_cast<unsigned>(Clustered ? sh.C : 1));
    if constexpr (Clustered) {
      launch_cluster_kernel(kernel, grid, threads, smem, stream, static_cast<unsigned>(sh.C), p,
                            ops, sh);
    } else {
      launch_kernel(kernel, grid, threads, smem, stream, p, ops, sh);
    }
  };
  const bool vector = env_switch("TRIAX_CUDA_HYBRID_STAGED_VECTOR") != 0 &&
                      sh.S * static_cast<int>(sizeof(T)) >= 16 && pipelined_pointers_ok(ops) &&
                      pipelined_layout_ok<T>(p, sh.S);
  if constexpr (sizeof(T) == 4) {
    if (M == 16) {
      if (vector) return launch(staged_kernel<T, 16, Clustered, Acc, Chk, true>, 16);
      return launch(staged_kernel<T, 16, Clustered, Acc, Chk, false>, 16);
    }
  }
  if (vector) return launch(staged_kernel<T, 8, Clustered, Acc, Chk, true>, 8);
  launch(staged_kernel<T, 8, Clustered, Acc, Chk, false>, 8);
}

/// Clusters of C blocks of Kernel the device holds at once with this block and shared memory
/// size, at least 1; like blocks_per_sm, queried once per kernel, device and shape (the query
/// runs on the host at every solve otherwise, between the caller's stream events).
template <auto Kernel>
int clusters_on_device(int threads, std::size_t smem, int C) {
  static std::atomic<std::uint64_t> known{0};  // device | C | threads | smem | clusters; 0: none
  int device = 0;
  TRIAX_CUDA_CHECK(cudaGetDevice(&device));
  const std::uint64_t key = (std::uint64_t(device) << 56) | (std::uint64_t(C) << 52) |
                            (std::uint64_t(threads) << 40) | (std::uint64_t(smem) << 16);
  const std::uint64_t k = known.load(std::memory_order_relaxed);
  if (k != 0 && (k & ~std::uint64_t(0xffff)) == key) return static_cast<int>(k & 0xffff);
  allow_cluster_blocks(Kernel, static_cast<unsigned>(C));
  const ClusterLaunch shape(dim3(1, static_cast<unsigned>(C)), dim3(static_cast<unsigned>(threads)),
                            smem, nullptr, static_cast<unsigned>(C));
  int clusters = 0;
  TRIAX_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, Kernel, shape.config()));
  clusters = std::clamp(clusters, 1, 0xffff);
  known.store(key | std::uint64_t(clusters), std::memory_order_relaxed);
  return clusters;
}

/// Whether the pipelined kernel stages per warp (else block-wide): from P = 16 chunks (n > 128
/// in float, n > 64 in double). Measured on the H100 (docs/algorithms.md, "Pipelined blocks";
/// % of the in-run copy, block-wide / per warp): float 256^3 along y 89.0, 88.5 / 91.9, 91.5,
/// along z 88.5, 88.7 / 91.2, 91.6, 256x128x512 along z 82.1, 82.1 / 85.0, 85.2, 256x512x128
/// along y 85.2, 85.9 / 84.1, 84.7; at n = 128 along z 93.0, 93.0 / 91.2, 90.8. Double's per-warp
/// kernels spilled 24-96 bytes and lost until the loop was trimmed ("Instructions per group"):
/// since, 256x128x512 along z 2701-2707 / 2734-2745 GB/s, along y 2865-2869 / 2857-2863.
template <class T>
bool pipelined_warp_staged(int P) {
  return P >= 16;
}

/// The pipelined kernel's shared memory.
template <class T>
std::size_t pipelined_smem_bytes(std::int64_t n, int P, int S, int C) {
  return PipelinedSmem<T>::make(pipelined_warp_staged<T>(P), static_cast<int>(n), pipelined_rows<T>,
                                P, S, C)
      .bytes();
}

/// A testing aid: TRIAX_CUDA_HYBRID_PERSISTENT=k launches the pipelined kernel with at most k
/// blocks (or clusters), so that each loops over many groups even on a small problem. Read at
/// every launch, as the other switches are read at every choice: tests set it while they run, and
/// one getenv is small beside a launch.
inline std::int64_t persistent_limit() {
  const char* v = std::getenv("TRIAX_CUDA_HYBRID_PERSISTENT");
  const long long k = v == nullptr ? 0 : std::atoll(v);
  return k > 0 ? static_cast<std::int64_t>(k) : INT64_MAX;
}

/// One pipelined kernel: as many blocks as the device holds at once (at most one per group, and
/// no more than the rounds need: balanced_launch), each looping over the groups of S systems.
template <auto Kernel, class T>
void launch_pipelined_kernel(const Problem& p, const Operands<T>& ops, const HybridShape& sh,
                             cudaStream_t stream) {
  const std::size_t smem = pipelined_smem_bytes<T>(p.n, sh.P, sh.S, sh.C);
  const int threads = sh.S * sh.P;
  allow_shared_memory(Kernel, smem);
  const std::int64_t groups = p.count / sh.S;
  const int per_sm = blocks_per_sm<Kernel>(threads, smem);
  if (sh.C > 1) {
    // As many clusters as the device holds at once (a cluster's blocks share a GPC, so fewer
    // than the blocks per SM alone would say), each looping over its groups.
    const int clusters = clusters_on_device<Kernel>(threads, smem, sh.C);
    const auto columns = static_cast<unsigned>(
        std::min(balanced_launch(groups, clusters, per_sm), persistent_limit()));
    launch_cluster_kernel(Kernel, dim3(columns, static_cast<unsigned>(sh.C)), threads, smem, stream,
                          static_cast<unsigned>(sh.C), p, ops, sh);
    return;
  }
  const std::int64_t resident =
      std::int64_t(per_sm) * device_attribute<cudaDevAttrMultiProcessorCount>();
  const auto blocks = static_cast<unsigned>(
      std::min(balanced_launch(groups, resident, per_sm), persistent_limit()));
  launch_kernel(Kernel, dim3(blocks), threads, smem, stream, p, ops, sh);
}

/// The pipelined kernel with 16 rows per thread in float, 8 in double (hybrid_config_valid),
/// rows of 64 or 128 bytes, staged per warp or block-wide.
template <class T, bool Acc>
void launch_pipelined(const Problem& p, const Operands<T>& ops, const HybridShape& sh,
                      cudaStream_t stream) {
  constexpr int M = pipelined_rows<T>;
  constexpr int run64 = 64 / sizeof(T);
  const auto launch = [&]<int S>() {
    if (pipelined_warp_staged<T>(sh.P)) {
      if (sh.C > 1) {
        return launch_pipelined_kernel<pipelined_kernel<T, M, S, Acc, true, true>>(p, ops, sh,
                                                                                   stream);
      }
      return launch_pipelined_kernel<pipelined_kernel<T, M, S, Acc, true, false>>(p, ops, sh,
                                                                                  stream);
    }
    launch_pipelined_kernel<pipelined_kernel<T, M, S, Acc, false, false>>(p, ops, sh, stream);
  };
  if (sh.S == run64) return launch.template operator()<run64>();
  launch.template operator()<2 * run64>();
}

template <class T, Phase Ph, bool Acc, bool Chk>
void launch_phase(const HybridConfig& cfg, const Problem& p, const Operands<T>& ops,
                  const HybridShape& sh, int tiles, cudaStream_t stream) {
  if (cfg.map == Mapping::system_pipelined) {
    if constexpr ((Ph == Phase::fused || Ph == Phase::clustered) && !Chk) {
      launch_pipelined<T, Acc>(p, ops, sh, stream);
    }
  } else if (cfg.map == Mapping::system_staged) {
    if constexpr (Ph == Phase::fused || Ph == Phase::clustered) {
      launch_staged<T, Ph == Phase::clustered, Acc, Chk>(cfg.M, p, ops, sh, stream);
    }
  } else if constexpr (Ph == Phase::clustered) {
    launch_m<T, Mapping::system_fastest, Ph, Acc, Chk>(cfg.M, p, ops, sh, tiles, stream);
  } else if (cfg.map == Mapping::system_fastest) {
    launch_m<T, Mapping::system_fastest, Ph, Acc, Chk>(cfg.M, p, ops, sh, tiles, stream);
  } else if (Ph == Phase::fused && cfg.map == Mapping::chunk_direct) {
    launch_m<T, Mapping::chunk_direct, Phase::fused, Acc, Chk>(cfg.M, p, ops, sh, tiles, stream);
  } else if (Ph == Phase::fused && cfg.map == Mapping::chunk_shifted) {
    launch_m<T, Mapping::chunk_shifted, Phase::fused, Acc, Chk>(cfg.M, p, ops, sh, tiles, stream);
  } else {
    launch_m<T, Mapping::chunk_fastest, Ph, Acc, Chk>(cfg.M, p, ops, sh, tiles, stream);
  }
}

/// Whether the pipelined kernel's shared memory for n rows fits the current device.
template <class T>
bool pipelined_fits(std::int64_t n, const HybridConfig& cfg) {
  if (n > std::int64_t(cfg.M) * cfg.P * cfg.C) return false;
  return pipelined_smem_bytes<T>(n, cfg.P, cfg.S, cfg.C) <=
         static_cast<std::size_t>(shared_optin_bytes());
}

/// The pipelined configuration for a fused one (same M and P): rows of 128 bytes, else 64, whose
/// block has at most 512 threads, whose staging buffer fits and whose groups p's layout allows.
/// False where there is none. (Float 128-byte rows measured 1.7-3.3 points above 64-byte ones
/// at n = 64 and 128 and 0.3-1.0 above along z at n = 256, 3.5 below along y there.)
template <class T>
bool pipelined_choose(const Problem& p, HybridConfig& cfg) {
  // Float clusters of two and four blocks (512 < n <= 2048): 128-byte rows in twice the blocks
  // of half the chunk threads. Measured on the H100 (docs/algorithms.md, "Pipelined clusters"):
  // n = 2048 along z 78.2-79.7 -> 81.5-81.7% of the copy, along y 82.0 -> 83.2. At n = 1024 the
  // two blocks of 64-byte rows were level or ahead on some machines (86-87 against 85 along y)
  // and far behind on another (2350-2372 against 2635-2637 GB/s along z, 2477-2512 against
  // 2752-2757 along y, the same build), and behind wherever rows lie 256 KiB apart: each
  // 128-byte line then holds the rows of two neighbouring groups, which two clusters read, and
  // where those drift apart the line is fetched twice (float 512x256x1024 along z: 2.50 GB read
  // for the 2.15 of a, b, c and d; in four blocks 2.20 GB; docs/algorithms.md, "Rows far
  // apart"). In double the same halving lost to 128-byte rows in the same blocks (n = 1024,
  // 8,16,16,8 against 8,32,16,4: along z 2634-2643 / 2652-2658 GB/s, along y 2681-2689 /
  // 2736-2741).
  if (sizeof(T) == 4 && (cfg.C == 2 || cfg.C == 4) && cfg.P % 2 == 0) {
    const HybridConfig c{Mapping::system_pipelined, cfg.M, cfg.P / 2,
                         128 / static_cast<int>(sizeof(T)), 2 * cfg.C};
    if (hybrid_config_valid<T>(c) && pipelined_fits<T>(p.n, c) && pipelined_layout_ok<T>(p, c.S)) {
      cfg = c;
      return true;
    }
  }
  for (int run : {128, 64}) {
    const HybridConfig c{Mapping::system_pipelined, cfg.M, cfg.P, run / static_cast<int>(sizeof(T)),
                         cfg.C};
    if (hybrid_config_valid<T>(c) && pipelined_fits<T>(p.n, c) && pipelined_layout_ok<T>(p, c.S)) {
      cfg = c;
      return true;
    }
  }
  return false;
}

/// Checked mode, long path: info holds -(forward breakdown row) or the last bad stored row.
__global__ void info_abs_kernel(int* info, std::int64_t count) {
  const std::int64_t s = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (s < count && info[s] < 0) info[s] = -info[s];
}

/// Tuning aid: TRIAX_CUDA_HYBRID="M,P,S[,C]" replaces the chosen fused configuration where that
/// is valid and holds the whole system (docs/algorithms.md); anything else leaves the choice
/// alone.
template <class T>
void apply_tuning_override(std::int64_t n, int max_p, bool allow_clusters, HybridConfig& cfg);

}  // namespace

template <class T>
bool hybrid_config_valid(const HybridConfig& cfg) {
  const bool p_pow2 = cfg.P >= 1 && cfg.P <= 32 && (cfg.P & (cfg.P - 1)) == 0;
  const bool chunk_major = cfg.map == Mapping::chunk_fastest || cfg.map == Mapping::chunk_direct ||
                           cfg.map == Mapping::chunk_shifted;
  const bool m_ok = cfg.M == 8 || (cfg.M == 16 && sizeof(T) == 4) ||
                    (cfg.M == 12 && sizeof(T) == 4 && chunk_major && cfg.C == 1);
  // Clusters: neighbouring systems adjacent, at most 32 chunk threads per block (the block's
  // reduced rows in one warp per system), C from 2 to 16 (pair_solve over the power of two of
  // lanes at or above C, reduced_solve.cuh; past 8 a non-portable size, launch_kernel.hpp).
  const bool c_ok =
      cfg.C == 1 || (cfg.C >= 2 && cfg.C <= 16 && p_pow2 &&
                     (cfg.map == Mapping::system_fastest || cfg.map == Mapping::system_staged ||
                      (cfg.map == Mapping::system_pipelined && pipelined_warp_staged<T>(cfg.P))));
  const int threads = cfg.S * cfg.P;
  if (!m_ok || !c_ok || cfg.S < 1 || threads % 32 != 0) return false;
  if (cfg.map == Mapping::system_pipelined) {
    // Row runs of 64 or 128 bytes, 16 rows per thread in float and 8 in double (the instances
    // built); P chunk threads as the register kernel takes them.
    const int run = cfg.S * static_cast<int>(sizeof(T));
    const bool s_ok = run == 64 || run == 128;
    const bool rows_ok = cfg.M == pipelined_rows<T>;
    const bool p_ok = p_pow2 || (cfg.P > 32 && cfg.P % 32 == 0);
    return c_ok && s_ok && rows_ok && p_ok && threads <= hybrid_max_threads;
  }
  if (cfg.map == Mapping::system_staged) {
    const bool p_ok = p_pow2 || (cfg.P > 32 && cfg.P % 32 == 0);
    const bool s_ok = cfg.S <= 32 && (cfg.S & (cfg.S - 1)) == 0;
    if (!p_ok || !s_ok || threads > staged_max_threads) return false;
    const std::size_t smem = StagedSmem<T>::make(cfg.M, cfg.P, cfg.S, cfg.C > 1).bytes(cfg.S);
    return smem <= static_cast<std::size_t>(shared_optin_bytes());
  }
  const bool p_ok = p_pow2 || (cfg.P > 32 && cfg.P <= hybrid_max_threads && cfg.P % 32 == 0);
  // A system's chunk threads adjacent (axis 0): blocks of at most chunk_block_most_threads (256
  // for 12-row float chunks), which the kernel's register budget assumes (HybridBounds).
  const int most = cfg.map == Mapping::system_fastest ? hybrid_max_threads
                   : cfg.M == 12                      ? chunk_block_threads
                                                      : chunk_block_most_threads;
  return p_ok && threads <= most;
}

namespace {

/// Past this many chunks a system along axes >= 1 is shared by the blocks of a cluster: measured
/// on the H100 (docs/algorithms.md, "Clusters"), float from n = 513 (n = 1024 along y: 70% of the
/// copy against 63% in one block), double from n = 513 (n = 512: 84% against 88% in one block;
/// n = 1024: 77% against 63%).
template <class T>
constexpr std::int64_t cluster_min_chunks = sizeof(T) == 4 ? 32 : 64;

/// The clustered configuration (Hopper; axes >= 1) for a system of `chunks` chunks of M rows:
/// 32 chunk threads per block, C the power of two of blocks that hold the chunks (2 to
/// `most_blocks`, 8 or 16; with exact_clusters_on, the blocks themselves), rows read in 64-byte
/// runs: staged blocks of 16 systems (float; 512 threads) or 8 (double), else register blocks of
/// 8 systems (256 threads). False where one block holds the chunks or `most_blocks` do not.
template <class T>
bool cluster_choose(std::int64_t chunks, int M, bool staged, int most_blocks, HybridConfig& cfg) {
  constexpr int P = 32;
  const std::int64_t blocks = (chunks + P - 1) / P;
  if (blocks < 2 || blocks > most_blocks) return false;
  const int C = exact_clusters_on() ? static_cast<int>(blocks) : next_pow2(blocks);
  HybridConfig c{Mapping::system_fastest, M, P, 8, C};
  if (staged) {
    c.map = Mapping::system_staged;
    c.S = 64 / static_cast<int>(sizeof(T));
  }
  if (!hybrid_config_valid<T>(c)) return false;
  cfg = c;
  return true;
}

/// What hybrid_choose may take beyond one block per group of systems: checked mode takes
/// neither, a layout the pipelined kernel cannot stream takes no pipelining, Unified-Vector
/// units take no staging (hybrid_run). `wide`: past 256 chunks, clusters of 16 (axes >= 1) and
/// blocks of 512 chunks (along x) rather than the long path; off where the long path's
/// workspace is sized (hybrid_workspace).
struct Allowed {
  bool clusters = true;
  bool pipelined = true;
  bool staged = true;
  bool wide = true;
};

/// hybrid_choose, within what is allowed.
template <class T>
bool choose(const Problem& p, HybridFamily family, Allowed allowed, HybridConfig& cfg) {
  const std::int64_t n = p.n;
  if (n < 1 || p.count < 1) return false;
  // Axis 0 (d's rows contiguous): a system's chunk threads side by side; else neighbouring
  // systems side by side.
  const bool rows_contiguous = p.map[op_d].row_stride == 1 || n == 1;
  cfg.map = rows_contiguous ? Mapping::chunk_direct : Mapping::system_fastest;
  const int max_p = family == HybridFamily::warp ? 32 : 256;
  // Along x, one float system of up to 512 chunks (n <= 8192) in a block of 512 threads of its
  // own rather than the long path (wide_x_on). On an H200, % of the copy, long path -> one block:
  // n = 4100, 4697, 4742 26.8-29.8 -> 52.0-55.2, 5000 (base one element off) 24.7 -> 45.1, 7001
  // 30.0 -> 37.2, 6000 34.2 -> 35.5, 8192 34.5 -> 38.3. Double lost (n = 2050-4096: 0.75-0.96x; its
  // chunk's rows alone take 64 of the 128 registers, and one block an SM overlaps nothing), so it
  // keeps the long path (docs/notes/2026-11-29-session19.md). The chunk size rule below still
  // counts 256 threads (float 16-row chunks past 2048 rows).
  const int max_fused = sizeof(T) == 4 && family == HybridFamily::block && rows_contiguous &&
                                allowed.wide && wide_x_on()
                            ? 512
                            : max_p;
  // Rows per thread. What keeps enough loads in flight is the bytes each thread asks for (its
  // registers bound the threads per SM), so where neighbouring systems share a row (axes >= 1)
  // float chunks are 16 rows, as many bytes as 8 double rows: 76-92% of the copy against
  // 40-75% with 8 on the H100 (docs/algorithms.md). Along axis 0, 8-row float chunks already
  // run at the copy's speed; 16 where 8 would need more chunk threads than the family has, and
  // where 16 keep a system in one warp that 8 would spread over two (256 < n <= 512: on an H200
  // n = 257 and 300 took 0.91x and 0.93x the time of P = 64; where 16 rows would only halve a
  // warp's P, n = 93 and 166, they took 1.23x and 1.08x; docs/notes/2026-11-28-session12.md).
  // (16 doubles would need more than the 128 registers a 512-thread block leaves.)
  //
  // Rows whose systems start between 16-byte vectors are read from the vector boundary before
  // row 0 (chunk_shifted, chunk_split.cuh): the chunks then hold up to V - 1 rows more than n
  // (with 16-byte aligned pointers, as the plan assumes here, max_vector_shift of them). Counted
  // where that changes neither M nor, within a warp, P (but from one thread to two), and the
  // family still holds them: on an H200 the shifted reads with P doubled within a warp, or
  // float's 16 rows for 255, ran 0.85-0.94x the staged kernel (126 in 133 along x: 32 threads
  // against 16; 63 in 70: 16 against 8), while one more warp past 32 threads paid (float 1023
  // along x: 1.13x) and so did two threads for one (float n = 7: 1.21-1.41x;
  // docs/notes/2026-11-28-session13.md).
  //
  // Along x, where 16 float rows would keep a system in one warp, 12 where they hold it with
  // room for a shift of up to V - 1 rows (256 < n <= 381; a shift never changes M): 80
  // registers against 95, three blocks an SM against two. On an H200, n = 257, 300 and 301
  // ran 1.24x, 1.17x and 1.14x faster; past 2048 rows (up to 256 threads) 12 rows ran slower
  // (n = 2500 and 3001: 0.82x and 0.93x), so 16 stay there (TRIAX_CUDA_HYBRID_ROWS12=0: 16
  // everywhere; docs/notes/2026-11-28-session14.md).
  //
  // Past a warp along x (block family), 12 float rows where their threads hold the system, with
  // room for the shift, in 5% fewer rows than 8 or 16 would (idle rows past n cost loads and
  // steps), up to 192 threads: on an H200 n = 1023, 1024, 1136 and 2049 ran 1.09x, 1.03x, 1.21x
  // and 1.06x faster; where the rows were level (513, 563, 701, 1501) 12 ran 0.93-1.10x, where
  // 12 idled more (768, 1280, 1536) or took 224-256 threads (2500, 3001, 3069) 0.82-0.93x
  // (scripts/sweep-rows-x; docs/notes/2026-11-29-session15.md).
  const bool twelve_rows = env_switch("TRIAX_CUDA_HYBRID_ROWS12") != 0;
  const auto threads_for = [](std::int64_t rows, int m) {
    const std::int64_t c = (rows + m - 1) / m;
    return c <= 32 ? std::int64_t(next_pow2(c)) : (c + 31) / 32 * 32;
  };
  const auto rows_per_thread = [&](std::int64_t rows) {
    constexpr std::int64_t most_shift = 16 / sizeof(T) - 1;
    const bool one_warp = rows_contiguous && rows > 8 * 32 && rows <= 16 * 32;
    const bool wide = sizeof(T) == 4 && (!rows_contiguous || rows > 8 * max_p || one_warp);
    if (wide && twelve_rows && one_warp && rows + most_shift <= 12 * 32) return 12;
    const int m = wide ? 16 : 8;
    if (sizeof(T) == 4 && rows_contiguous && twelve_rows && rows > 16 * 32 && max_p > 32) {
      const std::int64_t r = rows + most_shift, p12 = threads_for(r, 12);
      if (p12 <= 192 && 20 * 12 * p12 < 19 * m * threads_for(r, m)) return 12;
    }
    return m;
  };
  //
  // Where the shift does not fit that way within a warp, 12-row float chunks over the threads
  // n alone would have, if they hold n + shift: on an H200 n = 31, 63, 127 and 255 along x ran
  // 1.44x, 1.15x, 1.15x and 1.16x faster than staged (80.5-82.6% of the copy;
  // TRIAX_CUDA_HYBRID_SHIFTED12=0: staged). Past a warp the measurements did not settle a rule
  // (12 rows over fewer threads: 0.94-1.20x), so none is taken there
  // (docs/notes/2026-11-28-session14.md).
  std::int64_t held = n;
  int shifted_m = 0;  // the rows per thread the shifted rows were fitted to, if any
  if (env_switch("TRIAX_CUDA_HYBRID_SHIFTED") != 0 && rows_contiguous &&
      !layout_in_vectors<T>(p)) {
    const std::int64_t wider = n + max_vector_shift<T>(p.map[op_d].offset, p, op_d);
    const int m = rows_per_thread(n);
    const std::int64_t pn = threads_for(n, m), pw = threads_for(wider, m);
    if (rows_per_thread(wider) == m && (pw == pn || pn == 1 || pn > 32) && pw <= max_fused) {
      held = wider;
    } else if (sizeof(T) == 4 && m < 12 && pn <= 32 && wider <= 12 * pn && twelve_rows &&
               env_switch("TRIAX_CUDA_HYBRID_SHIFTED12") != 0) {
      held = wider;
      shifted_m = 12;
    }
  }
  cfg.M = shifted_m != 0 ? shifted_m : rows_per_thread(held);
  const std::int64_t chunks = (held + cfg.M - 1) / cfg.M;
  if (family == HybridFamily::warp && chunks > 32) return false;
  int P = chunks <= 32 ? next_pow2(chunks) : static_cast<int>((chunks + 31) / 32 * 32);
  // Along axes >= 1, systems of up to 512 chunks (float n <= 8192, double n <= 4096) in a cluster
  // of 16 blocks rather than the long path (wide_clusters_on); where clusters are not allowed
  // (checked mode), the long path as before. On an H200 (docs/notes/2026-11-29-session19.md),
  // % of the copy, long path -> clusters of 16: double n = 2227 22.6 -> 26.5, 3447 25.0 -> 37.9,
  // 4096 31.9 -> 50.4; float n = 6380 30.1 -> 34.2, 8192 22.6-34.4 -> 29.0-59.8. Float past 4096
  // with up to 384 chunks lost (n = 4292, 4423, 5875: 0.87x, 0.97x, 0.97x): a cluster of 16
  // blocks of 32 chunks then idles a quarter or more of its rows, so float starts past 384
  // (from 257 with exact_clusters_on, whose clusters have no idle blocks).
  const int cw = env_switch("TRIAX_CUDA_HYBRID_CLUSTER");
  const bool wide_cluster =
      P > max_p && !rows_contiguous && family == HybridFamily::block && allowed.clusters &&
      allowed.wide && cw != 0 && chunks <= 16 * 32 &&
      chunks > (sizeof(T) == 4 && !exact_clusters_on() ? 384 : 256) && wide_clusters_on() &&
      device_has_clusters();
  const bool long_path = P > max_fused && !wide_cluster;
  if (long_path) {  // block family only
    cfg.M = long_path_chunk<T>;
    P = long_block_round1.P;
    // Its tiles of P chunks run along the grid's y dimension (at most 65535); round 1's block
    // reaches furthest (along axes >= 1 a smaller one may be taken below, long_block.hpp).
    if (!long_block_fits(long_block_round1, n, cfg.M)) return false;
  }
  cfg.P = P;
  cfg.C = 1;
  if (rows_contiguous) {
    // 256 threads, but no more systems than there are: a block's threads of a system past the
    // count idle, which halved the long path's first pass for one system of 5 million rows
    // (P = 128, S = 2: 1.46 TB/s on the H100). S * P stays a multiple of 32.
    cfg.S = static_cast<int>(std::clamp<std::int64_t>(p.count, 1, std::max(1, 256 / P)));
    while (cfg.S * P % 32 != 0) ++cfg.S;
    // Small batches: spread over every SM (small_batch.hpp), where switched on.
    SmallBatchKnobs knobs;
    if (family == HybridFamily::block && !long_path && P <= small_batch_block_threads &&
        small_batch_on(knobs)) {
      const ChunkSpread sp = small_batch_spread(n, p.count, cfg.P, cfg.S, sm_count(), knobs);
      cfg.P = sp.P;
      cfg.S = sp.S;
    }
  } else {
    cfg.S = systems_per_block<T>(P);
    if (long_path) {
      // Float rows in whole 32-byte sectors per block and two blocks per SM (long_block.hpp).
      // The staged, clustered and pipelined choices below are for fused sizes only.
      const LongBlock b =
          long_axes_block(static_cast<int>(sizeof(T)), n, cfg.M, long_axes_wanted());
      cfg.P = P = b.P;
      cfg.S = b.S;
    }
    // Staged (a, b, c in shared memory; block family): rows read in runs of 32-64 bytes where
    // the register kernel affords 16-32. Measured on the H100 (docs/algorithms.md, "Staged
    // coefficients"), in float only: for 256 < n <= 512 with 512-thread blocks (16 systems, two
    // blocks per SM: 512^3 along z 83% of the copy against 52%), and for n > 1024 with
    // 1024-thread blocks (n = 2048: 53-55% against 45-47%). At n = 1024, and in double, it is
    // level with the register kernel or slower. Never where all three coefficients are constant
    // along the system (the register kernel reads them once per thread).
    const bool broadcast =
        p.map[op_a].row_stride == 0 && p.map[op_b].row_stride == 0 && p.map[op_c].row_stride == 0;
    const int sw = env_switch("TRIAX_CUDA_HYBRID_STAGED");
    const bool by_rule = sizeof(T) == 4 && !broadcast && ((n > 256 && n <= 512) || n > 1024);
    const int max_threads = sw == -1 && n <= 512 ? 512 : staged_max_threads;
    if (family == HybridFamily::block && allowed.staged && fits_fused(n, cfg) &&
        (sw == 1 || (sw == -1 && by_rule))) {
      staged_choose<T>(cfg.M, P, max_threads, cfg);  // leaves cfg alone where none fits
    }
    // Clusters: one block holds S x n rows of its systems, so past 32 chunk threads a block with
    // 64-byte runs per row fills an SM and its load, reduce and store phases run one after the
    // other. The C blocks of a thread-block cluster share each group of systems instead
    // (reduced_solve.cuh); staged in float as in one block. TRIAX_CUDA_HYBRID_CLUSTER=0 turns
    // them off, =1 takes them wherever the chunks need 2 to 8 blocks (16 past 256 chunks).
    const bool stage_clusters =
        allowed.staged && !broadcast && (sw == 1 || (sw == -1 && sizeof(T) == 4));
    HybridConfig clustered;
    if (family == HybridFamily::block && allowed.clusters && cw != 0 && fits_fused(n, cfg) &&
        (cw == 1 || chunks > cluster_min_chunks<T>) && device_has_clusters() &&
        cluster_choose<T>(chunks, cfg.M, stage_clusters, wide_cluster ? 16 : 8, clustered)) {
      cfg = clustered;
    } else if (wide_cluster) {
      // No cluster holds it after all: the long path, chosen without the wide clusters.
      return choose<T>(p, family, Allowed{false, allowed.pipelined, allowed.staged, false}, cfg);
    }
    // Pipelined: persistent blocks that stream the next group in while they solve one. Measured
    // on the H100 (docs/algorithms.md, "Pipelined blocks"): in float up to n = 512 (P <= 32) it
    // gains 2-8 points of the copy over the register and staged kernels (n = 256 along z 85 ->
    // 92, n = 512 along y 78 -> 86); in double for 256 < n <= 512 (P = 64) 1-7 points (512^3
    // along y 92 -> 97, 256x128x512 along z 81 -> 89, 512^3 along z 84 -> 87). Float clusters
    // pipeline too (the blocks of a cluster push their equations, so no cluster barrier drains
    // the next group's copies): at n = 1024 along y 76 -> 87, along z 75 -> 82, at n = 2048
    // 72 -> 80 and 71 -> 78; and so do double ones since the loop was trimmed (per-warp staging
    // no longer spills): at n = 1024 along z 84 -> 89, along y 90 -> 91.5, at n = 2048 76 -> 87
    // and 81 -> 89; double n = 256 (P = 32) gains 1-2 points (256^3 along z 2735-2741 ->
    // 2776-2783 GB/s). Double n <= 128 keeps the register kernel (n = 64 along y 102 against 93
    // block-wide; not measured per warp). TRIAX_CUDA_HYBRID_PIPELINED=0 turns it off, =1 takes it
    // wherever a configuration exists; either staging switch set keeps the rule away (the staged
    // kernel's own studies).
    const int pw = env_switch("TRIAX_CUDA_HYBRID_PIPELINED");
    const bool pipe_rule = sw == -1 && (sizeof(T) == 4 ? cfg.P <= 32 : cfg.P == 32 || cfg.P == 64);
    if (family == HybridFamily::block && allowed.pipelined &&
        (pw == 1 || (pw == -1 && pipe_rule)) && fits_fused(n, cfg) && !broadcast) {
      pipelined_choose<T>(p, cfg);  // leaves cfg alone where none fits
    }
  }
  apply_tuning_override<T>(n, max_p, allowed.clusters, cfg);
  // Rows are indexed with 32-bit ints in the kernel, blocks of S systems along the grid's x.
  if (n > INT32_MAX || (p.count + cfg.S - 1) / cfg.S > INT32_MAX) return false;
  return hybrid_config_valid<T>(cfg);
}

template <class T>
void apply_tuning_override(std::int64_t n, int max_p, bool allow_clusters, HybridConfig& cfg) {
  const char* v = std::getenv("TRIAX_CUDA_HYBRID");
  HybridConfig o = cfg;
  o.C = 1;
  const int got = v == nullptr ? 0 : std::sscanf(v, "%d,%d,%d,%d", &o.M, &o.P, &o.S, &o.C);
  if (got < 3) return;
  const bool stages_fit = o.map != Mapping::system_pipelined || pipelined_fits<T>(n, o);
  if ((o.C == 1 || (allow_clusters && device_has_clusters())) && hybrid_config_valid<T>(o) &&
      o.P * o.C <= max_p && fits_fused(n, o) && fits_fused(n, cfg) && stages_fit) {
    cfg = o;
    return;
  }
  // A tuning aid: say so rather than time the default under the override's name; once, since
  // this runs at every solve.
  static std::atomic<bool> said{false};
  if (!said.exchange(true)) {
    std::fprintf(stderr, "triax: TRIAX_CUDA_HYBRID=%s ignored for n = %lld\n", v,
                 static_cast<long long>(n));
  }
}

}  // namespace

template <class T>
bool hybrid_choose(const Problem& p, HybridFamily family, HybridConfig& cfg) {
  return choose<T>(p, family, Allowed{}, cfg);
}

template <class T>
std::size_t hybrid_workspace(const Problem& p, const HybridConfig& cfg) {
  if (fits_fused(p.n, cfg) && cfg.C * cfg.P > chunk_block_threads) {
    // Clusters of 16 and blocks of 512 chunks hold what the long path would: its workspace,
    // which checked mode takes in place of the clusters, and a solve with the wide switches off.
    HybridConfig one{};
    if (!choose<T>(p, HybridFamily::block, Allowed{true, true, true, false}, one)) return 0;
    return hybrid_workspace<T>(p, one);
  }
  if (fits_fused(p.n, cfg)) return 0;
  const LongSplit ls = long_split<T>(p, cfg);
  const Problem r = reduced_problem<T>(p, ls);
  HybridConfig rc{};
  hybrid_choose<T>(r, HybridFamily::block, rc);
  const std::size_t own = align_up(4 * sizeof(T) * std::size_t(p.count) * ls.shape.reduced_rows);
  return own + hybrid_workspace<T>(r, rc);
}

template <class T>
void hybrid_run(const Problem& p, const Operands<T>& ops, const HybridConfig& cfg, void* workspace,
                cudaStream_t stream) {
  if (p.count == 0 || p.n == 0) return;
  if (fits_fused(p.n, cfg)) {
    // Checked mode runs one block per group of systems (the clustered and pipelined kernels fill
    // no info); the pipelined kernel needs groups it can stream in 16-byte pieces.
    // Unified-Vector units take the register kernel (unified_path) in one block or a cluster.
    HybridConfig c0 = cfg;
    const bool checked = ops.info != nullptr;
    const bool units = unified_path<T>(p, ops);
    const bool pipe = cfg.map == Mapping::system_pipelined;
    const bool pipe_bad = pipe && !(pipelined_pointers_ok(ops) && pipelined_layout_ok<T>(p, cfg.S));
    if ((checked && (cfg.C > 1 || pipe)) || pipe_bad ||
        (units && cfg.map == Mapping::system_staged)) {
      choose<T>(p, HybridFamily::block, Allowed{!checked, !checked && !pipe_bad, !units}, c0);
      // Without clusters, a system a cluster of 16 held takes the long path.
      if (!fits_fused(p.n, c0)) return hybrid_run<T>(p, ops, c0, workspace, stream);
    }
    HybridShape sh = split_rows(p.n, c0.P * c0.C, c0.P, c0.S);
    sh.C = c0.C;
    sh.vector_stage = vector_stage_on<T>(sh.P);
    sh.unified = units && c0.map == Mapping::system_fastest;
    HybridConfig c = c0;
    if (c.map == Mapping::chunk_direct) c.map = direct_shape(p, ops, c.M, sh);
    with_solve_mode(ops, [&](auto acc, auto chk) {
      if constexpr (!chk.value) {
        if (c.C > 1) {
          launch_phase<T, Phase::clustered, acc.value, false>(c, p, ops, sh, c.C, stream);
          return;
        }
      }
      launch_phase<T, Phase::fused, acc.value, chk.value>(c, p, ops, sh, 1, stream);
    });
    return;
  }
  // Long path: reduce every chunk to two equations, solve those (recursively), finish.
  LongSplit ls = long_split<T>(p, cfg);
  ls.shape.red = workspace;
  ls.shape.vector_stage = vector_stage_on<T>(ls.shape.P);
  ls.shape.unified = cfg.map == Mapping::system_fastest && unified_path<T>(p, ops);
  const Problem r = reduced_problem<T>(p, ls);
  T* planes = static_cast<T*>(workspace);
  const std::int64_t plane = p.count * ls.shape.reduced_rows;
  const Operands<T> rops{
      planes, planes + plane, planes + 2 * plane, planes + 3 * plane, planes + 3 * plane,
      false,  nullptr};
  const bool checked = ops.info != nullptr;
  if (checked) {
    launch_phase<T, Phase::reduce_only, false, true>(cfg, p, ops, ls.shape, ls.tiles, stream);
  } else {
    launch_phase<T, Phase::reduce_only, false, false>(cfg, p, ops, ls.shape, ls.tiles, stream);
  }
  HybridConfig rc{};
  hybrid_choose<T>(r, HybridFamily::block, rc);
  void* rest = static_cast<char*>(workspace) +
               align_up(4 * sizeof(T) * std::size_t(p.count) * ls.shape.reduced_rows);
  hybrid_run<T>(r, rops, rc, rest, stream);
  with_solve_mode(ops, [&](auto acc, auto chk) {
    launch_phase<T, Phase::finish_only, acc.value, chk.value>(cfg, p, ops, ls.shape, ls.tiles,
                                                              stream);
  });
  if (checked) {
    const int threads = 256;
    launch_kernel(info_abs_kernel, static_cast<unsigned>((p.count + threads - 1) / threads),
                  threads, 0, stream, ops.info, p.count);
  }
}

#define TRIAX_INSTANTIATE(T)                                                                  \
  template bool hybrid_choose<T>(const Problem&, HybridFamily, HybridConfig&);                \
  template std::size_t hybrid_workspace<T>(const Problem&, const HybridConfig&);              \
  template void hybrid_run<T>(const Problem&, const Operands<T>&, const HybridConfig&, void*, \
                              cudaStream_t);
template bool hybrid_config_valid<float>(const HybridConfig&);
template bool hybrid_config_valid<double>(const HybridConfig&);
TRIAX_INSTANTIATE(float)
TRIAX_INSTANTIATE(double)
#undef TRIAX_INSTANTIATE

}  // namespace triax::detail::cuda
