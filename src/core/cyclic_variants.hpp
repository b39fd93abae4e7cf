#pragma once
// The five algorithms of the cyclic family as the backends run them: every one is "CR forward
// reduction down to at most switch_rows rows, PCR or RD on that reduced system, CR back
// substitution" (CR: switch_rows = 1; PCR and RD: no CR step). Both backends take the switch
// sizes from here, so that the CPU references reproduce the GPU kernels' arithmetic.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

#include "triax/errors.hpp"
#include "triax/options.hpp"

namespace triax::detail::cyclic {

enum class InnerSolver { pcr, rd };

struct Variant {
  std::int64_t switch_rows;  // CR reduces until at most this many rows remain
  InnerSolver inner;
};

// The hybrids' reduced-system sizes until they are tuned on the GPU. CR+PCR: 256 rows, which is
// paper 001's best for 512-row systems (s.5.3.4, Fig. 17) and one row per thread of a 256-thread
// block, so that each PCR step keeps every thread busy while CR's levels below it would leave
// most idle. CR+RD: 128, the paper's choice; RD does about twice PCR's shared-memory traffic per
// step, so a smaller reduced system pays off sooner.
inline constexpr std::int64_t cr_pcr_switch_rows = 256;
inline constexpr std::int64_t cr_rd_switch_rows = 128;
inline constexpr std::int64_t no_cr_step = INT64_MAX;

/// The hybrids' switch size, overridable for tuning by TRIAX_CYCLIC_SWITCH_ROWS (a positive
/// integer; read when a plan is made).
inline std::int64_t switch_rows_or_override(std::int64_t default_rows) {
  const char* text = std::getenv("TRIAX_CYCLIC_SWITCH_ROWS");
  if (text == nullptr) return default_rows;
  char* end = nullptr;
  const long long rows = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || rows < 1) {
    throw invalid_argument(std::string("TRIAX_CYCLIC_SWITCH_ROWS = '") + text +
                           "' is not a positive integer");
  }
  return rows;
}

/// The variant of a cyclic algorithm of either backend, or nullopt for any other algorithm.
inline std::optional<Variant> variant_of(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::cpu_cr:
    case Algorithm::cuda_cr:
      return Variant{1, InnerSolver::pcr};
    case Algorithm::cpu_pcr:
    case Algorithm::cuda_pcr:
      return Variant{no_cr_step, InnerSolver::pcr};
    case Algorithm::cpu_rd:
    case Algorithm::cuda_rd:
      return Variant{no_cr_step, InnerSolver::rd};
    case Algorithm::cpu_cr_pcr:
    case Algorithm::cuda_cr_pcr:
      return Variant{switch_rows_or_override(cr_pcr_switch_rows), InnerSolver::pcr};
    case Algorithm::cpu_cr_rd:
    case Algorithm::cuda_cr_rd:
      return Variant{switch_rows_or_override(cr_rd_switch_rows), InnerSolver::rd};
    default:
      return std::nullopt;
  }
}

}  // namespace triax::detail::cyclic
