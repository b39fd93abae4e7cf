#pragma once
// What every CUDA launcher does with a solve's mode: turn the run-time flags (add into x or
// store it; fill info or not) into the compile-time ones of its kernel.
#include <type_traits>

#include "core/problem.hpp"

namespace triax::detail::cuda {

/// Calls launch(std::bool_constant<Accumulate>, std::bool_constant<Checked>) for ops' mode.
template <class T, class Launch>
void with_solve_mode(const Operands<T>& ops, Launch&& launch) {
  const bool checked = ops.info != nullptr;
  if (ops.accumulate) {
    checked ? launch(std::true_type{}, std::true_type{}) : launch(std::true_type{}, std::false_type{});
  } else {
    checked ? launch(std::false_type{}, std::true_type{})
            : launch(std::false_type{}, std::false_type{});
  }
}

/// The workspace of the thread-per-system kernels: c' and d' of every row of every system,
/// interleaved by system.
template <class T>
std::size_t interleaved_workspace_bytes(const Problem& p) {
  return 2 * static_cast<std::size_t>(p.n) * static_cast<std::size_t>(p.count) * sizeof(T);
}

}  // namespace triax::detail::cuda
