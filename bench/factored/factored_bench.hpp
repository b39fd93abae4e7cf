#pragma once
// triax-bench-factored: rows for triax::FactoredSolver (issue 32), beside the general solve of
// the same grid with broadcast coefficients, the copy measured in the same run and (GPU) cuSPARSE
// gtsv2StridedBatch given the same matrix for every system.
#include <cstdint>
#include <string>
#include <vector>

namespace triax::bench::factored {

/// One measured row.
struct Row {
  std::string backend, precision;
  std::int64_t n = 0;  // the grid's edge: n^dims values, n rows a system, n^(dims-1) systems
  int axis = 0;
  double factored_ms = 0, general_ms = 0, copy_ms = 0, cusparse_ms = 0;  // 0 = not measured
  // CPU: the stream reference of a 2-array solve, the faster of the copy loop and one memcpy per
  // thread (glibc's large copies store past the caches: d read + x written, no read of x first).
  double stream_ms = 0;
  // CPU: the arithmetic-free bound of the plan that ran factored_ms (TRIAX_CPU_FACTORED_BOUND=1:
  // x = d through the same strips, threads, prefetches and stores), 0 = not measured.
  double cpu_bound_ms = 0;
  // CPU: other plans of the same row (--cpu-plan), each with its own bound, in the same process.
  struct Plan {
    std::string switches;  // NAME=VALUE[,NAME=VALUE...]
    double ms = 0, bound_ms = 0;
  };
  std::vector<Plan> plans;
  std::int64_t stored_rows = 0;
  int dims = 3;  // 3: paper 004's 3-D case (N_rhs = n^2); 2: its 2-D case (N_rhs = n)
  // GPU only (0 = not measured): paper 004's CR with precomputed coefficients, shared-memory
  // and global-memory variants, and the arithmetic-free bounds (bound_kernels.cuh).
  double cr_shared_ms = 0, cr_global_ms = 0, sweep_bound_ms = 0, tile_bound_ms = 0;
  std::int64_t cr_stored = 0;
  // The algorithm the automatic plan ran (factored_ms), and cuda_thread_thomas forced: the
  // factored kernels the automatic cuda plan ran before it could route to cuda_hybrid.
  std::string algorithm;
  double thread_thomas_ms = 0;
  // GPU (factcoef): the cuda_hybrid plan made under TRIAX_CUDA_FACTORED_ROUTE=table (the chunk
  // table kernel at every stride) and =hybrid (the general hybrid), 0 = not measured.
  double table_ms = 0, hybrid_route_ms = 0;
  double elements() const;
  double gbps() const;      // d read + x written by the factored solve
  double copy_gbps() const; // the in-run copy of the same array (read + write)
  double gbps_of(double ms) const;  // the same bytes in `ms`
  double bound_ms() const;  // the faster of the two bounds (0 if none)
};

struct Config {
  std::vector<std::int64_t> sizes;
  std::vector<std::int64_t> sizes_2d;  // GPU: n^2 grids (paper 004's 2-D case)
  int reps = 7;
  bool gpu = true, cpu = true;
  bool general = true;  // --no-general: CPU rows without the general solve (A/B runs)
  std::vector<std::string> cpu_plans;  // --cpu-plan NAME=VALUE[,...]: more CPU plans per row
  std::string cpu_alloc = "huge";      // --cpu-alloc: vector, line (64-byte aligned), huge
  std::string json;
};

std::vector<Row> gpu_rows(const Config& cfg);
bool gpu_available();

}  // namespace triax::bench::factored
