// The run-time pick of a CPU kernel copy (cpu/isa.hpp).
#include "cpu/isa.hpp"

#include <cstdlib>
#include <string>
#include <string_view>

#include "cpu/batch.hpp"
#include "triax/errors.hpp"

namespace triax::detail::cpu {

Isa kernel_isa() {
  const char* forced = std::getenv("TRIAX_CPU_ISA");
  if (forced == nullptr || *forced == '\0') {
    if (avx512_kernels_usable()) return Isa::avx512;
    return avx2_kernels_usable() ? Isa::avx2 : Isa::baseline;
  }
  const std::string_view name(forced);
  // A forced copy the processor lacks must fail loudly: a test run meant for that copy would
  // otherwise pass on another one.
  const auto unusable = [&] {
    return invalid_argument("triax: TRIAX_CPU_ISA = " + std::string(name) +
                            ", but this processor lacks it or this build has no such copy");
  };
  if (name == "baseline") return Isa::baseline;
  if (name == "avx2") {
    if (!avx2_kernels_usable()) throw unusable();
    return Isa::avx2;
  }
  if (name == "avx512") {
    if (!avx512_kernels_usable()) throw unusable();
    return Isa::avx512;
  }
  throw invalid_argument("triax: TRIAX_CPU_ISA = " + std::string(name) +
                         " is not one of baseline, avx2, avx512");
}

}  // namespace triax::detail::cpu
