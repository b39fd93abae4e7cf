#include "options.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>

namespace triax::bench::mpi {
namespace {

using triax::mpi::Method;

const std::map<std::string, Method>& method_names() {
  static const std::map<std::string, Method> names = {{"allgather", Method::allgather},
                                                      {"gather_scatter", Method::gather_scatter},
                                                      {"pcr", Method::pcr},
                                                      {"jacobi", Method::jacobi},
                                                      {"automatic", Method::automatic}};
  return names;
}

// "256x128x64" -> {256, 128, 64}; every part a positive integer, else `what` names the culprit.
std::vector<std::int64_t> parse_by(const std::string& text, const std::string& option) {
  std::vector<std::int64_t> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find('x', start);
    const std::string part = text.substr(start, end == std::string::npos ? end : end - start);
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != part.size() || part.empty() || v < 1) {
      throw std::invalid_argument(option + ": bad value '" + part + "' in " + text);
    }
    out.push_back(v);
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

}  // namespace

MpiConfig parse_mpi_command_line(int argc, char** argv, int rank) {
  MpiConfig c;
  CLI::App app{
      "triax-bench-mpi: triax::mpi methods on a global array split over MPI ranks "
      "(run under mpirun)"};
  std::string extents = "256x256x256", procs = "auto", methods = "all", precision = "double";
  app.add_option("--extents", extents, "the global array, x fastest (default 256x256x256)");
  app.add_option("--axis", c.axis, "the solve axis (default 0)");
  app.add_option("--procs", procs,
                 "ranks per dimension, e.g. 2x1x1 (their product = the rank count); auto = all "
                 "ranks along the solve axis (default)");
  app.add_option("--methods", methods,
                 "comma-separated: allgather, gather_scatter, pcr, jacobi, automatic, or all "
                 "(default)");
  app.add_option("--precision", precision, "float, double or both (default double)");
  app.add_option("--reps", c.reps, "timed solves per method (default 10), after two warm-ups");
  app.add_option("--threads", c.threads,
                 "OpenMP threads per rank (default: OMP_NUM_THREADS, else hardware / ranks)");
  app.add_option("--reference-threads", c.reference_threads,
                 "threads of the single-rank solve on rank 0 (default: threads x ranks)");
  app.add_flag("!--no-reference", c.reference, "skip the single-rank solve and its comparison");
  app.add_option("--jacobi-iterations", c.jacobi_iterations,
                 "Jacobi's fixed iteration count (default 10)");
  app.add_option("--batches", c.batches,
                 "triax::mpi::Options::batches: N, or 0 = automatic (cache-sized batches on CPU "
                 "ranks); default 1, the whole block in one batch");
  std::string overlap = "on";
  app.add_option("--overlap", overlap,
                 "on or off: triax::mpi::Options::overlap (batches' messages overlapped with "
                 "other batches' local passes; matters with --batches > 1; default on)");
  std::string transport = "automatic";
  app.add_option("--backend", c.backend,
                 "cpu (host arrays, OpenMP) or cuda (device arrays, one GPU per node-local rank "
                 "modulo the GPUs; default cpu)");
  app.add_option("--transport", transport,
                 "GPU ranks: automatic, staging (host_staging) or nccl (default automatic)");
  app.add_flag("--checked", c.checked,
               "checked mode (info per system); a line of one rank then runs the local passes "
               "instead of handing its systems to triax::Solver");
  app.add_flag("--bound", c.bound,
               "where the axis is split: also time each method's reduced-system messages alone "
               "(same transport, counts and order, no arithmetic; CPU and GPU ranks); GPU ranks: "
               "also arithmetic-free kernels that move the local passes' bytes in their order, "
               "and the least two passes can move; print the local passes against them and each "
               "solve against the total bound (a line of one rank needs --checked to run the "
               "local passes)");
  app.add_flag("--cpu-bound", c.cpu_bound,
               "CPU ranks: also time arithmetic-free floors, streamed in memory order in the "
               "plan's batches with a neighbour exchange of the reduced rows: the plan's bytes "
               "(11 values an element) and the two-pass minimum (9); print each row's % of both "
               "(where the axis is split, or with --checked)");
  std::string reduced_rows = "two";
  app.add_option("--reduced-rows", reduced_rows,
                 "two (two rows per rank, every method) or one (paper 003's Algorithm 6 form: "
                 "pcr, jacobi, automatic; 'all' then means those three); default two");
  app.add_option("--json", c.json_path, "also write the results as JSON to this file (rank 0)");
  try {
    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
      if (rank == 0) std::fputs(app.help().c_str(), stdout);
      MPI_Finalize();
      std::exit(0);
    } catch (const CLI::ParseError& e) {
      throw std::invalid_argument(e.what());
    }
    c.extents = parse_by(extents, "--extents");
    const int dims = static_cast<int>(c.extents.size());
    if (c.axis < 0 || c.axis >= dims) {
      throw std::invalid_argument("--axis: " + std::to_string(c.axis) + " is not an axis of " +
                                  extents);
    }
    if (procs != "auto") {
      for (std::int64_t p : parse_by(procs, "--procs")) c.procs.push_back(static_cast<int>(p));
      if (static_cast<int>(c.procs.size()) != dims) {
        throw std::invalid_argument("--procs: " + procs + " has " + std::to_string(c.procs.size()) +
                                    " dimensions, --extents " + extents + " has " +
                                    std::to_string(dims));
      }
    }
    if (overlap == "on" || overlap == "off") {
      c.overlap = overlap == "on";
    } else {
      throw std::invalid_argument("--overlap: unknown value '" + overlap + "' (on or off)");
    }
    if (reduced_rows == "one") {
      c.reduced_rows = triax::mpi::ReducedRows::one_per_rank;
    } else if (reduced_rows != "two") {
      throw std::invalid_argument("--reduced-rows: unknown value '" + reduced_rows + "'");
    }
    const bool one_row = c.reduced_rows == triax::mpi::ReducedRows::one_per_rank;
    std::size_t start = 0;
    const std::string all_methods =
        one_row ? "pcr,jacobi,automatic" : "allgather,gather_scatter,pcr,jacobi,automatic";
    const std::string list = methods == "all" ? all_methods : methods;
    while (start <= list.size()) {
      const std::size_t end = std::min(list.find(',', start), list.size());
      const std::string name = list.substr(start, end - start);
      const auto found = method_names().find(name);
      if (found == method_names().end()) {
        throw std::invalid_argument("--methods: unknown method '" + name + "'");
      }
      if (one_row &&
          (found->second == Method::allgather || found->second == Method::gather_scatter)) {
        throw std::invalid_argument("--methods: " + name +
                                    " does not run with --reduced-rows one (pcr, jacobi and "
                                    "automatic do)");
      }
      c.methods.push_back(found->second);
      start = end + 1;
    }
    if (precision == "both") {
      c.precisions = {"float", "double"};
    } else if (precision == "float" || precision == "double") {
      c.precisions = {precision};
    } else {
      throw std::invalid_argument("--precision: unknown value '" + precision + "'");
    }
    if (c.backend != "cpu" && c.backend != "cuda") {
      throw std::invalid_argument("--backend: unknown value '" + c.backend + "'");
    }
    if (transport == "automatic") {
      c.transport = triax::mpi::Transport::automatic;
    } else if (transport == "staging" || transport == "host_staging") {
      c.transport = triax::mpi::Transport::host_staging;
    } else if (transport == "nccl") {
      c.transport = triax::mpi::Transport::nccl;
    } else if (transport == "cuda_aware_mpi") {
      c.transport = triax::mpi::Transport::cuda_aware_mpi;
    } else {
      throw std::invalid_argument("--transport: unknown value '" + transport + "'");
    }
    if (c.backend == "cpu" && c.transport != triax::mpi::Transport::automatic) {
      throw std::invalid_argument("--transport: " + transport + " needs --backend cuda");
    }
    if (c.reps < 1) throw std::invalid_argument("--reps: " + std::to_string(c.reps) + " < 1");
    if (c.threads < 0 || c.reference_threads < 0) {
      throw std::invalid_argument("--threads / --reference-threads: must be >= 0 (0 = default)");
    }
    if (c.jacobi_iterations < 1) {
      throw std::invalid_argument("--jacobi-iterations: " + std::to_string(c.jacobi_iterations) +
                                  " < 1");
    }
    if (c.batches < 0) {
      throw std::invalid_argument("--batches: " + std::to_string(c.batches) + " < 0");
    }
  } catch (const std::invalid_argument& e) {
    if (rank == 0) std::fprintf(stderr, "triax-bench-mpi: %s\n", e.what());
    MPI_Finalize();  // every rank parsed the same argv and ends here alike
    std::exit(2);
  }
  return c;
}

}  // namespace triax::bench::mpi
