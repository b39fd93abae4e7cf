#pragma once
// The CUDA part of triax-bench (gpu_runner.cu, compiled only with TRIAX_ENABLE_CUDA).
#include <string>
#include <vector>

#include "block_case.hpp"
#include "case.hpp"
#include "shape_classes.hpp"
#include "shape_report.hpp"

namespace triax::bench {

/// The GPU's name, memory and clock, for the JSON and the table header.
std::string device_description();

/// cudaMemcpyAsync device to device and a 16-byte-vector copy kernel over two buffers of `gib`
/// GiB; median of `reps` timed with events.
CopyReference measure_device_copy(double gib, int reps);

/// One case on the cuda backend, with the cuSPARSE baselines: gtsv2StridedBatch on axis 0 and
/// gtsvInterleavedBatch (algorithm 0) on the last axis.
void run_gpu_case(const Case& c, const CopyReference& copy, std::vector<Row>& rows);

/// One block case on the cuda backend: the one-thread-per-system kernel (the baseline) and the
/// coop kernel, in place, on the same device buffers (gpu_block_runner.cu).
void run_gpu_block_case(const BlockCase& c, const CopyReference& copy, std::vector<Row>& rows);

/// The shape suite's draws on the cuda backend, float then double (shape_runner.hpp).
void run_gpu_shapes(const std::vector<ShapeDraw>& draws, int reps, const CopyReference& copy,
                    std::vector<ShapeRow>& rows);

}  // namespace triax::bench
