#pragma once
// The C API's float and double entry points behind one template, so the harness is written once.
#include <type_traits>

#include "triax/triax.h"

namespace triax_fuzz {

template <class T>
struct CApi;

template <>
struct CApi<double> {
  static constexpr auto create = triax_plan_create_d;
  static constexpr auto in_place = triax_solve_in_place_d;
  static constexpr auto solve = triax_solve_d;
  static constexpr auto increment = triax_solve_increment_d;
};

template <>
struct CApi<float> {
  static constexpr auto create = triax_plan_create_f;
  static constexpr auto in_place = triax_solve_in_place_f;
  static constexpr auto solve = triax_solve_f;
  static constexpr auto increment = triax_solve_increment_f;
};

// The other precision's type, for calls that must be rejected as mismatched (_f on a _d plan).
template <class T>
using other_t = std::conditional_t<std::is_same_v<T, double>, float, double>;

}  // namespace triax_fuzz
