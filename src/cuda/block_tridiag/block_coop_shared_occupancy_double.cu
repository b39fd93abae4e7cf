// cuda_block_coop_thomas, variant shared_occupancy, for double (one translation unit a variant and
// precision: the build stays parallel).
#include "cuda/block_tridiag/block_coop_thomas.cuh"

namespace triax::detail::cuda {
TRIAX_INSTANTIATE_COOP_VARIANT(double, shared_occupancy)
}  // namespace triax::detail::cuda
