#include "options.hpp"

#include "triax/layout.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

namespace triax::bench {
namespace {

constexpr const char* usage =
    R"(triax-bench: batched tridiagonal solves against baselines and a device copy.

  --backend cpu|cuda|reference   (default cpu)
  --precision float|double|both  repeatable (default double)
  --extents 256x256x256          any rank, dimension 0 fastest (default 256x256x256)
  --axis k|all                   (default all)
  --algorithm automatic|all|NAME all = every algorithm of the backend the plan accepts
  --mode inplace|separate|increment   (default inplace: d is overwritten by x)
  --reps R                       timed solves per row, median reported (default 20, >= 10)
  --no-baseline                  skip LAPACK / cuSPARSE
  --baselines-only               time the copy and the baselines alone (no triax solves)
  --suite cpu|gpu                predefined suites (docs/performance.md)
  --check-targets                print PASS/FAIL per target of the suite (exit code stays 0)
  --copy-gib G                   size of each copy-reference buffer (default 1 cpu, 2 cuda)
  --json FILE                    write every row as JSON
  --small-pages                  host buffers in the kernel's default pages (default: 2 MiB
                                 aligned, transparent huge pages requested with madvise)
  --block-m 2,4,8                block tridiagonal rows (cpu) at paper 000's sizes for these M
                                 (Tables III-IV: N = 128, P = 65536 for M <= 6; N = 96,
                                 P = 32768 for M = 7, 8); replaces the scalar cases
  --block-grid                   block rows on a 64^3 grid, M = 5, along each axis
  --block-p-divisor K            divide the paper's P by K (default 1; the grid case keeps 64^3)
)";

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "triax-bench: %s\n\n%s", message.c_str(), usage);
  std::exit(2);
}

std::vector<std::int64_t> parse_extents(std::string_view s) {
  std::vector<std::int64_t> e;
  while (!s.empty()) {
    const auto x = s.find('x');
    const std::string part(s.substr(0, x));
    char* end = nullptr;
    const long long v = std::strtoll(part.c_str(), &end, 10);
    if (part.empty() || *end != '\0' || v < 1) fail("bad extent '" + part + "' in --extents");
    e.push_back(v);
    s = x == std::string_view::npos ? std::string_view() : s.substr(x + 1);
  }
  if (e.empty() || e.size() > static_cast<std::size_t>(triax::max_rank)) {
    fail("--extents needs 1 to 8 extents");
  }
  return e;
}

Backend parse_backend(std::string_view s) {
  for (Backend b : {Backend::cpu, Backend::cuda, Backend::reference}) {
    if (s == triax::to_string(b)) return b;
  }
  fail("unknown backend '" + std::string(s) + "'");
}

/// n in {64..2048} along each axis of a 3-D array whose other two extents hold >= 2^24 points.
std::vector<std::int64_t> sweep_extents(std::int64_t n, int axis) {
  int bits = 24;
  for (std::int64_t m = n; m > 1; m /= 2) --bits;
  const std::int64_t e1 = std::int64_t(1) << ((bits + 1) / 2), e2 = std::int64_t(1) << (bits / 2);
  std::vector<std::int64_t> e{e1, e2};
  e.insert(e.begin() + axis, n);
  return e;
}

}  // namespace

const char* to_string(Mode mode) {
  switch (mode) {
    case Mode::in_place:
      return "inplace";
    case Mode::separate:
      return "separate";
    case Mode::increment:
      return "increment";
  }
  return "?";
}

const char* to_string(Precision precision) {
  return precision == Precision::f32 ? "float" : "double";
}

std::vector<Algorithm> algorithms_of(Backend backend) {
  const std::string prefix = std::string(triax::to_string(backend)) + "_";
  std::vector<Algorithm> out;
  for (int i = 1;; ++i) {
    const auto name = triax::to_string(static_cast<Algorithm>(i));
    if (name == "unknown") break;
    if (name.starts_with(prefix)) out.push_back(static_cast<Algorithm>(i));
  }
  return out;
}

std::vector<Algorithm> requested_algorithms(const Case& c) {
  if (c.baselines_only) return {};
  if (c.algorithm == "automatic") return {Algorithm::automatic};
  if (c.algorithm == "all") return algorithms_of(c.backend);
  for (int i = 1;; ++i) {
    const auto name = triax::to_string(static_cast<Algorithm>(i));
    if (name == "unknown") break;
    if (name == c.algorithm) return {static_cast<Algorithm>(i)};
  }
  fail("unknown algorithm '" + c.algorithm + "'");
}

