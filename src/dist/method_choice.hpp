#pragma once
// Which method solves the reduced system when the caller leaves it to the plan.
#include "triax/mpi.hpp"

namespace triax::detail {

/// automatic -> a named method for `ranks` ranks along the axis; named methods stay as they are.
triax::mpi::Method choose_method(triax::mpi::Method requested, int ranks);

}  // namespace triax::detail
