#pragma once
// The GPU baselines, cuSPARSE, on the same device inputs as triax. Each times `reps` calls
// (median, events) after warm-up; outside the timing it restores what the call overwrites and
// flushes the L2. The bufferSize query and the buffer allocation are outside the timing too.
#include "gpu_context.hpp"
#include "inputs.hpp"
#include "stats.hpp"

namespace triax::bench {

/// cusparse{S,D}gtsv2StridedBatch: systems contiguous (axis 0 of a packed array), batchStride = n.
/// It keeps dl, d, du and overwrites x (the right-hand side), which is restored from d.
template <class T>
Timing cusparse_gtsv2_strided_batch(GpuContext& ctx, const AxisGeometry& g, const T* a, const T* b,
                                    const T* c, const T* d, T* x, int reps);

/// cusparse{S,D}gtsvInterleavedBatch, algorithm 0: row i of system j at i * systems + j (the
/// last axis of a packed array). It overwrites dl, d, du and x: they are restored from a, b, c,
/// d into work arrays before each call.
template <class T>
Timing cusparse_gtsv_interleaved_batch(GpuContext& ctx, const AxisGeometry& g, const T* a,
                                       const T* b, const T* c, const T* d, T* x, int reps);

/// cusparse{S,D}gtsv2_nopivot, one call per system (cuSPARSE's routine for one large system:
/// its n right-hand sides share one matrix, so systems with their own matrices take a call
/// each): systems contiguous (axis 0 of a packed array). x is restored from d before each call.
template <class T>
Timing cusparse_gtsv2_nopivot(GpuContext& ctx, const AxisGeometry& g, const T* a, const T* b,
                              const T* c, const T* d, T* x, int reps);

}  // namespace triax::bench
