#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <stdexcept>
#include <tuple>

#include <nlohmann/json.hpp>

#include "bound_report.hpp"
#include "extents_text.hpp"

namespace triax::bench {
namespace {

std::string where(const Row& r) {
  return r.precision + " " + extents_text(r.extents) + " axis " + std::to_string(r.axis) +
         " n=" + std::to_string(r.n);
}

/// Rows of one (precision, extents, axis): the automatic pick, the best triax row and the
/// baselines' times by name.
struct Group {
  const Row* pick = nullptr;
  const Row* best = nullptr;
  std::map<std::string, double> baseline_ms;
  std::map<std::string, const Row*> by_name;  ///< the triax rows by algorithm (variants included)
};

std::map<std::string, Group> group_rows(const std::vector<Row>& rows) {
  std::map<std::string, Group> groups;
  for (const Row& r : rows) {
    Group& g = groups[where(r)];
    if (r.backend == "lapack" || r.backend == "cusparse" || r.backend == "bound") {
      g.baseline_ms[r.algorithm] = r.median_ms;
      continue;
    }
    g.by_name[r.algorithm] = &r;
    if (r.automatic) g.pick = &r;
    if (!g.best || r.pct_copy > g.best->pct_copy) g.best = &r;
  }
  return groups;
}

TargetResult judge(const std::string& target, const std::string& at, const Group& g, double bar,
                   double (*value_of)(const Row&, const Group&)) {
  TargetResult t{target, at, 0, bar, false, ""};
  if (!g.pick) {
    t.note = "no row of the automatic pick";
    return t;
  }
  t.value = value_of(*g.pick, g);
  t.pass = t.value >= bar;
  if (g.best && g.best != g.pick) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "best: %s %.3g", g.best->algorithm.c_str(),
                  value_of(*g.best, g));
    t.note = buf;
  }
  t.note = (t.note.empty() ? "" : t.note + "; ") + "pick: " + g.pick->algorithm;
  return t;
}

/// A measured number as the JSON file keeps it: 6 significant digits, null if not finite.
nlohmann::ordered_json number(double v) {
  if (!std::isfinite(v)) return nullptr;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return std::strtod(buf, nullptr);
}

double pct_of_copy(const Row& r, const Group&) { return r.pct_copy; }

double speedup_over(const Row& r, const Group& g, const std::string& prefix) {
  for (const auto& [name, ms] : g.baseline_ms) {
    if (name.find(prefix) != std::string::npos && r.median_ms > 0) return ms / r.median_ms;
  }
  return 0;
}

/// How many times faster than the triax row named `name` (0 when the group has none).
double speedup_over_row(const Row& r, const Group& g, const std::string& name) {
  const auto it = g.by_name.find(name);
  return it == g.by_name.end() || r.median_ms <= 0 ? 0 : it->second->median_ms / r.median_ms;
}

/// The time of the baseline or bound whose name contains `part` (0 where the group has none).
double baseline_named(const Group& g, const std::string& part) {
  for (const auto& [name, ms] : g.baseline_ms) {
    if (name.find(part) != std::string::npos) return ms;
  }
  return 0;
}

/// The row named "<pick's algorithm> [old]": today's automatic rule (--suite small).
double speedup_over_old(const Row& r, const Group& g) {
  const Row* pick = g.pick ? g.pick : &r;
  return speedup_over_row(r, g, pick->algorithm + " [old]");
}

/// The fastest row of an algorithm and its variants ("<name>" or "<name> [...]"); null if none.
const Row* fastest_named(const Group& g, const std::string& name) {
  const Row* best = nullptr;
  for (const auto& [n, r] : g.by_name) {
    if ((n == name || n.starts_with(name + " [")) && (!best || r->median_ms < best->median_ms))
      best = r;
  }
  return best;
}

/// A CR+PCR bar (t, "x >= bar times `other`") against the cyclic staging bound: out of reach
/// where `other` takes less than bar x the bound (a CR+PCR as fast as the bound would fail it).
void against_cyclic_bound(TargetResult& t, const Group& family, const std::string& other) {
  const auto bound = family.baseline_ms.find(cyclic_bound_name);
  const auto o = family.by_name.find(other);
  if (!family.pick || bound == family.baseline_ms.end() || o == family.by_name.end() || !o->second)
    return;
  const double other_ms = o->second->median_ms, bound_ms = bound->second;
  const bool reachable = other_ms >= t.bar * bound_ms;
  char why[120];
  std::snprintf(why, sizeof why, "%s %.4f ms %s %gx the bound %.4f ms", other.c_str(), other_ms,
                reachable ? ">=" : "<", t.bar, bound_ms);
  judge_with_bound(t, family.pick->median_ms, bound_ms, reachable, why);
}

