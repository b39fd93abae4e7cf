#pragma once
// Which compiled copy of the CPU kernels a plan calls (scalar, block and factored families alike):
// the widest instruction set both built and supported by the processor, or the one TRIAX_CPU_ISA
// names (baseline, avx2 or avx512) for tests and A/B timings.

namespace triax::detail::cpu {

enum class Isa { baseline, avx2, avx512 };

/// The copy to run. Reads TRIAX_CPU_ISA at each call (plans call it once, at construction);
/// throws triax::invalid_argument for a value it does not know or a copy this processor (or this
/// build) cannot run, rather than quietly running another one.
Isa kernel_isa();

/// The entry of the chosen copy.
template <class F>
F pick_kernel(F baseline, F avx2, F avx512) {
  switch (kernel_isa()) {
    case Isa::avx512:
      return avx512;
    case Isa::avx2:
      return avx2;
    default:
      return baseline;
  }
}

}  // namespace triax::detail::cpu
