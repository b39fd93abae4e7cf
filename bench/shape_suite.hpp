#pragma once
// `--suite shapes` (issue 26): the drawn shapes of shape_classes.hpp on one backend, their rows
// and their distribution per class (docs/performance.md, "Shapes").
#include <cstdint>
#include <vector>

#include "case.hpp"
#include "shape_classes.hpp"
#include "shape_report.hpp"

namespace triax::bench {

struct ShapeSuiteSettings {
  std::uint64_t seed = 2026;
  /// Divides the problem sizes (points and few-long rows) for a quick run on a small machine.
  double scale = 1;
  int reps = 20;
  /// Draws given with --shape (shape_spec.hpp): timed instead of the seeded draw.
  std::vector<ShapeDraw> given;
};

/// The budget of a backend's draws: GPU problems of 2^21 to 2^26 points (most of them 64 MiB or
/// more, which count towards the bars), host problems of 2^18 to 2^25 (1 to 256 MiB per array);
/// few long systems of 10^4 to 10^7 rows; all divided by settings.scale.
ShapeBudget shape_budget(Backend backend, const ShapeSuiteSettings& settings);

/// Draws the suite and times it on `backend` (cuda, cpu or reference); rows in draw order, float
/// first. The copy reference is the backend's (device or host) of the same run.
void run_shape_suite(Backend backend, const ShapeSuiteSettings& settings,
                     const CopyReference& copy, std::vector<ShapeRow>& rows);

}  // namespace triax::bench