/// Issue 30's CR+PCR bars on a group whose pick is the CR+PCR row judged. Each bar is also
/// judged against the cyclic staging bound: out of reach where the row it is
/// compared with takes less than the bar's factor x the bound (bound_report.hpp).
void cr_pcr_bars(const std::string& label, const std::string& at, const Group& family,
                 std::vector<TargetResult>& out) {
  out.push_back(
      judge(label + "cuda_cr_pcr >= 1.2x cuda_pcr", at, family, 1.2,
            [](const Row& x, const Group& gg) { return speedup_over_row(x, gg, "cuda_pcr"); }));
  against_cyclic_bound(out.back(), family, "cuda_pcr");
  out.push_back(
      judge(label + "cuda_cr_pcr >= 1.5x cuda_cr", at, family, 1.5,
            [](const Row& x, const Group& gg) { return speedup_over_row(x, gg, "cuda_cr"); }));
  against_cyclic_bound(out.back(), family, "cuda_cr");
}

/// Issue 30's small-batch bars (--suite small), and its CR+PCR bar where the family ran.
void small_targets(const std::string& at, const Group& g, std::vector<TargetResult>& out) {
  out.push_back(judge(">= 2x gtsv2StridedBatch", at, g, 2.0, [](const Row& x, const Group& gg) {
    return speedup_over(x, gg, "gtsv2StridedBatch");
  }));
  // Out of reach where the pick's pattern bound takes more than half cuSPARSE's time.
  const double bound = baseline_named(g, hybrid_bound_name);
  const double cus = baseline_named(g, "gtsv2StridedBatch");
  char why[200];
  if (g.pick && cus > 0) {
    // The stream's time beside it: what one launch of these bytes in any shape could do.
    std::snprintf(why, sizeof why, "bound %.4f ms %s cuSPARSE / 2 = %.4f ms; stream %.4f ms", bound,
                  bound <= cus / 2 ? "<=" : ">", cus / 2, baseline_named(g, stream_bound_name));
    judge_with_bound(out.back(), g.pick->median_ms, bound, bound <= cus / 2, why);
  }
  // >= 1.3x today's rule, or >= 80% of the copy: judged as the first, passed by either.
  TargetResult t = judge(">= 1.3x today's automatic or >= 80% copy", at, g, 1.3, speedup_over_old);
  if (g.pick && !t.pass && g.pick->pct_copy >= 80.0) {
    t.pass = true;
    t.note = "80% of the copy; " + t.note;
  }
  // Out of reach where a solve as fast as the bound would fail both halves: the bound under 80%
  // of the copy, and today's rule within 1.3x of it.
  const auto old = g.pick ? g.by_name.find(g.pick->algorithm + " [old]") : g.by_name.end();
  if (g.pick && bound > 0 && old != g.by_name.end()) {
    const double bound_pct_copy = g.pick->pct_copy * g.pick->median_ms / bound;
    const double old_over_bound = old->second->median_ms / bound;
    const bool reachable = bound_pct_copy >= 80.0 || old_over_bound >= 1.3;
    const double stream = baseline_named(g, stream_bound_name);
    std::snprintf(why, sizeof why, "bound %.1f%% of the copy, old / bound %.2f; old / stream %.2f",
                  bound_pct_copy, old_over_bound, stream > 0 ? old->second->median_ms / stream : 0);
    judge_with_bound(t, g.pick->median_ms, bound, reachable, why);
  }
  out.push_back(t);
  const auto cr_pcr = g.by_name.find("cuda_cr_pcr");
  if (cr_pcr == g.by_name.end() || !g.by_name.count("cuda_cr") || !g.by_name.count("cuda_pcr"))
    return;
  // The default switch (cyclic_variants.hpp)...
  cr_pcr_bars("", at, Group{cr_pcr->second, cr_pcr->second, g.baseline_ms, g.by_name}, out);
  // ...and the fastest CR+PCR timed (switch sizes) against the fastest CR and PCR.
  const Row* fastest = fastest_named(g, "cuda_cr_pcr");
  std::map<std::string, const Row*> best_of = g.by_name;
  best_of["cuda_pcr"] = fastest_named(g, "cuda_pcr");
  best_of["cuda_cr"] = fastest_named(g, "cuda_cr");
  cr_pcr_bars("fastest: ", at, Group{fastest, fastest, g.baseline_ms, best_of}, out);
}

}  // namespace

