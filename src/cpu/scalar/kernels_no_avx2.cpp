// Built where kernels_avx2.cpp is not (not x86-64, or a compiler without GCC's target flags).
#include "cpu/batch.hpp"

namespace triax::detail::cpu {
bool avx2_kernels_usable() { return false; }
template <class T>
void solve_batch_avx2(const Batch<T>& batch) {
  solve_batch_baseline(batch);
}
template void solve_batch_avx2<float>(const Batch<float>&);
template void solve_batch_avx2<double>(const Batch<double>&);
}  // namespace triax::detail::cpu
