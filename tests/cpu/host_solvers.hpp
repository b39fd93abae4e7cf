#pragma once
// The host solvers the CPU suite runs side by side: both reference algorithms and every CPU one.

#include <string>
#include <vector>

#include "support/compare.hpp"

namespace triax::test {

struct HostSolver {
  Backend backend;
  Algorithm algorithm;
  std::string name() const {
    return std::string(to_string(backend)) + "/" + std::string(to_string(algorithm));
  }
};

inline constexpr HostSolver reference_thomas{Backend::reference, Algorithm::reference_thomas};
inline constexpr HostSolver reference_dense_lu{Backend::reference, Algorithm::reference_dense_lu};
inline constexpr HostSolver thomas_solvers[] = {reference_thomas,
                                                {Backend::cpu, Algorithm::automatic},
                                                {Backend::cpu, Algorithm::cpu_thomas},
                                                {Backend::cpu, Algorithm::cpu_thomas_transpose}};

/// Every host solver of the Thomas elimination, and the partitioned one, whose pivots differ from
/// Thomas's (tests that plant a breakdown at a Thomas pivot use thomas_solvers only).
inline constexpr HostSolver partitioned{Backend::cpu, Algorithm::cpu_thomas_partitioned};
inline constexpr HostSolver host_solvers[] = {reference_thomas,
                                              {Backend::cpu, Algorithm::automatic},
                                              {Backend::cpu, Algorithm::cpu_thomas},
                                              {Backend::cpu, Algorithm::cpu_thomas_transpose},
                                              partitioned};

/// The packed 2-D layout whose `axis` holds systems of n rows, `systems` of them.
inline Layout systems_along(int axis, std::int64_t n, std::int64_t systems) {
  return axis == 0 ? Layout::packed({n, systems}) : Layout::packed({systems, n});
}

}  // namespace triax::test
