// The coop kernel's tune tuned_w4_r72_rcp_ls (block_coop_tuned.cuh), float: one translation unit a tune,
// so that the build stays parallel.
#include "cuda/block_tridiag/block_coop_tuned.cuh"

namespace triax::detail::cuda {
TRIAX_INSTANTIATE_COOP_TUNE(4, 72, true, true)
}  // namespace triax::detail::cuda
