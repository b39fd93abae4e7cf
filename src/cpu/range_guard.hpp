#pragma once
// Which form of the CPU kernels' range guard (thomas_lanes.hpp, forward_row) a plan runs, chosen
// with TRIAX_CPU_RANGE_GUARD at plan creation (cpu_plan.cpp). Unset: each kernel copy's own
// (getexp in the AVX-512 copy, scaled in the others) on Intel processors, scaled on the others
// (issue 34, docs/notes/2026-11-27-guard34.md).

#include <string_view>
#include <utility>

namespace triax::detail::cpu {

enum class Guard {
  automatic,  // unset on Intel: the copy's own (AVX-512: getexp; AVX2, baseline: scaled)
  none,       // "0": r = 1/m, the arithmetic before the range work (wrong outside the normal range)
  scaled,     // "1", "scaled": m scaled into a binade near 1 by 2^-e taken from its exponent bits
  getexp,     // "getexp": AVX-512 getmant on the chain, getexp/scalef for c and rhs beside it
};

/// The guard a value of TRIAX_CPU_RANGE_GUARD names (nullptr: unset); false if it names none.
inline bool parse_guard(const char* v, Guard& g) {
  if (v == nullptr) {
    g = Guard::automatic;
    return true;
  }
  constexpr std::pair<std::string_view, Guard> names[] = {
      {"0", Guard::none}, {"1", Guard::scaled}, {"scaled", Guard::scaled}, {"getexp", Guard::getexp}};
  for (const auto& [name, guard] : names) {
    if (std::string_view(v) == name) {
      g = guard;
      return true;
    }
  }
  return false;
}

}  // namespace triax::detail::cpu
