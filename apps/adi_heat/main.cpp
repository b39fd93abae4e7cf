// apps/adi_heat: the main job. Advances the 3-D heat equation with Douglas-Gunn ADI, one
// batched triax solve per axis per step, and reports each axis's solve time and bandwidth and
// the error against the exact decay of the sine mode.
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

namespace {

// Exit status of --check-order --backend cuda without a GPU: CTest's SKIP_RETURN_CODE.
constexpr int exit_skipped = 77;

void usage() {
  std::puts(
      "usage: adi_heat [--n N] [--steps S] [--dt DT] [--precision float|double]\n"
      "                [--backend cpu|cuda|reference] [--json FILE] [--check-order]\n"
      "  --n N          interior points per dimension (default 128)\n"
      "  --steps S      time steps (default 20)\n"
      "  --dt DT        time step (default h = 1/(N+1): dt ~ h keeps the second-order\n"
      "                 errors in time and space in step)\n"
      "  --backend B    default: cuda when built with CUDA and a GPU is present, else cpu\n"
      "  --json FILE    also write the numbers as JSON\n"
      "  --check-order  runs N = 15 and 31 (h = 1/16, 1/32) in double to t = 0.05 with dt ~ h and\n"
      "                 checks that the error falls by the scheme's second order; exits 1 if not");
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
  bool order = false, backend_given = false;
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
    // The sine mode starts at amplitude 1 and only decays: an error that is not finite or not
    // below 1 means the run went wrong, whatever the step size.
    if (!(r.max_error < 1)) {
      std::fprintf(stderr, "adi_heat: error %.3e: the solution is wrong\n", r.max_error);
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "adi_heat: %s\n", e.what());
    return 1;
  }
}
