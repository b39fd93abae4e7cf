#pragma once
// Cases on the host backends (cpu, reference), with the LAPACK baseline for cpu.
#include <vector>

#include "case.hpp"
#include "shape_classes.hpp"
#include "shape_report.hpp"

namespace triax::bench {

void run_host_case(const Case& c, const CopyReference& copy, std::vector<Row>& rows);

/// The shape suite's draws on a host backend, float then double (shape_runner.hpp).
void run_host_shapes(const std::vector<ShapeDraw>& draws, Backend backend, int reps,
                     const CopyReference& copy, std::vector<ShapeRow>& rows);

}  // namespace triax::bench
