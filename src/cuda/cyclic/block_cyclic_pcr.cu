// The cyclic algorithms whose reduced system PCR solves: cuda_cr (reduced to one row),
// cuda_pcr (no CR step) and cuda_cr_pcr (reduced to the switch size). One kernel per precision
// and mode serves all three.
#include "cuda/cyclic/block_cyclic.cuh"

namespace triax::detail::cuda {

TRIAX_CYCLIC_LAUNCHERS(cr, pcr)
TRIAX_CYCLIC_LAUNCHERS(pcr, pcr)
TRIAX_CYCLIC_LAUNCHERS(cr_pcr, pcr)

}  // namespace triax::detail::cuda
