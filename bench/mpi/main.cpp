// triax-bench-mpi: the triax::mpi methods on a global array split over the ranks of mpirun,
// against the same global problem solved on one rank (docs/performance.md, "Distributed").
#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "../extents_text.hpp"
#include "options.hpp"
#include "process_grid.hpp"
#include "runner.hpp"

namespace triax::bench::mpi {
namespace {

// Threads per rank: --threads, else OMP_NUM_THREADS (mpirun -x passes it), else the hardware's
// share of one rank.
int threads_per_rank(const MpiConfig& c, int ranks) {
  if (c.threads > 0) return c.threads;
  if (const char* env = std::getenv("OMP_NUM_THREADS"); env && std::atoi(env) > 0) {
    return std::atoi(env);
  }
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / ranks);
}

void print_table(const std::vector<PrecisionResult>& results) {
  std::printf("%-7s %-15s %-15s %10s %10s %10s %9s %9s %9s %9s %10s %7s %8s %7s\n", "prec",
              "method",
              "ran as", "median ms", "min ms", "max ms", "local ms", "reduced", "comm ms",
              "x single", "max diff", "batches", "% bound", "% min");
  for (const PrecisionResult& r : results) {
    const double single = r.reference.threads ? r.reference.time.median_ms : 0;
    if (single > 0) {
      std::printf("%-7s %-15s %-15s %10.3f %10.3f %10.3f %9s %9s %9s %9s %10s %7s %8s %7s\n",
                  r.reference.precision.c_str(), "single-rank", "triax::Solver", single,
                  r.reference.time.min_ms, r.reference.time.max_ms, "-", "-", "-", "1.00", "-",
                  "-", "-", "-");
    }
    for (const MethodRow& m : r.methods) {
      char ratio[32] = "-", diff[32] = "-", pct[32] = "-", pct_min[32] = "-";
      if (r.cpu_bound_ms > 0) {
        std::snprintf(pct, sizeof pct, "%.1f", 100 * r.cpu_bound_ms / m.time.median_ms);
        std::snprintf(pct_min, sizeof pct_min, "%.1f", 100 * r.cpu_min_ms / m.time.median_ms);
      }
      if (single > 0) std::snprintf(ratio, sizeof ratio, "%.2f", m.time.median_ms / single);
      if (m.max_difference >= 0) std::snprintf(diff, sizeof diff, "%.2e", m.max_difference);
      const std::string ran =
          m.transport_run == "mpi" ? m.method_run : m.method_run + "@" + m.transport_run;
      std::printf(
          "%-7s %-15s %-15s %10.3f %10.3f %10.3f %9.3f %9.3f %9.3f %9s %10s %7lld %8s %7s\n",
          m.precision.c_str(), m.method.c_str(), ran.c_str(), m.time.median_ms, m.time.min_ms,
          m.time.max_ms, m.local_passes_ms, m.reduced_solve_ms, m.communication_ms, ratio, diff,
          static_cast<long long>(m.batches), pct, pct_min);
    }
    if (r.cpu_bound_ms > 0) {
      // The two floors (cpu_bound.hpp): the plan's 11 values an element, the two-pass 9.
      const struct {
        const char* name;
        const char* what;
        double ms;
        bool streaming;
      } floors[] = {{"cpu-bound", "plan-bytes", r.cpu_bound_ms, r.cpu_bound_streaming},
                    {"cpu-min", "two-pass-min", r.cpu_min_ms, r.cpu_min_streaming}};
      for (const auto& f : floors) {
        std::printf("%-7s %-15s %-15s %10.3f %10s %10s %9s %9s %9s %9s %10s %7lld %8s %7s\n",
                    r.precision.c_str(), f.name, f.what, f.ms, f.streaming ? "nt stores" : "-",
                    "-", "-", "-", "-", "-", "-", static_cast<long long>(r.cpu_bound_batches),
                    "-", "-");
      }
    }
  }
}

// --bound: what the local passes reach against the kernels that only move their bytes, and the
// weak-scaling efficiency each bound allows: one GPU's solve of one rank's piece (the
// single-rank time times the piece's share) over (bound + the measured reduced solve and
// communication). 0 where a value is missing.
//
// The whole solve's bound (issue 29): the local passes' bound plus the method's messages alone
// (comm_bound.hpp); the solve's time as a % of it, and the efficiency it allows (the piece's
// single-GPU time over the total bound). Without a local-pass bound (CPU ranks) only the
// messages' share of the solve.
struct BoundView {
  double piece_single_ms = 0;
  double local_pct_of_bound = 0, local_pct_of_min = 0;  // bound time / local time, in %
  double efficiency = 0, efficiency_at_bound = 0, efficiency_at_min = 0;  // in %
  double total_bound_ms = 0, pct_of_total_bound = 0, efficiency_at_total_bound = 0;
};

BoundView bound_view(const PrecisionResult& r, const MethodRow& m) {
  BoundView v;
  const PassBounds& b = r.bound;
  if (m.local_passes_ms > 0) {
    v.local_pct_of_bound = 100 * b.bound_ms() / m.local_passes_ms;
    v.local_pct_of_min = 100 * b.min_ms() / m.local_passes_ms;
  }
  if (r.reference.threads) {
    v.piece_single_ms = r.reference.time.median_ms * r.piece_share;
    const double rest = m.reduced_solve_ms + m.communication_ms;
    v.efficiency = 100 * v.piece_single_ms / m.time.median_ms;
    v.efficiency_at_bound = 100 * v.piece_single_ms / (b.bound_ms() + rest);
    v.efficiency_at_min = 100 * v.piece_single_ms / (b.min_ms() + rest);
  }
  if (m.comm_bound_ms > 0 && r.has_bound) {
    v.total_bound_ms = b.bound_ms() + m.comm_bound_ms;
    v.pct_of_total_bound = 100 * v.total_bound_ms / m.time.median_ms;
    if (r.reference.threads) {
      v.efficiency_at_total_bound = 100 * v.piece_single_ms / v.total_bound_ms;
    }
  }
  return v;
}

void print_bounds(const std::vector<PrecisionResult>& results) {
  for (const PrecisionResult& r : results) {
    if (!r.has_bound) continue;
    const PassBounds& b = r.bound;
    std::printf(
        "bound %s: pass1 %.3f ms + pass2 %.3f ms = %.3f ms (workspace passes); two-pass "
        "minimum %.3f + %.3f = %.3f ms\n",
        r.precision.c_str(), b.pass1_ms, b.pass2_ms, b.bound_ms(), b.min1_ms, b.min2_ms,
        b.min_ms());
    std::printf("  %-15s %9s %12s %12s %9s %12s %12s\n", "method", "local ms", "% of bound",
                "% of min", "eff %", "eff@bound %", "eff@min %");
    for (const MethodRow& m : r.methods) {
      const BoundView v = bound_view(r, m);
      std::printf("  %-15s %9.3f %12.1f %12.1f %9.1f %12.1f %12.1f\n", m.method.c_str(),
                  m.local_passes_ms, v.local_pct_of_bound, v.local_pct_of_min, v.efficiency,
                  v.efficiency_at_bound, v.efficiency_at_min);
    }
  }
}

// --bound where the axis is split: each method's messages alone against its solve, and (GPU
// ranks) the total bound.
void print_comm_bounds(const std::vector<PrecisionResult>& results) {
  for (const PrecisionResult& r : results) {
    const bool any = std::any_of(r.methods.begin(), r.methods.end(),
                                 [](const MethodRow& m) { return m.comm_bound_ms > 0; });
    if (!any) continue;
    std::printf("whole-solve bound %s: local-pass bound %s ms + each method's messages alone\n",
                r.precision.c_str(),
                r.has_bound ? std::to_string(r.bound.bound_ms()).c_str() : "(none: CPU ranks)");
    std::printf("  %-15s %-15s %9s %9s %12s %12s %12s %9s %14s\n", "method", "ran as", "solve ms",
                "comm ms", "comm bound", "total bound", "% of total", "eff %", "eff@total %");
    for (const MethodRow& m : r.methods) {
      if (m.comm_bound_ms <= 0) continue;
      const BoundView v = bound_view(r, m);
      char total[32] = "-", pct[32] = "-", eff[32] = "-", eff_total[32] = "-";
      if (v.total_bound_ms > 0) {
        std::snprintf(total, sizeof total, "%.3f", v.total_bound_ms);
        std::snprintf(pct, sizeof pct, "%.1f", v.pct_of_total_bound);
      }
      if (v.efficiency > 0) std::snprintf(eff, sizeof eff, "%.1f", v.efficiency);
      if (v.efficiency_at_total_bound > 0) {
        std::snprintf(eff_total, sizeof eff_total, "%.1f", v.efficiency_at_total_bound);
      }
      const std::string ran =
          m.transport_run == "mpi" ? m.method_run : m.method_run + "@" + m.transport_run;
      std::printf("  %-15s %-15s %9.3f %9.3f %12.3f %12s %12s %9s %14s\n", m.method.c_str(),
                  ran.c_str(), m.time.median_ms, m.communication_ms, m.comm_bound_ms, total, pct,
                  eff, eff_total);
    }
  }
}

nlohmann::json spread_json(const Spread& s) {
  return {{"median_ms", s.median_ms}, {"min_ms", s.min_ms}, {"max_ms", s.max_ms}};
}

void write_json(const std::string& path, const MpiConfig& c, const ProcessGrid& grid, int ranks,
                int threads, int reference_threads, const std::vector<PrecisionResult>& results) {
  nlohmann::json j;
  j["tool"] = "triax-bench-mpi";
  j["ranks"] = ranks;
  j["procs"] = grid.dims;
  j["extents"] = c.extents;
  j["axis"] = c.axis;
  j["backend"] = c.backend;
  j["transport"] = std::string(triax::mpi::to_string(c.transport));
  j["split_along_axis"] = grid.dims[c.axis] > 1;
  j["threads_per_rank"] = threads;
  j["reference_threads"] = c.reference ? reference_threads : 0;
  j["reps"] = c.reps;
  j["batches"] = c.batches;
  j["overlap"] = c.overlap;
  j["checked"] = c.checked;
  j["jacobi_iterations"] = c.jacobi_iterations;
  j["results"] = nlohmann::json::array();
  j["single_rank"] = nlohmann::json::array();
  j["bound"] = c.bound;
  j["reduced_rows"] = std::string(triax::mpi::to_string(c.reduced_rows));
  j["bounds"] = nlohmann::json::array();
  j["cpu_bound"] = c.cpu_bound;
  j["cpu_bounds"] = nlohmann::json::array();
  for (const PrecisionResult& r : results) {
    const double single = r.reference.threads ? r.reference.time.median_ms : 0;
    if (single > 0) {
      nlohmann::json s = spread_json(r.reference.time);
      s["precision"] = r.reference.precision;
      s["threads"] = r.reference.threads;
      j["single_rank"].push_back(s);
    }
    if (r.has_bound) {
      const PassBounds& b = r.bound;
      j["bounds"].push_back({{"precision", r.precision},
                             {"pass1_ms", b.pass1_ms},
                             {"pass2_ms", b.pass2_ms},
                             {"bound_ms", b.bound_ms()},
                             {"two_pass_min_pass1_ms", b.min1_ms},
                             {"two_pass_min_pass2_ms", b.min2_ms},
                             {"two_pass_min_ms", b.min_ms()},
                             {"piece_share", r.piece_share}});
    }
    if (r.cpu_bound_ms > 0) {
      j["cpu_bounds"].push_back({{"precision", r.precision},
                                 {"median_ms", r.cpu_bound_ms},
                                 {"streaming_stores", r.cpu_bound_streaming},
                                 {"two_pass_min_ms", r.cpu_min_ms},
                                 {"two_pass_min_streaming_stores", r.cpu_min_streaming},
                                 {"batches", r.cpu_bound_batches}});
    }
    for (const MethodRow& m : r.methods) {
      nlohmann::json row = spread_json(m.time);
      row["batches"] = m.batches;
      if (r.cpu_bound_ms > 0) {
        row["pct_of_cpu_bound"] = 100 * r.cpu_bound_ms / m.time.median_ms;
        row["pct_of_cpu_min"] = 100 * r.cpu_min_ms / m.time.median_ms;
      }
      row["precision"] = m.precision;
      row["method"] = m.method;
      row["method_run"] = m.method_run;
      row["transport_run"] = m.transport_run;
      row["local_passes_ms"] = m.local_passes_ms;
      row["reduced_solve_ms"] = m.reduced_solve_ms;
      row["communication_ms"] = m.communication_ms;
      if (m.max_difference >= 0) row["max_difference"] = m.max_difference;
      if (single > 0) row["ratio_to_single_rank"] = m.time.median_ms / single;
      if (m.comm_bound_ms > 0) {
        const BoundView v = bound_view(r, m);
        row["comm_bound_ms"] = m.comm_bound_ms;
        row["comm_bound_pct_of_solve"] = 100 * m.comm_bound_ms / m.time.median_ms;
        if (v.total_bound_ms > 0) {
          row["total_bound_ms"] = v.total_bound_ms;
          row["pct_of_total_bound"] = v.pct_of_total_bound;
        }
        if (v.efficiency_at_total_bound > 0) {
          row["efficiency_at_total_bound_pct"] = v.efficiency_at_total_bound;
        }
      }
      if (r.has_bound) {
        const BoundView v = bound_view(r, m);
        row["local_pct_of_bound"] = v.local_pct_of_bound;
        row["local_pct_of_two_pass_min"] = v.local_pct_of_min;
        if (single > 0) {
          row["piece_single_ms"] = v.piece_single_ms;
          row["efficiency_pct"] = v.efficiency;
          row["efficiency_at_bound_pct"] = v.efficiency_at_bound;
          row["efficiency_at_two_pass_min_pct"] = v.efficiency_at_min;
        }
      }
      j["results"].push_back(row);
    }
  }
  std::ofstream out(path);
  out << j.dump(2) << "\n";
  if (!out) throw std::runtime_error("--json: cannot write " + path);
}

int run(int argc, char** argv) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const MpiConfig c = parse_mpi_command_line(argc, argv, rank);
  if (c.backend == "cuda" && select_gpu() < 0) {
    throw std::runtime_error("--backend cuda: no CUDA device (or built without CUDA)");
  }
  const ProcessGrid grid(c.extents, c.axis, c.procs);
  const int threads = threads_per_rank(c, ranks);
  const int reference_threads = c.reference_threads > 0 ? c.reference_threads : threads * ranks;
  if (rank == 0) {
    std::printf(
        "triax-bench-mpi: %s along axis %d, %d ranks as %s (%s), backend %s, %d threads "
        "per rank, %d reps; single rank: %d threads\n",
        extents_text(c.extents).c_str(), c.axis, ranks, extents_text(grid.dims).c_str(),
        grid.dims[c.axis] > 1 ? "axis split" : "axis not split", c.backend.c_str(), threads, c.reps,
        c.reference ? reference_threads : 0);
    if (c.reduced_rows == triax::mpi::ReducedRows::one_per_rank) {
      std::printf("  reduced system: one row per rank (paper 003, Algorithm 6's form)\n");
    }
    if (c.batches != 1) {
      std::printf("  batches %s, overlap %s\n",
                  c.batches == 0 ? "automatic (cache-sized)" : std::to_string(c.batches).c_str(),
                  c.overlap ? "on" : "off");
    }
    std::printf(
        "  time of a solve = the slowest rank's, barrier before each; phases per solve, "
        "the slowest rank's (comm includes waiting for peers)\n");
  }
  std::vector<PrecisionResult> results;
  for (const std::string& p : c.precisions) {
    results.push_back(p == "float" ? run_precision<float>(c, grid, threads, reference_threads)
                                   : run_precision<double>(c, grid, threads, reference_threads));
  }
  if (rank == 0) {
    print_table(results);
    print_bounds(results);
    print_comm_bounds(results);
    if (!c.json_path.empty())
      write_json(c.json_path, c, grid, ranks, threads, reference_threads, results);
  }
  return 0;
}

}  // namespace
}  // namespace triax::bench::mpi

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int code = 0;
  try {
    code = triax::bench::mpi::run(argc, argv);
  } catch (const std::exception& e) {
    // triax::mpi's errors are thrown on every rank alike; others end the job.
    std::fprintf(stderr, "triax-bench-mpi: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return code;
}
