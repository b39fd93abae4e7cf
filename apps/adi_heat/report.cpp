#include "report.hpp"

#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace adi {
namespace {

const char* const axis_names[3] = {"x", "y", "z"};
// What each solve does, so the byte count below is easy to check.
const char* const axis_modes[3] = {"in place", "into d2", "increment u"};

double gbps(const AxisTiming& t) { return t.seconds > 0 ? t.bytes / t.seconds / 1e9 : 0; }

}  // namespace

void print_result(const Settings& s, const Result& r) {
  std::printf("adi_heat: %lld^3 interior points, %d steps of dt = %.4g to t = %.4g, %s, %s\n",
              static_cast<long long>(s.n), s.steps, r.dt, r.t_end, s.precision.c_str(),
              std::string(triax::to_string(s.backend)).c_str());
  if (s.over_ranks) {
    std::printf("  over %dx%dx%d MPI ranks (x, y, z), triax::mpi along every axis; times and "
                "error: the largest over the ranks\n",
                s.procs[0], s.procs[1], s.procs[2]);
  }
  std::printf("  bytes counted per solve: d read + x written (+ u read in increment mode);\n"
              "  a, b, c are broadcast (one value each) and not counted\n");
  for (int axis = 0; axis < 3; ++axis) {
    const AxisTiming& t = r.axis[axis];
    std::printf("  axis %s (%-11s): %9.3f ms total, %8.3f ms/step, %8.2f GB/s\n",
                axis_names[axis], axis_modes[axis], 1e3 * t.seconds,
                t.steps > 0 ? 1e3 * t.seconds / t.steps : 0.0, gbps(t));
  }
  if (r.axis[0].steps < s.steps) {
    std::printf("  timed: steps 2-%d; step 1 took %.3f / %.3f / %.3f ms (x / y / z)\n",
                s.steps, 1e3 * r.axis[0].first_seconds, 1e3 * r.axis[1].first_seconds,
                1e3 * r.axis[2].first_seconds);
  }
  std::printf("  time loop %.3f s (explicit operator included)\n", r.total_seconds);
  std::printf("  max error against exp(-3 pi^2 t) sin sin sin at t = %.4g: %.3e\n", r.t_end,
              r.max_error);
}

void write_json(const std::string& path, const Settings& s, const Result& r) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("adi_heat: cannot write --json " + path);
  out.precision(9);
  out << "{\n  \"n\": " << s.n << ",\n  \"steps\": " << s.steps << ",\n  \"dt\": " << r.dt
      << ",\n  \"t_end\": " << r.t_end << ",\n  \"precision\": \"" << s.precision
      << "\",\n  \"backend\": \"" << triax::to_string(s.backend) << "\",\n  \"procs\": ["
      << s.procs[0] << ", " << s.procs[1] << ", " << s.procs[2] << "],\n  \"axes\": [\n";
  for (int axis = 0; axis < 3; ++axis) {
    const AxisTiming& t = r.axis[axis];
    out << "    {\"axis\": " << axis << ", \"mode\": \"" << axis_modes[axis]
        << "\", \"seconds\": " << t.seconds << ", \"timed_steps\": " << t.steps
        << ", \"first_step_seconds\": " << t.first_seconds << ", \"bytes\": " << t.bytes
        << ", \"gbps\": " << gbps(t) << "}" << (axis < 2 ? "," : "") << "\n";
  }
  out << "  ],\n  \"total_seconds\": " << r.total_seconds << ",\n  \"max_error\": " << r.max_error
      << "\n}\n";
  if (!out) throw std::runtime_error("adi_heat: cannot write --json " + path);
}

}  // namespace adi
