#pragma once
// Options::batches = 0 (automatic) on CPU ranks: batches small enough that a batch's workspace
// stays in the cores' caches between its forward pass and its back substitution (issue 28).
//
// A batch's forward pass writes 3 n values per system (as, cs, ds); its back substitution reads
// them after the reduced exchange. In one batch of the whole block that workspace travels to
// memory and back: ~9 values moved per element against the single-rank solve's 5 (read a, b, c,
// d, write x), 1.8x at memory speed. Where it stays in cache, the passes move the same 5.
// With Options::overlap, batch k + 1's forward pass (its 4 n inputs, its 3 n workspace) runs
// between batch k's two passes, so 10 n values per system pass through a core's cache while
// batch k's workspace waits there; without it, 3 n.

#include <cstddef>
#include <cstdint>

namespace triax::detail {

/// The L2 cache of one core in bytes: TRIAX_DIST_CACHE_BYTES where set (a positive integer:
/// tests and experiments), else /sys/devices/system/cpu/cpu0/cache's level-2 data or unified
/// cache, else sysconf(_SC_LEVEL2_CACHE_SIZE), else 1 MiB (the variable at every call, the
/// rest once per process).
std::int64_t core_cache_bytes();

/// The batch count for `systems` systems of `rows` rows of `value_bytes` values, on `threads`
/// threads (each keeps its own groups of systems in both passes: the static schedule), each
/// thread's share of a batch touching at most half of `cache_bytes` between the two passes.
/// Batches hold at least 64 systems per thread (whole SIMD groups for every thread, messages
/// that are not mostly latency), at most `max_batch_systems` systems; 1 where one batch fits.
/// Where the systems are whole 64-system units of every thread, the count is a divisor of those
/// units (every thread the same groups in every batch), the nearest to the cache's count.
std::int64_t cache_batch_count(std::int64_t systems, std::int64_t rows, std::size_t value_bytes,
                               int threads, bool overlap, std::int64_t cache_bytes,
                               std::int64_t max_batch_systems);

}  // namespace triax::detail
