#pragma once
// The human-readable table, the target checks of the suites and the JSON file.
#include <string>
#include <vector>

#include "case.hpp"
#include "shape_report.hpp"

namespace triax::bench {

struct TargetResult {
  std::string target;  ///< e.g. "axis 0 >= 65% of copy"
  std::string where;   ///< the row it judges
  double value = 0, bar = 0;
  bool pass = false;
  std::string note;
  /// Judged against a measured bound too (bound_report.hpp): its ms, the row's % of it, and
  /// whether the bar is within reach of a solve as fast as the bound (-1: no bound).
  double bound_ms = 0, pct_bound = 0;
  int reachable = -1;
};

struct RunInfo {
  std::string host, device, suite, mode;
  CopyReference host_copy, device_copy;
  bool lapack = false;
  std::string host_pages;           ///< "huge (THP <mode>)" or "small"
  std::vector<std::string> errors;  ///< cases that stopped with an exception
};

void print_copy(const char* what, const CopyReference& copy);
void print_header();
void print_row(const Row& row);

/// The targets of a suite ("cpu" or "gpu"), judged on the rows of the automatic pick.
std::vector<TargetResult> check_targets(const std::string& suite, const std::vector<Row>& rows);
void print_targets(const std::vector<TargetResult>& results);
/// --suite small: one line per size, cuSPARSE, today's automatic, automatic and the fastest row,
/// the bounds (bound_report.hpp); then the cyclic family against its staging bound.
void print_small_table(const std::vector<Row>& rows);

void write_json(const std::string& path, const RunInfo& info, const std::vector<Row>& rows,
                const std::vector<TargetResult>& targets);

/// --suite shapes: the rows (each a Row's fields and the draw's) and their distribution.
void write_shape_json(const std::string& path, const RunInfo& info,
                      const std::vector<ShapeRow>& rows, const std::vector<ShapeSummary>& summary);

}  // namespace triax::bench
