#pragma once
// Back-to-back variable batches on the GPU (issue 31, varb2b): the systems bucketed by length
// class at plan time, so that each class runs one instance of the back-to-back hybrid kernel
// (cuda/varbatch/var_b2b_kernel.cuh) whose chunk threads per system (P) and rows per chunk (M)
// cover its longest system, and no system runs on threads sized for a much longer one.
// Host-only (no CUDA): the plan logic is tested in CI (tests/core/var_b2b_classes_test.cpp).
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/problem.hpp"  // TRIAX_HOST_DEVICE

namespace triax::detail {

/// One system as the kernel reads it: where its row 0 lies (every operand alike, back to back)
/// and its rows. 16 bytes, read with one load per thread.
struct B2BEntry {
  std::int64_t offset;
  std::int64_t length;
};

/// One class: systems entries[first .. first + count) of the plan, each of 1 .. rows() rows,
/// solved by P chunk threads of at most M rows each.
struct B2BClass {
  int P = 0;
  std::int64_t first = 0, count = 0, longest = 0;
};

struct B2BPlan {
  static constexpr int M = 8;          // rows per chunk thread, both precisions
  static constexpr int min_P = 8;      // the smallest class: 64 rows
  static constexpr int max_P = 256;    // the largest: 2048 rows (a 256-thread block)
  static constexpr std::int64_t max_rows = std::int64_t(M) * max_P;
  std::vector<B2BClass> classes;       // by increasing P, none empty
  std::vector<B2BEntry> entries;       // the classes' systems, class after class
  std::vector<std::int64_t> rest;      // systems longer than max_rows (other kernels), in order
};

/// Back-to-back systems longer than B2BPlan::max_rows (up to max_long_rows): each cut into tiles
/// of 227..256 rows (32 chunk threads of up to M rows, one warp), two passes over its rows around
/// a reduced batch (cuda/varbatch/var_b2b_kernel.cuh, the fixed hybrid's long path in tiles along
/// axis 0): the first leaves each tile's two equations at rows `reduced`, `reduced` + 1 of a
/// workspace batch (2 rows per tile, a system's tiles in order), that batch is solved as a
/// back-to-back batch of short systems, and the second pass finishes each tile from its two end
/// values.
struct B2BTile {
  std::int64_t offset;   // element of the tile's row 0 in every operand
  std::int64_t reduced;  // its first equation's row in the reduced batch
  std::int32_t rows;     // 227 .. 256 (n > max_rows: at least 9 tiles of n / tiles rows)
  std::int32_t flags;    // 1: the system's first tile, 2: its last
};

struct B2BTiles {
  static constexpr int tile_rows = 256;  // 32 chunks of M = 8
  static constexpr std::int64_t max_long_rows = std::int64_t(tile_rows) * 1024;  // reduced <= 2048
  std::vector<B2BTile> tiles;
  std::vector<std::int64_t> reduced_lengths, reduced_offsets;  // one reduced system per long one
  std::int64_t reduced_rows = 0;
  std::vector<std::int64_t> rest;  // the `systems` longer than max_long_rows, in order
};

/// How the class kernel (cuda/varbatch/var_b2b_kernel.cuh) runs (var31; a tuning aid read at
/// plan time from TRIAX_CUDA_VAR_B2B_VARIANT, docs/notes/2026-11-28-var31.md). A block per
/// 256 / P systems in every variant:
/// - base: each thread reads its system's entry, then its rows; the four operands pass through
///   one per-warp staging array in turn;
/// - ahead: base, and each block asks the L2 for the entries of the block one wave later (the
///   blocks the device holds at once), so that block's entry round trip is an L2 hit;
/// - prefetch: base, and each block reads the entries of the block one wave later with its own
///   and asks the L2 for that block's rows once its own are in registers (and for the entries a
///   wave further), so that DRAM streams while the SMs compute.
/// Two more lost on every row of the H100 and were removed: four staging arrays at once, and
/// prefetch held to 64 registers in float (the note has their numbers).
enum class B2BVariant { base, ahead, prefetch };

/// The variant named `name` (nullptr or empty: base). Unknown names throw std::invalid_argument
/// naming the values.
B2BVariant parse_b2b_variant(const char* name);
std::string_view to_string(B2BVariant v);

/// Tiles for the systems listed (each longer than B2BPlan::max_rows; lengths and offsets of the
/// whole batch).
B2BTiles plan_b2b_tiles(const std::vector<std::int64_t>& lengths,
                        const std::vector<std::int64_t>& offsets,
                        const std::vector<std::int64_t>& systems);

/// Where chunk c of a system of n rows starts, for P chunk threads: the fixed kernel's split
/// (split_rows in cuda/scalar/block/hybrid.cu) done per system by the kernel. n >= 2P: P chunks of
/// q or q + 1 rows (at most M while n <= M P); shorter: n / 2 chunks of 2 or 3 rows, the rest
/// empty; n == 1: one chunk of one row; n == 0: every chunk empty.
struct B2BChunks {
  int n, active, q, rem;
  TRIAX_HOST_DEVICE B2BChunks(int rows, int P) : n(rows) {
    const int half = rows / 2 > 1 ? rows / 2 : 1;
    active = P < half ? P : half;
    q = rows / active;
    rem = rows % active;
  }
  TRIAX_HOST_DEVICE int start(int c) const {
    return c < active ? c * q + (c < rem ? c : rem) : n;
  }
};

/// Buckets the systems (lengths[s] rows at offsets[s]) by the smallest P (a power of two from
/// min_P) with M P >= length; empty systems are left out (nothing to solve or write). A class of
/// fewer than `min_class_systems` systems joins the next larger one (whose threads cover its
/// lengths too): a launch that does not fill the device costs more than the idle chunk threads
/// it saves. Within a class, systems keep their order.
B2BPlan plan_b2b_classes(const std::vector<std::int64_t>& lengths,
                         const std::vector<std::int64_t>& offsets,
                         std::int64_t min_class_systems = 2048);

}  // namespace triax::detail
