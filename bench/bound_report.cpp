#include "bound_report.hpp"

#include <cstdio>
#include <map>
#include <tuple>

namespace triax::bench {

void judge_with_bound(TargetResult& t, double solve_ms, double bound_ms, bool reachable,
                      const std::string& why) {
  if (bound_ms <= 0) return;
  t.bound_ms = bound_ms;
  t.pct_bound = pct_of_bound(solve_ms, bound_ms);
  t.reachable = reachable ? 1 : 0;
  char buf[320];
  if (reachable) {
    std::snprintf(buf, sizeof buf, "reachable (%s); %.0f%% of the bound", why.c_str(), t.pct_bound);
  } else {
    if (!t.pass) t.pass = t.pct_bound >= 90.0;
    std::snprintf(buf, sizeof buf, "OUT OF REACH (%s): judged at >= 90%% of the bound: %.1f%%",
                  why.c_str(), t.pct_bound);
  }
  t.note = std::string(buf) + (t.note.empty() ? "" : "; " + t.note);
}

namespace {

/// A case and axis: the rows' precision, extents and axis.
using Where = std::tuple<std::string, std::vector<std::int64_t>, int>;

bool is_cyclic_holding_rows(const std::string& algorithm) {
  for (const char* name : {"cuda_cr", "cuda_pcr", "cuda_cr_pcr", "cuda_cr_rd"}) {
    const std::string n(name);
    if (algorithm == n || algorithm.starts_with(n + " [")) return true;
  }
  return false;
}

}  // namespace

void attach_pattern_bounds(std::vector<Row>& rows) {
  std::map<Where, std::map<std::string, double>> bounds;  // bound name -> ms
  std::map<Where, std::string> picks;
  for (const Row& r : rows) {
    const Where w{r.precision, r.extents, r.axis};
    if (r.backend == "bound") bounds[w][r.algorithm] = r.median_ms;
    if (r.automatic) picks[w] = r.algorithm;
  }
  for (Row& r : rows) {
    if (r.backend == "bound" || r.backend == "cusparse" || r.backend == "lapack") continue;
    const Where w{r.precision, r.extents, r.axis};
    const auto b = bounds.find(w);
    if (b == bounds.end()) continue;
    const auto pick = picks.find(w);
    const bool pick_pattern =
        r.automatic || (pick != picks.end() && r.algorithm == pick->second + " [old]");
    const char* name = pick_pattern                          ? hybrid_bound_name
                       : is_cyclic_holding_rows(r.algorithm) ? cyclic_bound_name
                                                             : nullptr;
    if (name == nullptr || !b->second.count(name)) continue;
    r.pattern_bound_ms = b->second.at(name);
    r.pct_pattern_bound = pct_of_bound(r.median_ms, r.pattern_bound_ms);
  }
}

}  // namespace triax::bench
