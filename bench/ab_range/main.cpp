// triax-bench-ab-range: what the CPU kernels' range guard (issue 34: the pivot scale of
// src/cpu/scalar/thomas_lanes.hpp, forward_row) costs, timed in ONE process. Separate processes
// on the 16-core host differed by -24% to +44% with the sign following process order and page
// size (docs/notes/floating-range-cost.md), far above the 2% the issue asks about; here all plans
// solve the same page-warm arrays, each once per repetition, so that whatever state the process,
// its pages or the host are in, all see it.
//
// Each plan is made with TRIAX_CPU_RANGE_GUARD set in the environment (a diagnostic switch read
// at plan creation: cpu_plan.cpp): the candidates (--guards; by default unset, each copy's own guard
// alone) and the baseline (--baseline; by default "0", no guard).
//
// Per row (edge^3, packed, the solve along one axis, one precision, one thread count, one
// candidate): the median solve time of the candidate and the baseline, the median over
// repetitions of t_candidate / t_baseline (and of t_candidate / t_scaled, the scaled guard,
// where that is among the candidates), and a bootstrap 95%
// interval of that median (pairs resampled, fixed seed). A verdict: "within 2%" where the
// interval's upper end is at most 1.02, "over 2%" where its lower end exceeds 1.02, else
// "unresolved". Each repetition is an in-place solve of d restored from a copy and the caches
// flushed by reading 256 MiB (as triax-bench's in-place rows), both untimed.
#include <triax/triax.hpp>

#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "../host_memory.hpp"

namespace {

using triax::bench::flush_host_caches;
using triax::bench::host_array;
using triax::bench::HostArray;
using triax::bench::parallel_copy;

constexpr const char* guard_variable = "TRIAX_CPU_RANGE_GUARD";

/// A cpu Solver made with TRIAX_CPU_RANGE_GUARD set to `guard` ("" leaves it unset: the library's
/// guard; "0": none; other names: cpu/range_guard.hpp's forms under trial). The variable is read
/// at plan creation and restored to what it was, so that nothing else in the process sees it.
template <class T>
triax::Solver<T> make_solver(const std::string& guard, const triax::Layout& layout, int axis,
                             int threads) {
  const char* before = std::getenv(guard_variable);
  const std::string saved = before ? before : "";
  if (guard.empty()) {
    unsetenv(guard_variable);
  } else {
    setenv(guard_variable, guard.c_str(), 1);
  }
  triax::Options o;
  o.num_threads = threads;
  triax::Solver<T> s(triax::Backend::cpu, layout, axis, o);
  if (before) {
    setenv(guard_variable, saved.c_str(), 1);
  } else {
    unsetenv(guard_variable);
  }
  return s;
}

/// Whether a plan made with `guard` solves 64 one-row systems b = d = 2^-130 (float; 2^-1060
/// double), x = 1, which every guard gives and the plain reciprocal (1/m = inf) does not.
template <class T>
bool solves_subnormal_pivots(const std::string& guard) {
  constexpr std::int64_t count = 64;
  const T tiny = std::ldexp(T(1), sizeof(T) == 4 ? -130 : -1060);
  const auto layout = triax::Layout::packed({1, count});
  std::vector<T> a(count, T(0)), b(count, tiny), c(count, T(0)), d(count, tiny);
  make_solver<T>(guard, layout, 0, 1).solve_in_place(a.data(), b.data(), c.data(), d.data());
  return d[0] == T(1);
}

/// Whether the switch reaches the kernels: every guard solves the subnormal pivots, the
/// baseline (unguarded) does not.
template <class T>
bool switch_effective(const std::vector<std::string>& guards, const std::string& baseline) {
  bool ok = !solves_subnormal_pivots<T>(baseline);
  for (const auto& g : guards) ok = ok && solves_subnormal_pivots<T>(g);
  return ok;
}

struct Row {
  std::string guard;  // the candidate's TRIAX_CPU_RANGE_GUARD ("default" = unset, the copy's own)
  std::string precision;
  std::int64_t edge = 0;
  int axis = 0, threads = 0, pairs = 0;
  std::string algorithm_guarded, algorithm_unguarded;
  double guarded_ms = 0, unguarded_ms = 0, ratio = 0, ratio_lo = 0, ratio_hi = 0;
  double scaled_ratio = 0, scaled_lo = 0, scaled_hi = 0;  // against the scaled guard
  bool against_scaled = false;
  double bytes = 0;  // counted as triax-bench's in-place rows: a, b, c, d read, d written
  bool bitwise_equal = false;
  std::string verdict;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size();
  return m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
}

/// The 2.5% and 97.5% points of the median of `ratios` over `draws` resamples (with replacement).
std::pair<double, double> bootstrap_interval(const std::vector<double>& ratios, int draws) {
  std::mt19937_64 rng(20261127);
  std::uniform_int_distribution<std::size_t> pick(0, ratios.size() - 1);
  std::vector<double> medians(draws), sample(ratios.size());
  for (int k = 0; k < draws; ++k) {
    for (double& x : sample) x = ratios[pick(rng)];
    medians[k] = median(sample);
  }
  std::sort(medians.begin(), medians.end());
  const auto at = [&](double q) {
    return medians[std::min<std::size_t>(draws - 1, static_cast<std::size_t>(q * draws))];
  };
  return {at(0.025), at(0.975)};
}

double elapsed_ms(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// Diagonally dominant systems with random entries (normal range: both plans must agree bit for
/// bit), filled in parallel so that every page is first touched by the threads that solve.
template <class T>
void fill(T* a, T* b, T* c, T* d0, std::int64_t total) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < total; ++i) {
    std::uint64_t h = (static_cast<std::uint64_t>(i) + 1) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    const T u = T(h & 0xffff) / T(65536), v = T((h >> 16) & 0xffff) / T(65536);
    a[i] = T(-1) + T(0.2) * u;
    c[i] = T(-1) - T(0.2) * v;
    b[i] = T(4) + u - v;
    d0[i] = u - v;
  }
}

