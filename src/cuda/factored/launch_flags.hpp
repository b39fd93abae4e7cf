#pragma once
// The factored plans' kernels are templates over three solve-time flags (u += x, checked mode,
// a scaled table); this turns the runtime values into the instantiation, once for both plans.
#include <type_traits>

namespace triax::detail::cuda_factored {

/// Calls f(accumulate, checked, scaled) with each flag as std::bool_constant.
template <class F>
void with_flags(bool accumulate, bool checked, bool scaled, F&& f) {
  auto pick = [](bool v, auto&& g) { v ? g(std::true_type{}) : g(std::false_type{}); };
  pick(accumulate,
       [&](auto a) { pick(checked, [&](auto c) { pick(scaled, [&](auto s) { f(a, c, s); }); }); });
}

}  // namespace triax::detail::cuda_factored
