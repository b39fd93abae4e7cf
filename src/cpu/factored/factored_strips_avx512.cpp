// The CPU factored kernel compiled for AVX-512 (src/CMakeLists.txt). Called only where
// cpu::avx512_kernels_usable().
#define TRIAX_FACTORED_ISA avx512
#define TRIAX_FACTORED_ENTRY run_strips_avx512
#include "cpu/factored/strips.inc"
