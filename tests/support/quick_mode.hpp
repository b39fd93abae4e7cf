#pragma once
// The suites' size switches, read from the environment where a test builds its cases (so one
// binary serves every run): TRIAX_TEST_QUICK=1 for the compute-sanitizer runs, which are 20-50
// times slower, and TRIAX_FULL_RANGE_TESTS=1 for the exhaustive sweeps that a default run only
// samples (scripts/gpu-check tests-full).
#include <cstdlib>

namespace triax::test {

/// Whether the environment variable is set to something other than "" or "0".
inline bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && v[0] != '\0' && !(v[0] == '0' && v[1] == '\0');
}

/// TRIAX_TEST_QUICK=1: fewer and smaller cases, every code path still reached.
inline bool quick_mode() { return env_flag("TRIAX_TEST_QUICK"); }

/// TRIAX_FULL_RANGE_TESTS=1: the whole sweep where a default run takes a sample of it (quick
/// mode wins where both are set).
inline bool full_range_tests() { return env_flag("TRIAX_FULL_RANGE_TESTS"); }

}  // namespace triax::test
