// cuda_block_coop_thomas, variant shuffle, for float (one translation unit a variant and
// precision: the build stays parallel).
#include "cuda/block_tridiag/block_coop_thomas.cuh"

namespace triax::detail::cuda {
TRIAX_INSTANTIATE_COOP_VARIANT(float, shuffle)
}  // namespace triax::detail::cuda
