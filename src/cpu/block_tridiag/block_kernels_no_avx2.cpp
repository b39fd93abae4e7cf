// Built where block_kernels_avx2.cpp is not (cpu::avx2_kernels_usable() is then false, from
// cpu/kernels_no_avx2.cpp): the AVX2 entry forwards to the portable kernels.
#include "cpu/block_tridiag/block_batch.hpp"

namespace triax::detail::cpu {
template <class T>
void solve_block_batch_avx2(const BlockBatch<T>& batch) {
  solve_block_batch_baseline(batch);
}
template void solve_block_batch_avx2<float>(const BlockBatch<float>&);
template void solve_block_batch_avx2<double>(const BlockBatch<double>&);
}  // namespace triax::detail::cpu
