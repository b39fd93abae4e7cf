// Built where kernels_avx2.cpp and kernels_avx512.cpp are not (not x86-64, or a compiler without
// GCC's target flags): neither copy is usable, and their entries forward to the portable one.
#include "cpu/batch.hpp"

namespace triax::detail::cpu {
bool avx2_kernels_usable() { return false; }
bool avx512_kernels_usable() { return false; }
template <class T>
void solve_batch_avx2(const Batch<T>& batch) {
  solve_batch_baseline(batch);
}
template <class T>
void solve_batch_avx512(const Batch<T>& batch) {
  solve_batch_baseline(batch);
}
template void solve_batch_avx2<float>(const Batch<float>&);
template void solve_batch_avx2<double>(const Batch<double>&);
template void solve_batch_avx512<float>(const Batch<float>&);
template void solve_batch_avx512<double>(const Batch<double>&);
}  // namespace triax::detail::cpu