std::vector<Case> suite_cases(const std::string& suite, int reps, bool baselines_only) {
  std::vector<Case> cases;
  Case base;
  base.algorithm = "all";
  base.reps = reps;
  base.baselines_only = baselines_only;
  for (Precision p : {Precision::f32, Precision::f64}) {
    base.precision = p;
    if (suite == "cpu") {
      base.backend = Backend::cpu;
      base.extents = {256, 256, 256};
      base.axes = {0, 1, 2};
      cases.push_back(base);
    } else if (suite == "gpu") {
      base.backend = Backend::cuda;
      for (std::int64_t n = 64; n <= 2048; n *= 2) {
        for (int axis = 0; axis < 3; ++axis) {
          base.extents = sweep_extents(n, axis);
          base.axes = {axis};
          cases.push_back(base);
        }
      }
      // The 256^3 cube is the sweep's n = 256 point on every axis; 512^3 comes on top.
      base.extents = {512, 512, 512};
      base.axes = {0, 1, 2};
      cases.push_back(base);
    } else {
      fail("unknown suite '" + suite + "' (cpu or gpu)");
    }
  }
  return cases;
}

Config parse_command_line(int argc, char** argv) {
  Config cfg;
  Case c;
  std::vector<Precision> precisions;
  std::string axis = "all";
  bool baselines_only = false;
  std::vector<int> block_ms;
  bool block_grid = false;
  std::int64_t block_p_divisor = 1;
  c.extents = {256, 256, 256};
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) fail(std::string(arg) + " needs a value");
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      std::fputs(usage, stdout);
      std::exit(0);
    } else if (arg == "--backend") {
      c.backend = parse_backend(next());
    } else if (arg == "--precision") {
      const std::string p = next();
      if (p == "float" || p == "both") precisions.push_back(Precision::f32);
      if (p == "double" || p == "both") precisions.push_back(Precision::f64);
      if (p != "float" && p != "double" && p != "both") fail("unknown precision '" + p + "'");
    } else if (arg == "--extents") {
      c.extents = parse_extents(next());
    } else if (arg == "--axis") {
      axis = next();
    } else if (arg == "--algorithm") {
      c.algorithm = next();
    } else if (arg == "--mode") {
      const std::string m = next();
      if (m == "inplace")
        c.mode = Mode::in_place;
      else if (m == "separate")
        c.mode = Mode::separate;
      else if (m == "increment")
        c.mode = Mode::increment;
      else
        fail("unknown mode '" + m + "'");
    } else if (arg == "--reps") {
      c.reps = std::atoi(next().c_str());
      if (c.reps < 10) fail("--reps must be at least 10");
    } else if (arg == "--no-baseline") {
      c.baselines = false;
    } else if (arg == "--baselines-only") {
      baselines_only = true;
    } else if (arg == "--suite") {
      cfg.suite = next();
    } else if (arg == "--check-targets") {
      cfg.check_targets = true;
    } else if (arg == "--copy-gib") {
      cfg.copy_gib = std::atof(next().c_str());
      if (!(cfg.copy_gib >= 1)) fail("--copy-gib must be at least 1");
    } else if (arg == "--small-pages") {
      cfg.huge_pages = false;
    } else if (arg == "--json") {
      cfg.json_path = next();
    } else if (arg == "--block-m") {
      const std::string list = next();
      for (std::size_t at = 0; at <= list.size();) {
        const std::size_t comma = std::min(list.find(',', at), list.size());
        const int m = std::atoi(list.substr(at, comma - at).c_str());
        if (m < 1) fail("bad block size in --block-m " + list);
        block_ms.push_back(m);
        at = comma + 1;
      }
    } else if (arg == "--block-grid") {
      block_grid = true;
    } else if (arg == "--block-p-divisor") {
      block_p_divisor = std::atoll(next().c_str());
      if (block_p_divisor < 1) fail("--block-p-divisor must be at least 1");
    } else {
      fail("unknown argument '" + std::string(arg) + "'");
    }
  }
  if (!block_ms.empty() || block_grid) {
    if (precisions.empty()) precisions.push_back(Precision::f64);
    for (Precision p : precisions) {
      for (int m : block_ms) {
        BlockCase b = paper_block_case(p, m, block_p_divisor, c.reps);
        b.baselines = c.baselines;
        cfg.block_cases.push_back(b);
      }
      for (int axis = 0; block_grid && axis < 3; ++axis) {
        BlockCase b;
        b.precision = p;
        b.m = 5;
        b.grid = {64, 64, 64};
        b.axis = axis;
        b.reps = c.reps;
        b.baselines = c.baselines;
        cfg.block_cases.push_back(b);
      }
    }
    return cfg;
  }
  if (!cfg.suite.empty()) {
    cfg.cases = suite_cases(cfg.suite, c.reps, baselines_only);
    for (auto& s : cfg.cases) s.mode = c.mode;
    return cfg;
  }
  if (axis == "all") {
    for (int k = 0; k < static_cast<int>(c.extents.size()); ++k) c.axes.push_back(k);
  } else {
    const int k = std::atoi(axis.c_str());
    if (k < 0 || k >= static_cast<int>(c.extents.size()) || axis.empty()) {
      fail("--axis " + axis + " is not an axis of the extents");
    }
    c.axes = {k};
  }
  c.baselines_only = baselines_only;
  requested_algorithms(c);  // rejects an unknown name now
  if (precisions.empty()) precisions.push_back(Precision::f64);
  for (Precision p : precisions) {
    c.precision = p;
    cfg.cases.push_back(c);
  }
  return cfg;
}

}  // namespace triax::bench