/// The candidates' rows for one case: median times, the median over pairs of t_candidate /
/// t_baseline, and where the scaled guard ("1" or "scaled") is among the plans, t_candidate /
/// t_scaled the same way.
void add_rows(const std::vector<std::string>& guards, const std::vector<std::vector<double>>& ms,
              const std::vector<bool>& equal, Row base, int draws, std::vector<Row>& rows) {
  const std::size_t plans = ms.size();  // the candidates, then the baseline
  std::size_t scaled = plans;
  for (std::size_t k = 0; k < guards.size(); ++k) {
    if (guards[k] == "1" || guards[k] == "scaled") scaled = k;
  }
  const auto ratios_of = [&](std::size_t k, std::size_t ref) {
    std::vector<double> r(ms[k].size());
    for (std::size_t p = 0; p < r.size(); ++p) r[p] = ms[k][p] / ms[ref][p];
    return r;
  };
  for (std::size_t k = 0; k + 1 < plans; ++k) {
    Row r = base;
    r.guard = guards[k].empty() ? "default" : guards[k];
    r.guarded_ms = median(ms[k]);
    r.unguarded_ms = median(ms[plans - 1]);
    const auto ratios = ratios_of(k, plans - 1);
    r.ratio = median(ratios);
    std::tie(r.ratio_lo, r.ratio_hi) = bootstrap_interval(ratios, draws);
    r.bitwise_equal = equal[k];
    r.verdict = r.ratio_hi <= 1.02 ? "within 2%" : r.ratio_lo > 1.02 ? "over 2%" : "unresolved";
    r.against_scaled = scaled < plans && scaled != k;
    if (r.against_scaled) {
      const auto vs = ratios_of(k, scaled);
      r.scaled_ratio = median(vs);
      std::tie(r.scaled_lo, r.scaled_hi) = bootstrap_interval(vs, draws);
    }
    std::printf(
        "%-6s %4lld^3 axis %d %2d thr  %-8s %8.3f ms %6.1f GB/s  base %8.3f ms  "
        "ratio %.4f [%.4f, %.4f]  %-10s",
        r.precision.c_str(), static_cast<long long>(r.edge), r.axis, r.threads, r.guard.c_str(),
        r.guarded_ms, r.bytes / (r.guarded_ms * 1e6), r.unguarded_ms, r.ratio, r.ratio_lo,
        r.ratio_hi, r.verdict.c_str());
    if (r.against_scaled) {
      std::printf("  vs scaled %.4f [%.4f, %.4f]", r.scaled_ratio, r.scaled_lo, r.scaled_hi);
    }
    std::printf("  %s%s\n", r.algorithm_guarded.c_str(), r.bitwise_equal ? "" : "  RESULTS DIFFER");
    std::fflush(stdout);
    rows.push_back(r);
  }
}

