// The cyclic algorithms whose reduced system RD solves: cuda_rd (no CR step) and cuda_cr_rd
// (reduced to the switch size).
#include "cuda/cyclic/block_cyclic.cuh"

namespace triax::detail::cuda {

TRIAX_CYCLIC_LAUNCHERS(rd, rd)
TRIAX_CYCLIC_LAUNCHERS(cr_rd, rd)

}  // namespace triax::detail::cuda