namespace {

/// --suite small, where the cyclic family ran: its staging bound and each row's share of it.
void print_cyclic_bound_lines(const std::vector<const Group*>& groups) {
  for (const Group* g : groups) {
    const double bound = baseline_named(*g, cyclic_bound_name);
    if (bound <= 0) continue;
    std::printf(
        "cyclic staging bound, %s %lld x %lld: %.4f ms; %% of it (ms):", g->pick->precision.c_str(),
        static_cast<long long>(g->pick->systems), static_cast<long long>(g->pick->n), bound);
    for (const char* name : {"cuda_cr", "cuda_pcr", "cuda_cr_pcr", "cuda_cr_rd"}) {
      const Row* fastest = fastest_named(*g, name);
      const auto plain = g->by_name.find(name);
      if (plain != g->by_name.end())
        std::printf(" %s %.1f (%.4f)", name, pct_of_bound(plain->second->median_ms, bound),
                    plain->second->median_ms);
      if (fastest && (plain == g->by_name.end() || fastest != plain->second))
        std::printf(", fastest %s %.1f", fastest->algorithm.c_str(),
                    pct_of_bound(fastest->median_ms, bound));
      std::printf(";");
    }
    std::printf("\n");
  }
}

}  // namespace

void print_small_table(const std::vector<Row>& rows) {
  std::printf(
      "\nsmall batches (ms; x = cuSPARSE gtsv2StridedBatch / row; best = fastest triax row; bound "
      "= the pick's pattern without arithmetic, %%bnd = auto's %% of it, 2x? = whether bound <= "
      "cuSPARSE / 2; stream = one launch of the same bytes):\n");
  std::printf("%-6s %6s %5s %8s %8s %8s %6s %8s %5s %3s %8s %8s %6s %6s  %s\n", "prec", "systems",
              "n", "cusparse", "old", "auto", "x", "bound", "%bnd", "2x?", "stream", "best", "x",
              "%copy", "best row");
  const std::map<std::string, Group> groups = group_rows(rows);
  std::vector<const Group*> order;  // by precision, systems, n
  for (const auto& [at, g] : groups) {
    if (g.pick) order.push_back(&g);
  }
  std::sort(order.begin(), order.end(), [](const Group* x, const Group* y) {
    return std::tie(x->pick->precision, x->pick->systems, x->pick->n) <
           std::tie(y->pick->precision, y->pick->systems, y->pick->n);
  });
  for (const Group* gp : order) {
    const Group& g = *gp;
    const Row* best = g.pick;
    for (const auto& [name, r] : g.by_name) {
      if (r->median_ms > 0 && r->median_ms < best->median_ms) best = r;
    }
    double cus = 0;
    for (const auto& [name, ms] : g.baseline_ms) {
      if (name.find("gtsv2StridedBatch") != std::string::npos) cus = ms;
    }
    const auto old = g.by_name.find(g.pick->algorithm + " [old]");
    const double bound = baseline_named(g, hybrid_bound_name);
    std::printf(
        "%-6s %6lld %5lld %8.4f %8.4f %8.4f %6.2f %8.4f %5.1f %3s %8.4f %8.4f %6.2f %6.1f  %s\n",
        g.pick->precision.c_str(), static_cast<long long>(g.pick->systems),
        static_cast<long long>(g.pick->n), cus,
        old == g.by_name.end() ? 0.0 : old->second->median_ms, g.pick->median_ms,
        cus / g.pick->median_ms, bound, pct_of_bound(g.pick->median_ms, bound),
        bound <= 0 ? "-" : (bound <= cus / 2 ? "yes" : "no"), baseline_named(g, stream_bound_name),
        best->median_ms, cus / best->median_ms, best->pct_copy, best->algorithm.c_str());
  }
  print_cyclic_bound_lines(order);
}

void print_copy(const char* what, const CopyReference& copy) {
  std::printf("%s copy reference: %.1f GB/s (%s; 2 x %.2f GiB moved per copy;", what, copy.gbps,
              copy.how.c_str(), copy.bytes / double(1 << 30));
  for (const auto& [name, gbps] : copy.candidates) std::printf(" %s %.1f", name.c_str(), gbps);
  std::printf(")\n");
  if (copy.stream_gbps > 0) {
    std::printf(
        "%s stream reference: %.1f GB/s = %.1f%% of the copy (a + b + c + d into d in memory "
        "order, 5 arrays counted: an in-place solve's traffic, no arithmetic)\n",
        what, copy.stream_gbps, 100.0 * copy.stream_gbps / copy.gbps);
  }
}

