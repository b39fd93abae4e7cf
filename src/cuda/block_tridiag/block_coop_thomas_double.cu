// cuda_block_coop_thomas for double (one translation unit a precision: the build stays parallel).
#include "cuda/block_tridiag/block_coop_thomas.cuh"

namespace triax::detail::cuda {
TRIAX_INSTANTIATE_BLOCK_LAUNCHER(cuda_block_coop_thomas, double)
}  // namespace triax::detail::cuda
