// The CPU factored kernel again, compiled with -mavx2 -mfma (src/CMakeLists.txt): twice the lanes
// per instruction and fused multiply-adds. Called only where cpu::avx2_kernels_usable().
#define TRIAX_FACTORED_ISA avx2
#define TRIAX_FACTORED_ENTRY run_strips_avx2
#include "cpu/factored/strips.inc"
