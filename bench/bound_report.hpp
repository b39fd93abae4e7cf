#pragma once
// Issue 30's bars against measured bounds (--suite small; docs/notes/2026-11-28-bound30.md). The
// project's rule for a bar out of physical reach: measure the bound (an arithmetic-free kernel
// moving the same bytes in the same order and launch shape, same machine, same run, timed as the
// solve is: gpu_pattern_bound.hpp), record it, and meet 90% of it. A bar passes as measured;
// where the bound shows it out of reach (a solve as fast as the bound would fail it too), it
// passes at >= 90% of the bound, and the line says so.
#include <string>
#include <vector>

#include "case.hpp"
#include "report.hpp"

namespace triax::bench {

/// The bound rows' names (backend "bound").
inline constexpr const char* hybrid_bound_name = "hybrid pattern";
inline constexpr const char* stream_bound_name = "one-pass stream";
inline constexpr const char* cyclic_bound_name = "cyclic staging";

/// The share of the bound a solve reaches: 100 x bound / solve (100 = as fast as the bound).
inline double pct_of_bound(double solve_ms, double bound_ms) {
  return solve_ms > 0 && bound_ms > 0 ? 100.0 * bound_ms / solve_ms : 0;
}

/// Judges t (measured already) against a bound: records bound_ms, the pick's % of it and
/// whether the bar is reachable; an unreachable bar that failed as measured passes at >= 90% of
/// the bound. `why` says what makes it unreachable. No bound (bound_ms <= 0): t is left alone.
void judge_with_bound(TargetResult& t, double solve_ms, double bound_ms, bool reachable,
                      const std::string& why);

/// Sets pattern_bound_ms and pct_pattern_bound of the triax rows of each case from its bound
/// rows: the hybrid's pattern for the automatic pick and "<pick> [old]" (the same configuration
/// while the spread is off), the cyclic staging for cuda_cr, cuda_pcr, cuda_cr_pcr, cuda_cr_rd
/// and their variants (plain RD holds no rows).
void attach_pattern_bounds(std::vector<Row>& rows);

}  // namespace triax::bench
