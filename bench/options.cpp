#include "options.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "shape_spec.hpp"
#include "triax/layout.hpp"

namespace triax::bench {
namespace {

// ---- The predefined suites (--suite NAME, docs/performance.md) --------------------------------

/// A suite: its cases at one precision, from a case that holds the precision, the repetitions,
/// --baselines-only and algorithm "all". A new suite is a function and a line in `suites`.
struct Suite {
  const char* name;
  std::vector<Case> (*cases)(const Case& base);
};

/// n in {64..2048} along each axis of a 3-D array whose other two extents hold >= 2^24 points.
std::vector<std::int64_t> sweep_extents(std::int64_t n, int axis) {
  int bits = 24;
  for (std::int64_t m = n; m > 1; m /= 2) --bits;
  const std::int64_t e1 = std::int64_t(1) << ((bits + 1) / 2), e2 = std::int64_t(1) << (bits / 2);
  std::vector<std::int64_t> e{e1, e2};
  e.insert(e.begin() + axis, n);
  return e;
}

/// The 256^3 cube along each axis on the CPU.
std::vector<Case> cpu_suite(const Case& base) {
  Case c = base;
  c.backend = Backend::cpu;
  c.extents = {256, 256, 256};
  c.axes = {0, 1, 2};
  return {c};
}

/// The sweep of n along each axis on the GPU, and the 512^3 cube.
std::vector<Case> gpu_suite(const Case& base) {
  std::vector<Case> cases;
  Case c = base;
  c.backend = Backend::cuda;
  for (std::int64_t n = 64; n <= 2048; n *= 2) {
    for (int axis = 0; axis < 3; ++axis) {
      c.extents = sweep_extents(n, axis);
      c.axes = {axis};
      cases.push_back(c);
    }
  }
  // The 256^3 cube is the sweep's n = 256 point on every axis; 512^3 comes on top.
  c.extents = {512, 512, 512};
  c.axes = {0, 1, 2};
  cases.push_back(c);
  return cases;
}

/// Paper 001's grid on the backend of --backend: 64 .. 512 systems of 64 .. 512 rows, each system
/// contiguous (axis 0), and 4096 systems of 4096 rows in float (the cuda family's shared-memory
/// limit in double is 2048 rows); the five cyclic algorithms of the backend and `automatic`.
std::vector<Case> cyclic_suite(const Case& base) {
  std::vector<Case> cases;
  Case c = base;
  c.algorithm = "cyclic";
  c.axes = {0};
  for (std::int64_t systems = 64; systems <= 512; systems *= 2) {
    for (std::int64_t n = 64; n <= 512; n *= 2) {
      c.extents = {n, systems};
      cases.push_back(c);
    }
  }
  if (c.precision == Precision::f32) {
    c.extents = {4096, 4096};
    cases.push_back(c);
  }
  return cases;
}

/// The knob sweep of the small-batch spread (TRIAX_CUDA_SMALL_*, cuda/scalar/block/
/// small_batch.hpp), each a variant of `automatic`, and today's rule ("old") beside them.
std::vector<EnvVariant> small_batch_variants() {
  std::vector<EnvVariant> out;
  out.push_back({"old", Algorithm::automatic, {{"TRIAX_CUDA_SMALL_BATCH", "0"}}});
  for (int fill : {1, 2, 3, 6}) {
    for (int rows : {2, 4, 8}) {
      out.push_back({"fill " + std::to_string(fill) + " rows " + std::to_string(rows),
                     Algorithm::automatic,
                     {{"TRIAX_CUDA_SMALL_BATCH", "1"},
                      {"TRIAX_CUDA_SMALL_FILL", std::to_string(fill)},
                      {"TRIAX_CUDA_SMALL_ROWS", std::to_string(rows)}}});
    }
  }
  return out;
}

/// CR+PCR's switch size (TRIAX_CYCLIC_SWITCH_ROWS; cyclic_variants.hpp has the default) for the
/// bar against CR and PCR on 512 systems of 512 rows: 32 and below solve the reduced system in
/// one warp (warp_pcr), above it in shared memory with a barrier a step.
std::vector<EnvVariant> cr_pcr_switch_variants() {
  std::vector<EnvVariant> out;
  for (int rows : {8, 16, 32, 64, 128, 256}) {
    const std::string s = std::to_string(rows);
    out.push_back({"switch " + s, Algorithm::cuda_cr_pcr, {{"TRIAX_CYCLIC_SWITCH_ROWS", s}}});
  }
  return out;
}

/// Issue 30's small batches on the GPU: {256 .. 4096} systems x n in {64 .. 4096}, each system
/// contiguous (axis 0, as --suite cyclic has them: the hybrid's spread and cuSPARSE
/// gtsv2StridedBatch both take that layout). Rows: automatic, today's automatic ("[old]", the
/// rule TRIAX_CUDA_SMALL_BATCH=0 keeps), the spread's knob sweep, CR+PCR (the cyclic family's
/// best that does not overflow: docs/performance.md), cuSPARSE and the copy; on 512 x 512 the
/// whole family and CR+PCR's switch sizes (issue 30's CR+PCR bar); the arithmetic-free bounds of the pick's pattern (and on 512 x 512 of the
/// cyclic staging) as rows of backend "bound". --check-targets judges each size (report.cpp).
std::vector<Case> small_suite(const Case& base) {
  std::vector<Case> cases;
  Case c = base;
  c.backend = Backend::cuda;
  c.axes = {0};
  for (std::int64_t systems = 256; systems <= 4096; systems *= 2) {
    for (std::int64_t n = 64; n <= 4096; n *= 2) {
      c.extents = {n, systems};
      const bool paper_size = systems == 512 && n == 512;
      c.algorithm = paper_size ? "cyclic" : "small";
      c.variants = small_batch_variants();
      c.pattern_bounds = true;
      if (paper_size) {
        for (const EnvVariant& v : cr_pcr_switch_variants()) c.variants.push_back(v);
      }
      cases.push_back(c);
    }
  }
  return cases;
}

constexpr Suite suites[] = {
    {"cpu", cpu_suite}, {"gpu", gpu_suite}, {"cyclic", cyclic_suite}, {"small", small_suite}};

std::vector<std::string> suite_names() {
  std::vector<std::string> names;
  for (const Suite& s : suites) names.emplace_back(s.name);
  names.emplace_back("shapes");  // drawn, not listed: shape_suite.hpp
  return names;
}

// ---- Values of the options ----------------------------------------------------------------------

/// Every named algorithm, in enum order.
std::vector<Algorithm> every_algorithm() {
  std::vector<Algorithm> out;
  for (int i = 1; triax::to_string(static_cast<Algorithm>(i)) != "unknown"; ++i) {
    out.push_back(static_cast<Algorithm>(i));
  }
  return out;
}

std::optional<Algorithm> algorithm_named(std::string_view name) {
  for (Algorithm a : every_algorithm()) {
    if (triax::to_string(a) == name) return a;
  }
  return std::nullopt;
}

std::vector<std::int64_t> parse_extents(std::string_view s) {
  std::vector<std::int64_t> e;
  while (!s.empty()) {
    const auto x = s.find('x');
    const std::string part(s.substr(0, x));
    char* end = nullptr;
    const long long v = std::strtoll(part.c_str(), &end, 10);
    if (part.empty() || *end != '\0' || v < 1) {
      throw CLI::ValidationError("--extents", "bad extent '" + part + "'");
    }
    e.push_back(v);
    s = x == std::string_view::npos ? std::string_view() : s.substr(x + 1);
  }
  if (e.empty() || e.size() > static_cast<std::size_t>(triax::max_rank)) {
    throw CLI::ValidationError("--extents", "needs 1 to 8 extents");
  }
  return e;
}

/// The block sizes of one --block-m list ("2,4,8").
std::vector<int> parse_block_sizes(const std::string& list) {
  std::vector<int> out;
  for (std::size_t at = 0; at <= list.size();) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    const int m = std::atoi(list.substr(at, comma - at).c_str());
    if (m < 1) throw CLI::ValidationError("--block-m", "bad block size in " + list);
    out.push_back(m);
    at = comma + 1;
  }
  return out;
}

std::string joined(const std::vector<std::string>& names, const char* separator) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : separator) + n;
  return s;
}

