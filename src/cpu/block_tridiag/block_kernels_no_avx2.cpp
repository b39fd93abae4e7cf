// Built where block_kernels_avx2.cpp and block_kernels_avx512.cpp are not (neither copy is then
// usable, cpu/kernels_no_avx2.cpp): their entries forward to the portable kernels.
#include "cpu/block_tridiag/block_batch.hpp"

namespace triax::detail::cpu {
template <class T>
void solve_block_batch_avx2(const BlockBatch<T>& batch) {
  solve_block_batch_baseline(batch);
}
template <class T>
void solve_block_batch_avx512(const BlockBatch<T>& batch) {
  solve_block_batch_baseline(batch);
}
template void solve_block_batch_avx2<float>(const BlockBatch<float>&);
template void solve_block_batch_avx2<double>(const BlockBatch<double>&);
template void solve_block_batch_avx512<float>(const BlockBatch<float>&);
template void solve_block_batch_avx512<double>(const BlockBatch<double>&);
}  // namespace triax::detail::cpu
