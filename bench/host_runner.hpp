#pragma once
// Cases on the host backends (cpu, reference), with the LAPACK baseline for cpu.
#include <vector>

#include "case.hpp"

namespace triax::bench {

void run_host_case(const Case& c, const CopyReference& copy, std::vector<Row>& rows);

}  // namespace triax::bench
