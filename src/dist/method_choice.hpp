#pragma once
// Which method solves the reduced system when the caller leaves it to the plan.
#include "triax/mpi.hpp"

namespace triax::detail {

/// automatic -> a named method for `ranks` ranks along the axis and the reduced system's form;
/// named methods stay as they are.
triax::mpi::Method choose_method(triax::mpi::Method requested, int ranks,
                                 triax::mpi::ReducedRows rows);

}  // namespace triax::detail
