// The CPU kernels again, compiled with -mavx2 -mfma (see src/CMakeLists.txt): twice the lanes
// per instruction and fused multiply-adds. Only called where the processor has both.
#define TRIAX_CPU_ISA avx2
#define TRIAX_CPU_ENTRY solve_batch_avx2
#include "cpu/scalar/solve_batch.inc"

namespace triax::detail::cpu {
bool avx2_kernels_usable() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
}  // namespace triax::detail::cpu
