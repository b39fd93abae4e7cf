#include "case.hpp"

namespace triax::bench {

double effective_bytes(std::int64_t points, Precision precision, Mode mode) {
  const int arrays = mode == Mode::increment ? 6 : 5;
  return static_cast<double>(arrays) * static_cast<double>(points) *
         static_cast<double>(size_of(precision));
}

void finish_row(Row& row, const CopyReference& copy) {
  row.gbps = row.median_ms > 0 ? row.bytes / (row.median_ms * 1e-3) / 1e9 : 0;
  row.pct_copy = copy.gbps > 0 ? 100.0 * row.gbps / copy.gbps : 0;
  row.speedup = row.baseline_ms > 0 && row.median_ms > 0 ? row.baseline_ms / row.median_ms : 0;
}

}  // namespace triax::bench
