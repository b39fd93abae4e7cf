// Built where factored_strips_avx2.cpp is not: the "AVX2" entry is the portable one (never
// picked, since cpu::avx2_kernels_usable() is false there).
#include "cpu/factored/strip_work.hpp"

namespace triax::detail::cpu_factored {
template <class T>
void run_strips_avx2(const Problem& p, const FactoredOperands<T>& ops, const FactorView<T>& f,
                     const StripWork<T>& sw) {
  run_strips_baseline(p, ops, f, sw);
}
template void run_strips_avx2<float>(const Problem&, const FactoredOperands<float>&,
                                     const FactorView<float>&, const StripWork<float>&);
template void run_strips_avx2<double>(const Problem&, const FactoredOperands<double>&,
                                      const FactorView<double>&, const StripWork<double>&);
}  // namespace triax::detail::cpu_factored
