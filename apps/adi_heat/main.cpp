// apps/adi_heat: the main job. Advances the 3-D heat equation with Douglas-Gunn ADI, one
// batched triax solve per axis per step, and reports each axis's solve time and bandwidth and
// the error against the exact decay of the sine mode. With --procs (a build with MPI, under
// mpirun) the grid is split over a Cartesian grid of ranks and each axis solved by triax::mpi.
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>

#include "heat_problem.hpp"
#include "report.hpp"
#ifdef TRIAX_HAS_CUDA
#include "cuda_fields.hpp"
#endif
#ifdef TRIAX_ADI_HAS_MPI
#include <mpi.h>

#include "dist_heat.hpp"
#endif

namespace {

// Exit status of --check-order --backend cuda without a GPU: CTest's SKIP_RETURN_CODE.
constexpr int exit_skipped = 77;

void usage() {
  std::puts(
      "usage: adi_heat [--n N] [--steps S] [--dt DT] [--precision float|double]\n"
      "                [--backend cpu|cuda|reference] [--json FILE] [--check-order]\n"
      "                [--procs AxBxC [--check-single]]\n"
      "  --n N          interior points per dimension (default 128)\n"
      "  --steps S      time steps (default 20)\n"
      "  --dt DT        time step (default h = 1/(N+1): dt ~ h keeps the second-order\n"
      "                 errors in time and space in step)\n"
      "  --backend B    default: cuda when built with CUDA and a GPU is present, else cpu\n"
      "  --json FILE    also write the numbers as JSON\n"
      "  --check-order  runs N = 15 and 31 (h = 1/16, 1/32) in double to t = 0.05 with dt ~ h and\n"
      "                 checks that the error falls by the scheme's second order; exits 1 if not\n"
      "  --procs AxBxC  under mpirun -np A*B*C (a build with MPI): A, B, C ranks along x, y, z,\n"
      "                 each axis solved by triax::mpi across them (cpu backend, or GPU ranks\n"
      "                 with --backend cuda: one GPU per node-local rank); rank 0 prints\n"
      "  --dist-method M, --transport T  with --procs: triax::mpi's method (allgather,\n"
      "                 gather_scatter, pcr, jacobi) and GPU transport (host_staging, nccl);\n"
      "                 automatic by default. Rank 0 prints each axis's choice\n"
      "  --phase-times  with --procs: and each axis's phases per solve (local passes, reduced\n"
      "                 solve, communication; GPU ranks synchronise between them)\n"
      "  --check-single with --procs: rank 0 also runs the grid alone and checks that both errors\n"
      "                 agree to rounding; exits 1 if not");
}

bool gpu_present() {
#ifdef TRIAX_HAS_CUDA
  return triax::backend_compiled(triax::Backend::cuda) && adi::cuda_device_present();
#else
  return false;
#endif
}

std::optional<triax::Backend> parse_backend(const std::string& b) {
  if (b == "cpu") return triax::Backend::cpu;
  if (b == "cuda") return triax::Backend::cuda;
  if (b == "reference") return triax::Backend::reference;
  return std::nullopt;
}

// "2x1x1" -> {2, 1, 1}; nullopt unless three positive integers.
std::optional<std::array<int, 3>> parse_procs(const std::string& text) {
  std::array<int, 3> p{};
  char x1 = 0, x2 = 0;
  int used = 0;
  if (std::sscanf(text.c_str(), "%d%c%d%c%d%n", &p[0], &x1, &p[1], &x2, &p[2], &used) != 5 ||
      x1 != 'x' || x2 != 'x' || used != int(text.size()) || p[0] < 1 || p[1] < 1 || p[2] < 1) {
    return std::nullopt;
  }
  return p;
}

// The sine mode starts at amplitude 1 and only decays: an error that is not finite or not
// below 1 means the run went wrong, whatever the step size.
int error_check(const adi::Result& r) {
  if (!(r.max_error < 1)) {
    std::fprintf(stderr, "adi_heat: error %.3e: the solution is wrong\n", r.max_error);
    return 1;
  }
  return 0;
}

#ifdef TRIAX_ADI_HAS_MPI
// The run over MPI ranks: every rank steps its block, rank 0 prints and writes the JSON.
// Rank 0's run of the whole grid alone: the distributed error must equal its error to
// rounding (the scheme's error is far above it). The verdict reaches every rank.
bool agrees_with_one_rank(const adi::Settings& s, const adi::Result& ranks, int rank) {
  int ok = 1;
  if (rank == 0) {
    adi::Settings alone = s;
    alone.over_ranks = false;
    const adi::Result single =
        alone.precision == "float" ? adi::run<float>(alone) : adi::run<double>(alone);
    const double tolerance = s.precision == "float" ? 1e-4 : 1e-9;
    const double difference = std::abs(single.max_error - ranks.max_error);
    ok = difference <= tolerance * single.max_error;
    std::printf("  one rank: max error %.6e; relative difference %.2e (tolerance %.0e): %s\n",
                single.max_error, difference / single.max_error, tolerance,
                ok ? "agrees" : "DISAGREES");
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok == 1;
}

int run_over_ranks(const adi::Settings& s, const std::string& json, bool check_single) {
  MPI_Init(nullptr, nullptr);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int code = 0;
  try {
    const adi::Result r = s.precision == "float" ? adi::run_distributed<float>(s)
                                                 : adi::run_distributed<double>(s);
    if (rank == 0) {
      adi::print_result(s, r);
      if (!json.empty()) adi::write_json(json, s, r);
    }
    code = error_check(r);  // the same on every rank: the error is the largest over them
    if (check_single && !agrees_with_one_rank(s, r, rank)) code = 1;
  } catch (const std::exception& e) {
    // triax::mpi and the --procs check throw on every rank alike; anything else ends the job.
    std::fprintf(stderr, "adi_heat: rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return code;
}
#endif

adi::Result run(const adi::Settings& s) {
  const adi::Result r = s.precision == "float" ? adi::run<float>(s) : adi::run<double>(s);
  adi::print_result(s, r);
  return r;
}

// Same final time, dt proportional to h: the error must fall like h^2 when h halves.
int check_order(adi::Settings s) {
  adi::Settings coarse = s, fine = s;
  coarse.precision = fine.precision = "double";
  coarse.n = 15;
  coarse.steps = 8;
  fine.n = 31;
  fine.steps = 16;
  coarse.dt = 0.05 / coarse.steps;
  fine.dt = 0.05 / fine.steps;
  const double e1 = run(coarse).max_error, e2 = run(fine).max_error;
  const double order = std::log2(e1 / e2);
  std::printf("adi_heat: error %.3e (h = 1/16) -> %.3e (h = 1/32): ratio %.2f, observed order %.2f\n",
              e1, e2, e1 / e2, order);
  const bool ok = order > 1.8 && order < 2.3;  // NaN fails too
  std::printf("adi_heat: second order %s\n", ok ? "confirmed" : "NOT confirmed");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  adi::Settings s;
  std::string json;
  std::optional<std::array<int, 3>> procs;
  bool order = false, backend_given = false, check_single = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "adi_heat: %s needs a value\n", arg.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--n") {
      s.n = std::atoll(value().c_str());
    } else if (arg == "--steps") {
      s.steps = std::atoi(value().c_str());
    } else if (arg == "--dt") {
      s.dt = std::atof(value().c_str());
    } else if (arg == "--precision") {
      s.precision = value();
    } else if (arg == "--backend") {
      const std::string b = value();
      const auto backend = parse_backend(b);
      if (!backend) {
        std::fprintf(stderr, "adi_heat: --backend %s: expected cpu, cuda or reference\n", b.c_str());
        return 2;
      }
      s.backend = *backend;
      backend_given = true;
    } else if (arg == "--json") {
      json = value();
    } else if (arg == "--procs") {
      const std::string p = value();
      procs = parse_procs(p);
      if (!procs) {
        std::fprintf(stderr, "adi_heat: --procs %s: expected AxBxC, three positive integers\n",
                     p.c_str());
        return 2;
      }
    } else if (arg == "--dist-method") {
      s.dist_method = value();
    } else if (arg == "--transport") {
      s.transport = value();
    } else if (arg == "--phase-times") {
      s.phase_times = true;
    } else if (arg == "--check-single") {
      check_single = true;
    } else if (arg == "--check-order") {
      order = true;
    } else {
      usage();
      return arg == "--help" ? 0 : 2;
    }
  }
  if (s.n < 1 || s.steps < 1 || s.dt < 0 || (s.precision != "float" && s.precision != "double")) {
    usage();
    return 2;
  }
  if (!procs && (s.dist_method != "automatic" || s.transport != "automatic" || s.phase_times)) {
    std::fputs("adi_heat: --dist-method, --transport and --phase-times go with --procs\n", stderr);
    return 2;
  }
  if (check_single && !procs) {
    std::fputs("adi_heat: --check-single goes with --procs\n", stderr);
    return 2;
  }
  if (procs) {
    // CPU ranks by default, GPU ranks with --backend cuda; the order check runs on one rank.
    if ((backend_given && s.backend == triax::Backend::reference) || order) {
      std::fputs("adi_heat: --procs runs the cpu or cuda backend and no --check-order\n", stderr);
      return 2;
    }
#ifdef TRIAX_ADI_HAS_MPI
    if (!backend_given) s.backend = triax::Backend::cpu;
    s.over_ranks = true;
    s.procs = *procs;
    return run_over_ranks(s, json, check_single);
#else
    std::fputs("adi_heat: --procs needs a build with MPI (-DTRIAX_ENABLE_MPI=ON)\n", stderr);
    return 2;
#endif
  }
  const bool gpu = gpu_present();
  if (!backend_given) s.backend = gpu ? triax::Backend::cuda : triax::Backend::cpu;
  try {
    if (order) {
      // Under CTest the GPU variant must report SKIPPED, never passed, on a machine without one.
      if (s.backend == triax::Backend::cuda && !gpu) {
        std::puts("adi_heat: no GPU (or no CUDA in this build): skipped");
        return exit_skipped;
      }
      return check_order(s);
    }
    const adi::Result r = run(s);
    if (!json.empty()) adi::write_json(json, s, r);
    return error_check(r);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "adi_heat: %s\n", e.what());
    return 1;
  }
}
