#include "shape_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace triax::bench {
namespace {

/// The two-pass bound of few long systems as a fraction of the copy: 5 arrays' bytes counted
/// over 9 moved (read 4, write 1, re-read 4; the reduced system is negligible).
constexpr double two_pass_fraction = 5.0 / 9.0;

/// The q-quantile of sorted values, by the nearest rank.
double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const auto k = static_cast<std::size_t>(std::ceil(q * double(sorted.size())));
  return sorted[std::clamp<std::size_t>(k, 1, sorted.size()) - 1];
}

double median(const std::vector<double>& sorted) {
  const std::size_t m = sorted.size();
  if (m == 0) return 0;
  return m % 2 ? sorted[m / 2] : 0.5 * (sorted[m / 2 - 1] + sorted[m / 2]);
}

ShapeSummary summarise(std::string group, std::string precision, std::string basis, int rows,
                       std::vector<double> values) {
  std::sort(values.begin(), values.end());
  ShapeSummary s;
  s.group = std::move(group);
  s.precision = std::move(precision);
  s.basis = std::move(basis);
  s.rows = rows;
  s.counted = static_cast<int>(values.size());
  s.median = median(values);
  s.p10 = quantile(values, 0.10);
  s.min = values.empty() ? 0 : values.front();
  return s;
}

}  // namespace

double shape_counting_bytes(Backend backend) {
  return backend == Backend::cuda ? 64.0 * 1024 * 1024 : 0.0;
}

void print_shape_header() {
  std::printf("%-9s %-32s %-6s %-9s %-34s %4s %8s %8s %9s %8s %6s %9s %9s %8s\n", "class",
              "algorithm", "prec", "mode", "shape", "axis", "n", "systems", "median_ms", "GB/s",
              "%copy", "%stream", "copy_ms", "resid");
}

void print_shape_row(const ShapeRow& s) {
  const Row& r = s.row;
  char stream[16] = "-", copy_ms[16] = "-";
  if (s.pct_stream > 0) std::snprintf(stream, sizeof stream, "%.1f", s.pct_stream);
  if (s.copy_same_ms > 0) std::snprintf(copy_ms, sizeof copy_ms, "%.4f", s.copy_same_ms);
  std::printf("%-9s %-32s %-6s %-9s %-34s %4d %8lld %8lld %9.4f %8.1f %5.1f%s %9s %9s %8.1e\n",
              s.shape_class.c_str(), r.algorithm.c_str(), r.precision.c_str(), r.mode.c_str(),
              s.shape.c_str(), r.axis, static_cast<long long>(r.n),
              static_cast<long long>(r.systems), r.median_ms, r.gbps, r.pct_copy,
              s.counts ? " " : "s", stream, copy_ms, r.residual);
}

std::vector<ShapeSummary> summarise_shapes(const std::vector<ShapeRow>& rows, Backend backend) {
  const bool gpu = backend == Backend::cuda;
  std::vector<ShapeSummary> out;
  for (const char* precision : {"float", "double"}) {
    // Per class, in the order the suite draws them.
    std::vector<std::string> classes;
    for (const ShapeRow& s : rows)
      if (std::find(classes.begin(), classes.end(), s.shape_class) == classes.end())
        classes.push_back(s.shape_class);
    for (const std::string& k : classes) {
      const bool few_long = k == "few_long";
      std::vector<double> v;
      int all = 0;
      for (const ShapeRow& s : rows) {
        if (s.shape_class != k || s.row.precision != precision) continue;
        ++all;
        if (!s.counts) continue;
        if (!gpu) v.push_back(s.pct_stream);
        else v.push_back(few_long ? s.row.pct_copy / two_pass_fraction : s.row.pct_copy);
      }
      if (all == 0) continue;
      ShapeSummary sum = summarise(k, precision, !gpu ? "stream" : few_long ? "two-pass bound" : "copy",
                                   all, std::move(v));
      if (gpu && few_long) {
        sum.bar = "min >= 90";
        sum.pass = sum.counted > 0 && sum.min >= 90;
      } else if (gpu) {
        sum.bar = "median >= 90, p10 >= 80, min >= 70";
        sum.pass = sum.counted > 0 && sum.median >= 90 && sum.p10 >= 80 && sum.min >= 70;
      }
      out.push_back(sum);
    }
    // Per axis, over every class: the CPU bar is the median along every axis.
    std::map<int, std::vector<double>> by_axis;
    std::map<int, int> all_by_axis;
    for (const ShapeRow& s : rows) {
      if (s.row.precision != precision) continue;
      ++all_by_axis[s.row.axis];
      if (s.counts) by_axis[s.row.axis].push_back(gpu ? s.row.pct_copy : s.pct_stream);
    }
    for (auto& [axis, v] : by_axis) {
      ShapeSummary sum = summarise("axis " + std::to_string(axis), precision,
                                   gpu ? "copy" : "stream", all_by_axis[axis], std::move(v));
      if (!gpu) {
        sum.bar = "median >= 80";
        sum.pass = sum.counted > 0 && sum.median >= 80;
      }
      out.push_back(sum);
    }
  }
  return out;
}

void print_shape_summary(const std::vector<ShapeSummary>& summary) {
  std::printf("\nshape suite: distribution of the rows that count (%% of the basis)\n");
  std::printf("%-10s %-6s %-15s %5s %7s %7s %7s %7s  %s\n", "group", "prec", "basis", "rows",
              "counted", "median", "p10", "min", "bar");
  for (const ShapeSummary& s : summary) {
    std::printf("%-10s %-6s %-15s %5d %7d %7.1f %7.1f %7.1f  %s%s\n", s.group.c_str(),
                s.precision.c_str(), s.basis.c_str(), s.rows, s.counted, s.median, s.p10, s.min,
                s.bar.c_str(), s.bar.empty() ? "" : s.pass ? "  PASS" : "  FAIL");
  }
}

}  // namespace triax::bench