template <class T>
void run_edge(std::int64_t edge, const std::vector<int>& threads, const std::vector<std::string>& guards,
              const std::string& baseline, int pairs, bool flush, bool rotate, int draws,
              std::vector<Row>& rows) {
  const std::int64_t total = edge * edge * edge;
  HostArray<T> a = host_array<T>(total), b = host_array<T>(total), c = host_array<T>(total),
               d0 = host_array<T>(total), d = host_array<T>(total), x = host_array<T>(total);
  fill(a.get(), b.get(), c.get(), d0.get(), total);
  const std::size_t bytes = static_cast<std::size_t>(total) * sizeof(T);
  parallel_copy(d.get(), d0.get(), bytes);
  parallel_copy(x.get(), d0.get(), bytes);
  const auto layout = triax::Layout::packed({edge, edge, edge});
  const std::size_t count = guards.size() + 1;  // the candidates, then the baseline
  for (const int t : threads) {
    for (int axis = 0; axis < 3; ++axis) {
      std::vector<triax::Solver<T>> plans;
      for (const auto& g : guards) plans.push_back(make_solver<T>(g, layout, axis, t));
      plans.push_back(make_solver<T>(baseline, layout, axis, t));
      std::vector<std::vector<double>> ms(count);
      // One untimed solve of each first (pages, workspace), then repetitions of every plan once:
      // the candidates in order, then the baseline (--order abba: the order turned by one plan
      // every repetition, so that each plan takes each position equally often).
      for (int rep = -1; rep < pairs; ++rep) {
        for (std::size_t step = 0; step < count; ++step) {
          const std::size_t k = rotate && rep >= 0 ? (step + rep) % count : step;
          parallel_copy(d.get(), d0.get(), bytes);
          if (flush) flush_host_caches();
          const auto t0 = std::chrono::steady_clock::now();
          plans[k].solve_in_place(a.get(), b.get(), c.get(), d.get());
          const double elapsed = elapsed_ms(t0);
          if (rep >= 0) ms[k].push_back(elapsed);
        }
      }
      // Every candidate's result against the baseline's, bit for bit (untimed solves).
      parallel_copy(x.get(), d0.get(), bytes);
      plans[count - 1].solve_in_place(a.get(), b.get(), c.get(), x.get());
      std::vector<bool> equal(count - 1);
      for (std::size_t k = 0; k + 1 < count; ++k) {
        parallel_copy(d.get(), d0.get(), bytes);
        plans[k].solve_in_place(a.get(), b.get(), c.get(), d.get());
        equal[k] = std::equal(x.get(), x.get() + total, d.get(),
                              [](T p, T q) { return std::memcmp(&p, &q, sizeof(T)) == 0; });
      }
      Row r;
      r.precision = sizeof(T) == 4 ? "float" : "double";
      r.edge = edge;
      r.axis = axis;
      r.threads = t;
      r.pairs = pairs;
      r.algorithm_guarded = std::string(triax::to_string(plans[0].algorithm()));
      r.algorithm_unguarded = std::string(triax::to_string(plans[count - 1].algorithm()));
      r.bytes = 5.0 * static_cast<double>(total) * sizeof(T);
      add_rows(guards, ms, equal, r, draws, rows);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"triax-bench-ab-range: the CPU range guard's cost, both plans in one process"};
  std::vector<std::int64_t> edges{256, 128};
  std::vector<int> threads{16, 1};
  std::vector<std::string> precisions{"float", "double"};
  int pairs = 30, draws = 4000;
  bool no_flush = false, small_pages = false;
  std::string order = "abab";
  std::string json_path;
  std::vector<std::string> guards{""};
  std::string baseline = "0";
  app.add_option("--guards", guards,
                 "the candidates: values of TRIAX_CPU_RANGE_GUARD (empty = unset, the copy's own; "
                 "1 or scaled, getexp: src/cpu/range_guard.hpp)")
      ->delimiter(',');
  app.add_option("--baseline", baseline, "the plan every candidate is timed against (0: no guard)");
  app.add_option("--edges", edges, "cube edges (packed edge^3, every axis)")->delimiter(',');
  app.add_option("--threads", threads, "OpenMP thread counts of the plans")->delimiter(',');
  app.add_option("--precision", precisions, "float, double or both")
      ->delimiter(',')
      ->check(CLI::IsMember({"float", "double"}));
  app.add_option("--pairs", pairs, "timed pairs per row (at least 30)")
      ->check(CLI::Range(30, 100000));
  app.add_option("--draws", draws, "bootstrap resamples")->check(CLI::Range(100, 1000000));
  app.add_flag("--no-flush", no_flush, "do not read 256 MiB between solves to flush the caches");
  app.add_option("--order", order,
                 "abab: the candidates first in every repetition, the baseline last; abba: the "
                 "order turned by one plan every repetition")
      ->check(CLI::IsMember({"abab", "abba"}));
  app.add_flag("--small-pages", small_pages, "no transparent huge pages for the arrays");
  app.add_option("--json", json_path, "write the rows to this file");
  CLI11_PARSE(app, argc, argv);
  for (const auto e : edges) {
    if (e < 2 || e > 2048) {
      std::fprintf(stderr, "triax-bench-ab-range: --edges: %lld is outside 2..2048\n",
                   static_cast<long long>(e));
      return 2;
    }
  }
  for (const int t : threads) {
    if (t < 1 || t > 1024) {
      std::fprintf(stderr, "triax-bench-ab-range: --threads: %d is outside 1..1024\n", t);
      return 2;
    }
  }
  triax::bench::set_huge_pages(!small_pages);
  const char* bind = std::getenv("OMP_PROC_BIND");
  const char* places = std::getenv("OMP_PLACES");
  const bool effective_f = switch_effective<float>(guards, baseline),
             effective_d = switch_effective<double>(guards, baseline);
  std::printf(
      "triax-bench-ab-range: %d pairs per row (%s), caches %s, %s pages, OMP_PROC_BIND=%s "
      "OMP_PLACES=%s, "
      "%d OpenMP threads by default; switch reaches the kernels: float %s, double %s\n"
      "ratio = t_candidate / t_baseline (%s) per repetition (median, bootstrap 95%% interval)\n",
      pairs, order.c_str(), no_flush ? "not flushed" : "flushed",
      small_pages ? "4 KiB" : "huge (advised)", bind ? bind : "(unset)",
      places ? places : "(unset)", omp_get_max_threads(), effective_f ? "yes" : "NO",
      effective_d ? "yes" : "NO", baseline.c_str());
  std::vector<Row> rows;
  for (const auto e : edges) {
    for (const auto& p : precisions) {
      if (p == "float") run_edge<float>(e, threads, guards, baseline, pairs, !no_flush, order == "abba", draws,
                                     rows);
      if (p == "double")
        run_edge<double>(e, threads, guards, baseline, pairs, !no_flush, order == "abba", draws,
                         rows);
    }
  }
  int within = 0, over = 0;
  bool equal = true;
  for (const Row& r : rows) {
    equal = equal && r.bitwise_equal;
    within += r.verdict == "within 2%";
    over += r.verdict == "over 2%";
  }
  std::printf("summary: %d rows, %d within 2%%, %d over 2%%, %zu unresolved\n",
              static_cast<int>(rows.size()), within, over, rows.size() - within - over);
  if (!json_path.empty()) {
    nlohmann::json j;
    j["tool"] = "triax-bench-ab-range";
    j["pairs"] = pairs;
    j["bootstrap_draws"] = draws;
    j["caches_flushed"] = !no_flush;
    j["order"] = order;
    j["huge_pages_advised"] = !small_pages;
    j["omp_proc_bind"] = bind ? bind : "";
    j["omp_places"] = places ? places : "";
    j["host_pages"] = triax::bench::transparent_huge_page_mode();
    j["switch_effective"] = {{"float", effective_f}, {"double", effective_d}};
    j["baseline"] = baseline;
    j["ratio"] = "t_candidate / t_baseline, median over repetitions";
    for (const Row& r : rows) {
      nlohmann::json vs_scaled = nullptr;
      if (r.against_scaled) vs_scaled = {{"median", r.scaled_ratio}, {"ci95", {r.scaled_lo, r.scaled_hi}}};
      j["rows"].push_back({{"guard", r.guard},
                           {"ratio_vs_scaled", vs_scaled},
                           {"precision", r.precision},
                           {"extents", {r.edge, r.edge, r.edge}},
                           {"axis", r.axis},
                           {"threads", r.threads},
                           {"pairs", r.pairs},
                           {"algorithm", r.algorithm_guarded},
                           {"algorithm_unguarded", r.algorithm_unguarded},
                           {"bytes", r.bytes},
                           {"guarded_median_ms", r.guarded_ms},
                           {"guarded_gbps", r.bytes / (r.guarded_ms * 1e6)},
                           {"unguarded_gbps", r.bytes / (r.unguarded_ms * 1e6)},
                           {"unguarded_median_ms", r.unguarded_ms},
                           {"ratio_median", r.ratio},
                           {"ratio_ci95", {r.ratio_lo, r.ratio_hi}},
                           {"bitwise_equal", r.bitwise_equal},
                           {"verdict", r.verdict}});
    }
    std::ofstream(json_path) << j.dump(1) << "\n";
  }
  // Both plans must agree bit for bit on these normal-range systems (the scale is exact there),
  // and the switch must reach the kernels; otherwise the timings compare something else.
  return effective_f && effective_d && equal ? 0 : 1;
}