/// Values that are one of `names`; CLI11 puts the option's name before the message.
CLI::Validator one_of(std::vector<std::string> names) {
  return CLI::Validator(
      [names](std::string& value) {
        if (std::find(names.begin(), names.end(), value) != names.end()) return std::string();
        return "unknown value '" + value + "' (" + joined(names, ", ") + ")";
      },
      "");
}

/// Numbers of at least `least` (CLI::Range wants an upper end and lets NaN through), read as
/// CLI11 then reads them into the option's variable.
template <class T>
CLI::Validator at_least(T least) {
  std::ostringstream bar;
  bar << least;
  return CLI::Validator(
      [least, bar = bar.str()](std::string& value) {
        T v{};
        if (CLI::detail::lexical_cast(value, v) && v >= least) return std::string();
        return "must be at least " + bar + " (got '" + value + "')";
      },
      "");
}

/// An option whose value is the name (to_string) of one of `values`, stored in `to`.
template <class E>
CLI::Option* add_choice(CLI::App& app, const std::string& name, E& to, std::vector<E> values,
                        const std::string& help) {
  std::vector<std::string> names;
  for (E v : values) names.emplace_back(to_string(v));
  return app
      .add_option_function<std::string>(
          name,
          [&to, values, names](const std::string& v) {
            to = values[std::find(names.begin(), names.end(), v) - names.begin()];
          },
          help)
      ->check(one_of(names))
      ->option_text(joined(names, "|"));
}

