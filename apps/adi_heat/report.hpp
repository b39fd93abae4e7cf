#pragma once
// What adi_heat prints, and the same numbers as JSON for scripts.

#include <string>

#include "heat_problem.hpp"

namespace adi {

void print_result(const Settings& s, const Result& r);
// Throws std::runtime_error when the file cannot be written.
void write_json(const std::string& path, const Settings& s, const Result& r);

}  // namespace adi
