// The coop kernel's tune tuned_w2_rcp_ls (block_coop_tuned.cuh), float: one translation unit a tune,
// so that the build stays parallel.
#include "cuda/block_tridiag/block_coop_tuned.cuh"

namespace triax::detail::cuda {
TRIAX_INSTANTIATE_COOP_TUNE(2, 0, true, true)
}  // namespace triax::detail::cuda
