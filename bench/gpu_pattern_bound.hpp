#pragma once
// Arithmetic-free bounds for issue 30's small batches (--suite small; docs/notes/
// 2026-11-28-bound30.md): kernels that move a solve's bytes in its order and launch shape, with no
// elimination, so that a row can say how far it is from the best its access pattern allows on
// the same machine in the same run. Each returns the launches of one bound, which the caller
// times exactly as it times a solve (prepare, two warm-ups, median of the reps).
#include <functional>

#include "core/problem.hpp"
#include "gpu_context.hpp"
#include "triax/options.hpp"

namespace triax::bench {

/// The launches of one bound on the context's stream; empty where none is built for the case.
using BoundLaunch = std::function<void()>;

/// The register hybrid's pattern (cuda_block_thomas_pcr, cuda_warp_thomas_pcr: hybrid_kernel.cuh)
/// for `pick`, in the configuration hybrid_choose gives p (the pick's own: no tuning switch is set
/// around it): the same grid and block, each chunk thread reading its rows of a, b, c and d as
/// the kernel reads them (16-byte vectors of its own chunk where the chunks are aligned, else the
/// group's coalesced run element by element) and writing x the same way. The long path as its
/// three launches: the chunks read (two equations per tile of 32 chunks written), the reduced
/// batch's bound (recursively), the chunks read again and x written. Empty for the other
/// arrangements (axes >= 1, staged, pipelined, clustered, vector-staged runs) and other picks.
template <class T>
BoundLaunch hybrid_pattern_bound(GpuContext& ctx, const detail::Problem& p, Algorithm pick,
                                 const detail::Operands<T>& ops);

/// The cyclic family's staging (block_cyclic.cuh): one block per system of block_threads(n)
/// threads, every row read at once (load_rows.cuh) into the padded shared arrays, a
/// barrier, x written from them. Shared memory: the rows' four arrays only, the least any
/// variant that holds its rows asks for. Empty where a block cannot hold the system.
template <class T>
BoundLaunch cyclic_stage_bound(GpuContext& ctx, const detail::Problem& p,
                               const detail::Operands<T>& ops);

}  // namespace triax::bench
