// cuda_block_thread_thomas for float (one translation unit a precision: the build stays parallel).
#include "cuda/block_tridiag/block_thread_thomas.cuh"

namespace triax::detail::cuda {
TRIAX_INSTANTIATE_BLOCK_LAUNCHER(cuda_block_thread_thomas, float)
}  // namespace triax::detail::cuda
