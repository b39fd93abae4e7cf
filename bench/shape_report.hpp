#pragma once
// The rows of `--suite shapes` and their distribution per class, precision and axis, against the
// bars of issue 26 (docs/performance.md, "Shapes").
#include <string>
#include <vector>

#include "case.hpp"

namespace triax::bench {

/// A Row with the draw it timed and the latency references of small problems.
struct ShapeRow {
  Row row;
  std::string shape_class;
  std::string shape;        ///< the draw's extents, allocation, base offset, broadcast
  bool counts = false;      ///< large enough to count towards the bars
  double copy_same_ms = 0;  ///< a copy of the same bytes (half read, half written); 0: not measured
  double floor_ms = 0;      ///< an empty launch; 0: not measured
  double pct_stream = 0;    ///< host: % of the in-run stream reference; 0: not measured
};

/// The distribution of one group of rows (a class, or an axis) in one precision.
struct ShapeSummary {
  std::string group;      ///< a class name, or "axis k"
  std::string precision;
  std::string basis;      ///< what the percentages are of: copy, stream, two-pass bound
  int rows = 0, counted = 0;
  double median = 0, p10 = 0, min = 0;
  std::string bar;        ///< "" where the group has none
  bool pass = true;
};

/// Effective bytes from which a row counts towards the bars: 64 MiB on the GPU (smaller
/// problems report their time beside the latency floor); every host row.
double shape_counting_bytes(Backend backend);

void print_shape_header();
void print_shape_row(const ShapeRow& r);

/// Per precision: each class (GPU: % of the copy, with the few-long class against the two-pass
/// bound, 5/9 of the copy; host: % of the stream reference), and each axis (the median).
std::vector<ShapeSummary> summarise_shapes(const std::vector<ShapeRow>& rows, Backend backend);
void print_shape_summary(const std::vector<ShapeSummary>& summary);

}  // namespace triax::bench
