#pragma once
// The command line of triax-bench (CLI11) and the predefined suites.
#include <string>
#include <vector>

#include "block_case.hpp"
#include "case.hpp"
#include "shape_suite.hpp"

namespace triax::bench {

struct Config {
  std::vector<Case> cases;
  std::string suite;      ///< "", "cpu", "gpu", "cyclic", "small" or "shapes"
  std::string json_path;  ///< "" = no JSON
  bool check_targets = false;
  double copy_gib = 0;  ///< size of each copy-reference buffer (0 = the backend's default)
  bool huge_pages = true;  ///< host buffers advised for transparent huge pages (host_memory.hpp)
  /// Block tridiagonal cases (--block-m, --block-grid); when any is asked for, they replace the
  /// scalar cases.
  std::vector<BlockCase> block_cases;
  /// --suite shapes: the drawn shapes on this backend (no cases then).
  Backend shapes_backend = Backend::cpu;
  ShapeSuiteSettings shapes;
  bool shape_suite() const { return suite == "shapes"; }
};

/// Parses argv; prints usage and exits on --help or on a bad argument.
Config parse_command_line(int argc, char** argv);

/// The cases of a predefined suite ("cpu", "gpu", "cyclic" or "small"), `reps` repetitions
/// each; "cyclic" runs on `backend` (the others have their own); throws std::invalid_argument for
/// an unknown name.
std::vector<Case> suite_cases(const std::string& suite, Backend backend, int reps,
                              bool baselines_only);

/// Every named algorithm of a backend (enum values whose name starts with "<backend>_").
std::vector<Algorithm> algorithms_of(Backend backend);

/// The algorithms a case asks for: automatic, every one of the backend, the backend's cyclic
/// family and automatic ("cyclic"), or one by name (an unknown name throws
/// std::invalid_argument; the command line refuses it first).
std::vector<Algorithm> requested_algorithms(const Case& c);

}  // namespace triax::bench