void print_header() {
  std::printf("%-8s %-37s %-6s %-14s %4s %6s %9s %9s %8s %6s %-24s %9s %7s %8s\n", "backend",
              "algorithm", "prec", "extents", "axis", "n", "systems", "median_ms", "GB/s", "%copy",
              "baseline", "base_ms", "speedup", "resid");
}

void print_row(const Row& r) {
  std::printf("%-8s %-37s %-6s %-14s %4d %6lld %9lld %9.3f %8.1f %6.1f %-24s ", r.backend.c_str(),
              (r.algorithm + (r.automatic ? " *" : "")).c_str(), r.precision.c_str(),
              extents_text(r.extents).c_str(), r.axis, static_cast<long long>(r.n),
              static_cast<long long>(r.systems), r.median_ms, r.gbps, r.pct_copy,
              r.baseline.empty() ? "-" : r.baseline.c_str());
  if (r.baseline.empty()) {
    std::printf("%9s %7s ", "-", "-");
  } else {
    std::printf("%9.3f %6.2fx ", r.baseline_ms, r.speedup);
  }
  std::printf("%8.1e", r.residual);
  // GPU: % of the two-pass bound (gpu_two_pass_bound.hpp; 100 = as fast as it).
  if (r.pct_bound > 0 && r.block_m == 0) std::printf(" %6.1f%%2pass", r.pct_bound);
  std::printf("\n");
  std::fflush(stdout);
}

std::vector<TargetResult> check_targets(const std::string& suite, const std::vector<Row>& rows) {
  std::vector<TargetResult> out;
  for (const auto& [at, g] : group_rows(rows)) {
    if (!g.pick && !g.best) continue;
    const Row& r = g.pick ? *g.pick : *g.best;
    if (suite == "cpu") {
      out.push_back(
          judge(">= 8x lapack gtsv (speedup)", at, g, 8.0,
                [](const Row& x, const Group& gg) { return speedup_over(x, gg, "gtsv"); }));
      out.push_back(judge(r.axis == 0 ? ">= 65% of copy on axis 0" : ">= 75% of copy on axes 1, 2",
                          at, g, r.axis == 0 ? 65.0 : 75.0, pct_of_copy));
    } else if (suite == "gpu") {
      if (r.n == 256 || r.n == 512)
        out.push_back(judge(">= 88% of copy (n 256, 512)", at, g, 88.0, pct_of_copy));
      if (r.n == 1024) out.push_back(judge(">= 85% of copy (n 1024)", at, g, 85.0, pct_of_copy));
      out.push_back(judge(">= 70% of copy (every n)", at, g, 70.0, pct_of_copy));
      if (r.axis == 0) {
        out.push_back(judge(">= 4x gtsv2StridedBatch (axis 0)", at, g, 4.0,
                            [](const Row& x, const Group& gg) {
                              return speedup_over(x, gg, "gtsv2StridedBatch");
                            }));
      }
      if (r.axis + 1 == static_cast<int>(r.extents.size())) {
        out.push_back(judge(">= 1.7x gtsvInterleavedBatch (last axis)", at, g, 1.7,
                            [](const Row& x, const Group& gg) {
                              return speedup_over(x, gg, "gtsvInterleavedBatch");
                            }));
      }
    } else if (suite == "small") {
      small_targets(at, g, out);
    }
  }
  return out;
}

void print_targets(const std::vector<TargetResult>& results) {
  int passed = 0;
  std::printf("\ntargets (judged on the automatic pick, marked * above):\n");
  for (const auto& t : results) {
    passed += t.pass;
    std::printf("%s  %-42s %-36s %8.2f (bar %g)  %s\n", t.pass ? "PASS" : "FAIL", t.target.c_str(),
                t.where.c_str(), t.value, t.bar, t.note.c_str());
  }
  std::printf("%d of %zu targets passed\n", passed, results.size());
}

// The JSON file: nlohmann::ordered_json keeps the keys in the order written here. The
// serializers stand in triax::bench, where nlohmann's lookup (ADL) finds them.
using Json = nlohmann::ordered_json;

void to_json(Json& j, const CopyReference& c) {
  j = {{"how", c.how}, {"buffer_bytes", number(c.bytes)}, {"gbps", number(c.gbps)}};
  Json& candidates = j["candidates"] = Json::object();
  for (const auto& [name, gbps] : c.candidates) candidates[name] = number(gbps);
  if (c.stream_gbps > 0) j["stream_gbps"] = number(c.stream_gbps);
}

