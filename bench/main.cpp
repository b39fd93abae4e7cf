// triax-bench: the single benchmark entry (docs/performance.md describes the method).
#include <algorithm>
#include <cstdio>
#include <exception>

#include "block_case.hpp"
#include "bound_report.hpp"
#include "copy_reference.hpp"
#include "cpu_baseline.hpp"
#include "host_memory.hpp"
#include "host_runner.hpp"
#include "options.hpp"
#include "report.hpp"
#if TRIAX_BENCH_HAS_CUDA
#include "gpu_runner.hpp"
#endif

namespace {

using namespace triax::bench;

/// Runs each case on its backend (host or gpu; a null gpu skips the cuda cases) and prints its
/// rows; a case that fails keeps the rows so far, and the JSON says what failed.
template <class AnyCase>
void run_cases(const std::vector<AnyCase>& cases, RunInfo& info, std::vector<Row>& rows,
               void (*host)(const AnyCase&, const CopyReference&, std::vector<Row>&),
               void (*gpu)(const AnyCase&, const CopyReference&, std::vector<Row>&),
               void (*print)(const Row&)) {
  for (const AnyCase& c : cases) {
    const std::size_t first = rows.size();
    try {
      if (c.backend != triax::Backend::cuda) {
        host(c, info.host_copy, rows);
      } else if (gpu != nullptr) {
        gpu(c, info.device_copy, rows);
      }
    } catch (const std::exception& e) {
      info.errors.push_back(e.what());
      std::printf("  case failed: %s\n", e.what());
    }
    for (std::size_t i = first; i < rows.size(); ++i) print(rows[i]);
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace triax::bench;
  try {
    const Config cfg = parse_command_line(argc, argv);
    bool any_host = false, any_cuda = false;
    for (const Case& c : cfg.cases)
      (c.backend == triax::Backend::cuda ? any_cuda : any_host) = true;
    if (cfg.shape_suite()) (cfg.shapes_backend == triax::Backend::cuda ? any_cuda : any_host) = true;
    for (const BlockCase& c : cfg.block_cases)
      (c.backend == triax::Backend::cuda ? any_cuda : any_host) = true;

    RunInfo info;
    info.suite = cfg.suite;
    info.mode = cfg.shape_suite()    ? "per row"
                : cfg.cases.empty() ? "inplace"
                                    : to_string(cfg.cases.front().mode);
    info.host = host_description();
    info.lapack = lapack_available();
    set_huge_pages(cfg.huge_pages);
    const std::string thp = transparent_huge_page_mode();
    info.host_pages =
        cfg.huge_pages ? "huge (THP " + (thp.empty() ? "unknown" : thp) + ")" : "small";
    std::printf("triax-bench: host %s; host buffers: %s\n", info.host.c_str(),
                info.host_pages.c_str());
    std::printf(
        "mode %s; effective bytes = %s x points x sizeof(T); median of %d solves after 2 "
        "warm-up solves; caches flushed (by reading) and the output restored before each "
        "solve, outside the timing; * = the plan's automatic pick\n",
        info.mode.c_str(),
        info.mode == "increment" ? "6 (read a, b, c, d, u; write u)"
                                 : "5 (read a, b, c, d; write x)",
        cfg.shape_suite()          ? cfg.shapes.reps
        : !cfg.cases.empty()       ? cfg.cases.front().reps
        : !cfg.block_cases.empty() ? cfg.block_cases.front().reps
                                   : 0);
    if (any_host) {
      info.host_copy = measure_host_copy(cfg.copy_gib > 0 ? cfg.copy_gib : 1.0, 10);
      print_copy("host", info.host_copy);
      if (!info.lapack) std::printf("note: built without LAPACKE: no CPU baseline\n");
    }
    if (any_cuda) {
#if TRIAX_BENCH_HAS_CUDA
      info.device = device_description();
      std::printf("device %s\n", info.device.c_str());
      info.device_copy = measure_device_copy(cfg.copy_gib > 0 ? cfg.copy_gib : 2.0, 20);
      print_copy("device", info.device_copy);
#else
      std::fprintf(stderr,
                   "triax-bench: built without CUDA (configure with "
                   "-DTRIAX_ENABLE_CUDA=ON); the cuda cases are skipped\n");
#endif
    }

    if (cfg.shape_suite()) {
      std::vector<ShapeRow> shape_rows;
      const bool gpu = cfg.shapes_backend == triax::Backend::cuda;
      try {
        run_shape_suite(cfg.shapes_backend, cfg.shapes, gpu ? info.device_copy : info.host_copy,
                        shape_rows);
      } catch (const std::exception& e) {  // keep the rows so far; the JSON says what failed
        info.errors.push_back(e.what());
        std::printf("  shape suite stopped: %s\n", e.what());
      }
      const std::vector<ShapeSummary> summary = summarise_shapes(shape_rows, cfg.shapes_backend);
      print_shape_summary(summary);
      if (!cfg.json_path.empty()) {
        write_shape_json(cfg.json_path, info, shape_rows, summary);
        std::printf("wrote %s\n", cfg.json_path.c_str());
      }
      return 0;
    }

    std::vector<Row> rows;
#if TRIAX_BENCH_HAS_CUDA
    const auto gpu_case = run_gpu_case;
    const auto gpu_block_case = run_gpu_block_case;
#else  // the cuda cases are skipped (said above)
    const decltype(&run_host_case) gpu_case = nullptr;
    const decltype(&run_block_case) gpu_block_case = nullptr;
#endif
    if (!cfg.cases.empty()) print_header();
    run_cases(cfg.cases, info, rows, run_host_case, gpu_case, print_row);
    if (!cfg.block_cases.empty()) {
      print_block_header(std::any_of(cfg.block_cases.begin(), cfg.block_cases.end(),
                                     [](const BlockCase& c) { return c.bound; }));
    }
    run_cases(cfg.block_cases, info, rows, run_block_case, gpu_block_case, print_block_row);

    if (cfg.suite == "small") {
      attach_pattern_bounds(rows);
      print_small_table(rows);
    }
    std::vector<TargetResult> targets;
    if (cfg.check_targets) {
      if (cfg.cases.empty() || cfg.cases.front().baselines_only) {
        std::printf("\n--check-targets: no triax rows to judge (--baselines-only)\n");
      } else if (cfg.suite.empty()) {
        std::printf("\n--check-targets applies to --suite cpu|gpu only\n");
      } else {
        targets = check_targets(cfg.suite, rows);
        print_targets(targets);
      }
    }
    if (!cfg.json_path.empty()) {
      write_json(cfg.json_path, info, rows, targets);
      std::printf("wrote %s\n", cfg.json_path.c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "triax-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
