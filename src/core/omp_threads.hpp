#pragma once
// The number of OpenMP threads a host plan sizes its workspace for and runs with.
#include <omp.h>

namespace triax::detail {

inline int host_threads(int requested) { return requested > 0 ? requested : omp_get_max_threads(); }

}  // namespace triax::detail
