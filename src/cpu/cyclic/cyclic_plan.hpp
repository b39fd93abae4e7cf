#pragma once
// The CPU backend's plan for the cyclic family (cpu_cr, cpu_pcr, cpu_rd, cpu_cr_pcr, cpu_cr_rd);
// cpu_plan.cpp hands these algorithms to it.
#include <memory>

#include "core/backend_plan.hpp"

namespace triax::detail {

/// Whether `algorithm` is one of the CPU backend's cyclic algorithms.
bool is_cpu_cyclic(Algorithm algorithm);

template <class T>
std::unique_ptr<BackendPlan<T>> make_cpu_cyclic_plan(const Problem& problem,
                                                     const Options& options);

}  // namespace triax::detail
