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

// The hybrids' reduced-system sizes. CR+PCR: 32 rows, one warp's (block_steps.cuh, warp_pcr:
// its PCR steps need no barrier). Measured on an H200 at 512 systems of 512 rows
// (2026-11-28, switch 8 / 16 / 32 / 64 / 128 / 256, GB/s): float 372 / 393 / 406 / 374 / 360 /
// 309, double 639 / 665 / 688 / 625 / 605 / 524. Paper 001 chose 256 on a GTX 280 (s.5.3.4,
// Fig. 17), where each PCR step kept every thread busy; here a barrier costs more than the idle
// threads of CR's narrow levels. CR+RD: 128, the paper's choice; RD does about twice PCR's
// shared-memory traffic per step, so a smaller reduced system pays off sooner.
inline constexpr std::int64_t cr_pcr_switch_rows = 32;
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
