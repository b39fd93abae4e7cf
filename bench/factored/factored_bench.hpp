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
  std::int64_t n = 0;  // the cube's edge: n^3 values, n rows a system, n^2 systems
  int axis = 0;
  double factored_ms = 0, general_ms = 0, copy_ms = 0, cusparse_ms = 0;  // 0 = not measured
  std::int64_t stored_rows = 0;
  double gbps() const;      // d read + x written by the factored solve
  double copy_gbps() const; // the in-run copy of the same array (read + write)
};

struct Config {
  std::vector<std::int64_t> sizes;
  int reps = 7;
  bool gpu = true, cpu = true;
  std::string json;
};

std::vector<Row> gpu_rows(const Config& cfg);
bool gpu_available();

}  // namespace triax::bench::factored
