// The CPU kernels a third time, compiled for AVX-512 (F, DQ, VL, BW) with FMA (src/CMakeLists.txt):
// 32 vector registers instead of 16, two-source permutes for the register transposes, masked
// tails. Called only where the processor has all of them (cpu/isa.cpp).
#define TRIAX_CPU_ISA avx512
#define TRIAX_CPU_ENTRY solve_batch_avx512
#include "cpu/scalar/solve_batch.inc"

namespace triax::detail::cpu {
bool avx512_kernels_usable() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("fma");
}
}  // namespace triax::detail::cpu
