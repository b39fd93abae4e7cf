// Built where factored_strips_avx2.cpp and factored_strips_avx512.cpp are not: those entries are
// the portable one (never picked, since neither copy is usable there).
#include "cpu/factored/strip_work.hpp"

namespace triax::detail::cpu_factored {
template <class T>
void run_strips_avx2(const Problem& p, const FactoredOperands<T>& ops, const FactorView<T>& f,
                     const StripWork<T>& sw) {
  run_strips_baseline(p, ops, f, sw);
}
template <class T>
void run_strips_avx512(const Problem& p, const FactoredOperands<T>& ops, const FactorView<T>& f,
                       const StripWork<T>& sw) {
  run_strips_baseline(p, ops, f, sw);
}
template void run_strips_avx2<float>(const Problem&, const FactoredOperands<float>&,
                                     const FactorView<float>&, const StripWork<float>&);
template void run_strips_avx2<double>(const Problem&, const FactoredOperands<double>&,
                                      const FactorView<double>&, const StripWork<double>&);
template void run_strips_avx512<float>(const Problem&, const FactoredOperands<float>&,
                                       const FactorView<float>&, const StripWork<float>&);
template void run_strips_avx512<double>(const Problem&, const FactoredOperands<double>&,
                                        const FactorView<double>&, const StripWork<double>&);
}  // namespace triax::detail::cpu_factored