/// Makes a vector option take one value per occurrence (as `--precision float --precision
/// double`) and keep those of every occurrence.
CLI::Option* repeatable(CLI::Option* option) {
  return option->expected(1)->allow_extra_args(false)->multi_option_policy(
      CLI::MultiOptionPolicy::TakeAll);
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

// The cyclic family (paper 001) is left out of "all" while it is forced-only and untuned: the
// suites compare the solvers `automatic` chooses from, and the family gets its own rows (the
// paper's grid) when it is benchmarked. Named with --algorithm, it runs.
bool in_all(Algorithm a) {
  switch (a) {
    case Algorithm::cpu_cr:
    case Algorithm::cpu_pcr:
    case Algorithm::cpu_rd:
    case Algorithm::cpu_cr_pcr:
    case Algorithm::cpu_cr_rd:
    case Algorithm::cuda_cr:
    case Algorithm::cuda_pcr:
    case Algorithm::cuda_rd:
    case Algorithm::cuda_cr_pcr:
    case Algorithm::cuda_cr_rd: return false;
    default: return true;
  }
}

/// The named algorithms of a backend that "all" takes (in_all) or that it leaves out.
std::vector<Algorithm> backend_algorithms(Backend backend, bool taken_by_all) {
  const std::string prefix = std::string(triax::to_string(backend)) + "_";
  std::vector<Algorithm> out;
  for (Algorithm a : every_algorithm()) {
    if (triax::to_string(a).starts_with(prefix) && in_all(a) == taken_by_all) out.push_back(a);
  }
  return out;
}

std::vector<Algorithm> algorithms_of(Backend backend) { return backend_algorithms(backend, true); }

std::vector<Algorithm> requested_algorithms(const Case& c) {
  if (c.baselines_only) return {};
  if (c.algorithm == "automatic") return {Algorithm::automatic};
  if (c.algorithm == "all") return algorithms_of(c.backend);
  if (c.algorithm == "small") return {Algorithm::automatic, Algorithm::cuda_cr_pcr};
  if (c.algorithm == "cyclic") {
    std::vector<Algorithm> out = backend_algorithms(c.backend, false);
    out.push_back(Algorithm::automatic);
    return out;
  }
  if (const auto a = algorithm_named(c.algorithm)) return {*a};
  throw std::invalid_argument("unknown algorithm '" + c.algorithm + "'");
}

std::vector<Case> suite_cases(const std::string& suite, Backend backend, int reps,
                              bool baselines_only) {
  const auto s = std::find_if(std::begin(suites), std::end(suites),
                              [&](const Suite& x) { return suite == x.name; });
  if (s == std::end(suites)) {
    throw std::invalid_argument("unknown suite '" + suite + "' (" + joined(suite_names(), " or ") +
                                ")");
  }
  std::vector<Case> cases;
  Case base;
  base.backend = backend;
  base.algorithm = "all";
  base.reps = reps;
  base.baselines_only = baselines_only;
  for (Precision p : {Precision::f32, Precision::f64}) {
    base.precision = p;
    for (const Case& c : s->cases(base)) cases.push_back(c);
  }
  return cases;
}

Config parse_command_line(int argc, char** argv) {
  Config cfg;
  Case c;
  c.extents = {256, 256, 256};
  std::vector<std::string> precision_names;
  std::string axis = "all";
  bool no_baseline = false, baselines_only = false, small_pages = false;
  std::vector<int> block_ms;
  bool block_grid = false, block_bound = false;
  std::int64_t block_p_divisor = 1;

  CLI::App app("triax-bench: batched tridiagonal solves against baselines and a device copy.",
               "triax-bench");
  app.get_formatter()->column_width(33);
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // last one wins
  add_choice(app, "--backend", c.backend, {Backend::cpu, Backend::cuda, Backend::reference},
             "(default cpu)");
  repeatable(app.add_option("--precision", precision_names, "repeatable (default double)"))
      ->check(one_of({"float", "double", "both"}))
      ->option_text("float|double|both");
  app.add_option_function<std::string>(
         "--extents", [&](const std::string& s) { c.extents = parse_extents(s); },
         "any rank, dimension 0 fastest (default 256x256x256)")
      ->option_text("256x256x256");
  app.add_option("--axis", axis, "(default all)")->option_text("k|all");
  app.add_option("--algorithm", c.algorithm,
                 "all = every algorithm of the backend the plan accepts (the cyclic\n"
                 "family only by name); cyclic = the backend's cyclic family and automatic")
      ->check(CLI::Validator(
          [](std::string& name) {
            if (name == "automatic" || name == "all" || name == "cyclic" || algorithm_named(name)) {
              return std::string();
            }
            return "unknown algorithm '" + name + "'";
          },
          ""))
      ->option_text("automatic|all|cyclic|NAME");
  add_choice(app, "--mode", c.mode, {Mode::in_place, Mode::separate, Mode::increment},
             "(default inplace: d is overwritten by x)");
  app.add_option("--reps", c.reps, "timed solves per row, median reported (default 20, >= 10)")
      ->check(at_least(10))
      ->option_text("R");
  app.add_option("--launches", c.launches,
                 "solves back to back in each timed sample, the sample's time divided by them "
                 "(default 1: each solve timed alone)")
      ->check(CLI::Range(1, 1000))
      ->option_text("K");
  app.add_flag("--no-baseline", no_baseline, "skip LAPACK / cuSPARSE");
  app.add_flag("--baselines-only", baselines_only,
               "time the copy and the baselines alone (no triax solves)");
  app.add_option("--suite", cfg.suite, "predefined suites (docs/performance.md)")
      ->check(one_of(suite_names()))
      ->option_text(joined(suite_names(), "|"));
  std::vector<std::string> suite_extents;
  app.add_option("--suite-extents", suite_extents,
                 "keep only the suite's cases of these extents (repeatable, e.g. 512x512)")
      ->option_text("AxB..");
  app.add_option("--shape-seed", cfg.shapes.seed,
                 "--suite shapes: the seed of the draw (default 2026)")
      ->option_text("N");
  repeatable(app.add_option_function<std::vector<std::string>>(
                 "--shape",
                 [&](const std::vector<std::string>& specs) {
                   for (const auto& spec : specs) {
                     try {
                       cfg.shapes.given.push_back(parse_shape_draw(spec));
                     } catch (const std::invalid_argument& e) {
                       throw CLI::ValidationError("--shape", e.what());
                     }
                   }
                 },
                 "--suite shapes: time this draw instead of the seeded ones\n"
                 "(repeatable; PRECISION:EXTENTS:AXIS[:FLAGS], FLAGS a comma\n"
                 "list of bcast, ghostK, offset, separate, increment; e.g.\n"
                 "float:294x511x289:1:bcast)"))
      ->option_text("SPEC");
  app.add_option("--shape-scale", cfg.shapes.scale,
                 "--suite shapes: divide the problem sizes by K (default 1)")
      ->check(at_least(1.0))
      ->option_text("K");
  app.add_flag("--check-targets", cfg.check_targets,
               "print PASS/FAIL per target of the suite (exit code stays 0)");
  app.add_option("--copy-gib", cfg.copy_gib,
                 "size of each copy-reference buffer (default 1 cpu, 2 cuda)")
      ->check(at_least(1.0))
      ->option_text("G");
  app.add_option("--json", cfg.json_path, "write every row as JSON")->option_text("FILE");
  app.add_flag("--small-pages", small_pages,
               "host buffers in the kernel's default pages (default: 2 MiB\n"
               "aligned, transparent huge pages requested with madvise)");
  repeatable(app.add_option_function<std::vector<std::string>>(
                 "--block-m",
                 [&](const std::vector<std::string>& lists) {
                   for (const auto& list : lists) {
                     for (int m : parse_block_sizes(list)) block_ms.push_back(m);
                   }
                 },
                 "block tridiagonal rows at paper 000's sizes for these M\n"
                 "(Tables III-IV: N = 128, P = 65536 for M <= 6; N = 96,\n"
                 "P = 32768 for M = 7, 8); replaces the scalar cases. --backend\n"
                 "cpu (default): array of blocks, ?gbsv baseline; cuda: the\n"
                 "interleaved layout, the one-thread kernel as baseline"))
      ->option_text("2,4,8");
  app.add_flag("--block-grid", block_grid, "block rows on a 64^3 grid, M = 5, along each axis");
  app.add_flag("--block-bound", block_bound,
               "cuda block rows: also time each kernel's arithmetic-free\n"
               "bound (the same bytes in the same order; bound_ms, % of bound)");
  std::vector<std::string> coop_variants;
  app.add_option_function<std::string>(
         "--block-coop-variants",
         [&](const std::string& list) {
           coop_variants.clear();
           for (std::size_t at = 0; at <= list.size();) {
             const std::size_t comma = std::min(list.find(',', at), list.size());
             if (comma > at) coop_variants.push_back(list.substr(at, comma - at));
             at = comma + 1;
           }
         },
         "cuda block rows: the coop kernel once per variant of\n"
         "TRIAX_CUDA_BLOCK_COOP (e.g. shuffle,shared,shared_occupancy, or\n"
         "the float M = 5, 8 sweep's tuned_w<W>[_r<R>][_rcp][_ls]), in\n"
         "one process on the same buffers; skips the conversion rows")
      ->option_text("LIST");
  app.add_option("--block-p-divisor", block_p_divisor,
                 "divide the paper's P by K (default 1; the grid case keeps 64^3)")
      ->check(at_least<std::int64_t>(1))
      ->option_text("K");

  std::vector<Precision> precisions;
  try {
    app.parse(argc, argv);
    if (!cfg.shapes.given.empty() && !cfg.shape_suite()) {
      throw CLI::ValidationError("--shape", "draws are timed by --suite shapes only");
    }
    for (const auto& p : precision_names) {
      if (p == "float" || p == "both") precisions.push_back(Precision::f32);
      if (p == "double" || p == "both") precisions.push_back(Precision::f64);
    }
    if (precisions.empty()) precisions.push_back(Precision::f64);
    c.baselines = !no_baseline;
    cfg.huge_pages = !small_pages;
    if (block_ms.empty() && !block_grid && cfg.suite.empty()) {
      if (axis == "all") {
        for (int k = 0; k < static_cast<int>(c.extents.size()); ++k) c.axes.push_back(k);
      } else {
        char* end = nullptr;
        const long k = std::strtol(axis.c_str(), &end, 10);
        if (axis.empty() || *end != '\0' || k < 0 || k >= static_cast<long>(c.extents.size())) {
          throw CLI::ValidationError("--axis", axis + " is not an axis of the extents");
        }
        c.axes = {static_cast<int>(k)};
      }
    }
  } catch (const CLI::ParseError& e) {
    // --help wins over a bad value anywhere on the line (CLI11 checks the values first).
    if (dynamic_cast<const CLI::CallForHelp*>(&e) || app.get_help_ptr()->count() > 0) {
      std::fputs(app.help().c_str(), stdout);
      std::exit(0);
    }
    std::fprintf(stderr, "triax-bench: %s\n\n%s", e.what(), app.help().c_str());
    std::exit(2);
  }

  if (!block_ms.empty() || block_grid) {
    for (Precision p : precisions) {
      for (int m : block_ms) {
        BlockCase b = paper_block_case(p, m, block_p_divisor, c.reps);
        b.backend = c.backend;
        b.interleaved = c.backend == Backend::cuda;  // the paper's GPU layout
        b.baselines = c.baselines;
        b.bound = block_bound && c.backend == Backend::cuda;
        b.coop_variants = coop_variants;
        cfg.block_cases.push_back(b);
      }
      for (int axis = 0; block_grid && axis < 3; ++axis) {
        BlockCase b;
        b.precision = p;
        b.backend = c.backend;  // array of blocks on both backends: every axis differs
        b.m = 5;
        b.grid = {64, 64, 64};
        b.axis = axis;
        b.reps = c.reps;
        b.baselines = c.baselines;
        b.bound = block_bound && c.backend == Backend::cuda;
        b.coop_variants = coop_variants;
        cfg.block_cases.push_back(b);
      }
    }
    return cfg;
  }
  if (cfg.shape_suite()) {
    cfg.shapes_backend = c.backend;
    cfg.shapes.reps = c.reps;
    return cfg;
  }
  if (!cfg.suite.empty()) {
    cfg.cases = suite_cases(cfg.suite, c.backend, c.reps, baselines_only);
    if (!suite_extents.empty()) {
      std::vector<std::vector<std::int64_t>> keep;
      for (const std::string& e : suite_extents) keep.push_back(parse_extents(e));
      std::erase_if(cfg.cases, [&](const Case& s) {
        return std::find(keep.begin(), keep.end(), s.extents) == keep.end();
      });
    }
    // A suite runs both precisions unless --precision names them (one process each keeps a
    // time-limited run's first half when the second runs out).
    if (!precision_names.empty()) {
      std::erase_if(cfg.cases, [&](const Case& s) {
        return std::find(precisions.begin(), precisions.end(), s.precision) == precisions.end();
      });
    }
    for (auto& s : cfg.cases) {
      s.mode = c.mode;
      s.launches = c.launches;
    }
    return cfg;
  }
  c.baselines_only = baselines_only;
  for (Precision p : precisions) {
    c.precision = p;
    cfg.cases.push_back(c);
  }
  return cfg;
}

}  // namespace triax::bench
