// The CPU ranks' lane passes with -mavx2 (32-byte vectors; src/CMakeLists.txt). Called only where
// cpu::kernel_isa() says the processor runs the avx2 copy.
#define TRIAX_CPU_ISA avx2
#include "dist/cpu_lanes/lanes.inc"
