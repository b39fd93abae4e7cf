#pragma once
// Which form of the CPU kernels' range guard (thomas_lanes.hpp, forward_row) a plan runs. Only
// `scaled` is the library's; the others exist for timing (issue 34's 2% question, bench/ab_range)
// and are chosen with TRIAX_CPU_RANGE_GUARD at plan creation (cpu_plan.cpp).

#include <string_view>
#include <utility>

namespace triax::detail::cpu {

enum class Guard {
  none,      // "0": r = 1/m, the arithmetic before the range work (wrong outside the normal range)
  scaled,    // default, "1": m scaled into a binade near 1 by 2^-e taken from its exponent bits
  divide,    // "divide": c / m and (rhs + (m - m)) / m, two correctly rounded divisions
  minscale,  // "minscale": the scale from three integer ops (and, subtract, min), |m s| in [2, 4)
  getexp,    // "getexp": AVX-512 getmant on the chain, getexp/scalef for c and rhs beside it
  branch,    // "branch": one range test per row and lanes; the scaled row only where it fails
  deferred,  // "deferred": the plain row, 1/m tested beside it; a block redone scaled if any fails
};

/// The guard a value of TRIAX_CPU_RANGE_GUARD names (nullptr: unset); false if it names none.
inline bool parse_guard(const char* v, Guard& g) {
  const std::string_view s = v == nullptr ? "1" : v;
  constexpr std::pair<std::string_view, Guard> names[] = {
      {"0", Guard::none},           {"1", Guard::scaled},  {"scaled", Guard::scaled},
      {"divide", Guard::divide},    {"minscale", Guard::minscale},
      {"getexp", Guard::getexp},    {"branch", Guard::branch},
      {"deferred", Guard::deferred}};
  for (const auto& [name, guard] : names) {
    if (s == name) {
      g = guard;
      return true;
    }
  }
  return false;
}

}  // namespace triax::detail::cpu
