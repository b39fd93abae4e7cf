#pragma once
// What triax-bench measures (a Case: one array, its axes, one precision) and what it reports
// (a Row per algorithm or baseline per axis).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "triax/options.hpp"

namespace triax::bench {

enum class Mode { in_place, separate, increment };
enum class Precision { f32, f64 };

const char* to_string(Mode mode);
const char* to_string(Precision precision);
inline std::size_t size_of(Precision p) { return p == Precision::f32 ? 4 : 8; }

/// A solve timed under environment switches of the library (a tuning knob, or the rule a switch
/// restores): `algorithm` with `env` set while its plan is made and timed; its rows are named
/// "<algorithm> [label]". How one process times today's rule beside a candidate (--suite small).
struct EnvVariant {
  std::string label;
  Algorithm algorithm = Algorithm::automatic;
  std::vector<std::pair<std::string, std::string>> env;  ///< name, value
};

/// One generated array (extents, precision), solved along each of `axes`.
struct Case {
  Backend backend = Backend::cpu;
  Precision precision = Precision::f64;
  std::vector<std::int64_t> extents;
  std::vector<int> axes;
  std::string algorithm = "automatic";  ///< automatic | all | cyclic | a name (triax::to_string)
  Mode mode = Mode::in_place;
  int reps = 20;
  /// Solves issued back to back inside each timed sample (the sample's time / launches is
  /// reported): 1 times each solve alone; more show the steady state of a loop of solves, where
  /// a caller's per-call host work (e.g. Python's) overlaps the previous solve.
  int launches = 1;
  bool baselines = true;        ///< run LAPACK (cpu) or cuSPARSE (cuda) where they apply
  bool baselines_only = false;  ///< skip triax (records the baselines and copy alone)
  std::vector<EnvVariant> variants;  ///< timed after the requested algorithms
  /// Time the arithmetic-free bounds of the case as rows of backend "bound" (cuda; --suite
  /// small: gpu_pattern_bound.hpp), before the triax rows.
  bool pattern_bounds = false;
};

/// One measured line of the table.
struct Row {
  std::string backend;     ///< cpu, cuda, reference, lapack, cusparse
  std::string algorithm;   ///< triax algorithm or baseline routine
  bool automatic = false;  ///< the algorithm the plan's automatic choice picks for this case
  std::string precision;
  std::string mode;
  int launches = 1;  ///< Case::launches (written to the JSON only when > 1)
  std::vector<std::int64_t> extents;
  int axis = 0;
  std::int64_t n = 0;        ///< rows per system
  std::int64_t systems = 0;  ///< number of systems
  double bytes = 0;          ///< effective bytes: what a perfect solver must move
  double median_ms = 0, min_ms = 0, max_ms = 0;
  double gbps = 0, pct_copy = 0;
  double residual = -1;  ///< max sampled relative residual (-1: not checked)
  std::string baseline;  ///< the baseline of this case ("" = none)
  double baseline_ms = 0;
  double speedup = 0;        ///< baseline_ms / median_ms
  int block_m = 0;           ///< block rows (block_case.hpp): M; 0 for scalar rows
  double gflops = 0;         ///< block rows: Algorithm 12's flops per second
  std::string block_layout;  ///< block rows: array_of_blocks or interleaved
  /// cuda block rows with --block-bound: the median of the kernel's bound (gpu_block_bound.cu),
  /// its GB/s counting `bytes`, and the row's time as a % of it (100 x bound_ms / median_ms).
  double bound_ms = 0, bound_gbps = 0, pct_bound = 0;
  /// --suite small: the arithmetic-free bound of this row's own pattern (the hybrid's for the
  /// automatic pick and today's rule, the cyclic staging for the cyclic family) and the row's
  /// time as a % of it (100 x bound / median); 0 where none applies (bound_report.hpp).
  double pattern_bound_ms = 0, pct_pattern_bound = 0;
};

/// The in-run copy reference (GB/s counts bytes read + bytes written).
struct CopyReference {
  std::string how;                                         ///< which copy was the faster
  double bytes = 0;                                        ///< size of one buffer
  double gbps = 0;                                         ///< the faster of the candidates
  std::vector<std::pair<std::string, double>> candidates;  ///< name, GB/s
  /// Host only (0 where not measured): a solve's memory traffic with no arithmetic, four arrays
  /// read and the fourth written back in place, in memory order, five arrays' bytes counted as a
  /// row's GB/s counts them. Not the basis of %copy: it is the rate no in-place solve can beat.
  double stream_gbps = 0;
};

/// Fills n, systems, bytes and the rates of a row from its timing.
void finish_row(Row& row, const CopyReference& copy);

/// Effective bytes of one solve: read a, b, c, d and write x (5 arrays); increment also reads u.
double effective_bytes(std::int64_t points, Precision precision, Mode mode);

}  // namespace triax::bench