void to_json(Json& j, const Row& r) {
  j = {{"backend", r.backend},
       {"algorithm", r.algorithm},
       {"automatic", r.automatic},
       {"precision", r.precision},
       {"mode", r.mode},
       {"extents", r.extents},
       {"axis", r.axis},
       {"n", r.n},
       {"systems", r.systems},
       {"bytes", number(r.bytes)},
       {"median_ms", number(r.median_ms)},
       {"min_ms", number(r.min_ms)},
       {"max_ms", number(r.max_ms)},
       {"gbps", number(r.gbps)},
       {"pct_copy", number(r.pct_copy)},
       {"residual", number(r.residual)},
       {"baseline", r.baseline},
       {"baseline_ms", number(r.baseline_ms)},
       {"speedup", number(r.speedup)},
       {"block_m", r.block_m},
       {"gflops", number(r.gflops)},
       {"block_layout", r.block_layout}};
  if (r.bound_ms > 0) {
    j["bound_ms"] = number(r.bound_ms);
    j["bound_gbps"] = number(r.bound_gbps);
    j["pct_bound"] = number(r.pct_bound);
  }
  if (r.pattern_bound_ms > 0) {
    j["pattern_bound_ms"] = number(r.pattern_bound_ms);
    j["pct_pattern_bound"] = number(r.pct_pattern_bound);
  }
  if (r.launches > 1) j["launches"] = r.launches;
}

void to_json(Json& j, const TargetResult& t) {
  j = {{"target", t.target},   {"where", t.where}, {"value", number(t.value)},
       {"bar", number(t.bar)}, {"pass", t.pass},   {"note", t.note}};
  if (t.bound_ms > 0) {
    j["bound_ms"] = number(t.bound_ms);
    j["pct_bound"] = number(t.pct_bound);
    j["bar_reachable"] = t.reachable == 1;
  }
}

void to_json(Json& j, const ShapeRow& s) {
  to_json(j, s.row);
  j["shape_class"] = s.shape_class;
  j["shape"] = s.shape;
  j["counts"] = s.counts;
  j["copy_same_ms"] = number(s.copy_same_ms);
  j["floor_ms"] = number(s.floor_ms);
  j["pct_stream"] = number(s.pct_stream);
}

void to_json(Json& j, const ShapeSummary& s) {
  j = {{"group", s.group},          {"precision", s.precision}, {"basis", s.basis},
       {"rows", s.rows},            {"counted", s.counted},     {"median", number(s.median)},
       {"p10", number(s.p10)},      {"min", number(s.min)},     {"bar", s.bar},
       {"pass", s.pass}};
}

namespace {

/// What every JSON file starts with: the tool, the machine, the suite and the copy references.
Json run_header(const RunInfo& info, const char* bytes_counted) {
  Json j{{"tool", "triax-bench"},
         {"host", info.host},
         {"device", info.device},
         {"suite", info.suite},
         {"mode", info.mode},
         {"lapack", info.lapack},
         {"host_pages", info.host_pages},
         {"bytes_counted", bytes_counted},
         {"statistic", "median"}};
  if (info.host_copy.gbps > 0) j["host_copy"] = info.host_copy;
  if (info.device_copy.gbps > 0) j["device_copy"] = info.device_copy;
  return j;
}

void write_file(const std::string& path, const Json& j) {
  std::ofstream file(path);
  if (!file) throw std::runtime_error("cannot write " + path);
  // Bytes that are not UTF-8 (in a host or error text) become U+FFFD instead of an exception.
  file << j.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}

}  // namespace

void write_json(const std::string& path, const RunInfo& info, const std::vector<Row>& rows,
                const std::vector<TargetResult>& targets) {
  Json j = run_header(info, "read a, b, c, d and write x (increment also reads u)");
  j["rows"] = rows;
  j["errors"] = info.errors;
  j["targets"] = targets;
  write_file(path, j);
}

void write_shape_json(const std::string& path, const RunInfo& info,
                      const std::vector<ShapeRow>& rows, const std::vector<ShapeSummary>& summary) {
  Json j = run_header(info,
                      "read a, b, c (where not broadcast) and d, write x (increment also reads u)");
  j["rows"] = rows;
  j["errors"] = info.errors;
  j["summary"] = summary;
  write_file(path, j);
}

}  // namespace triax::bench
