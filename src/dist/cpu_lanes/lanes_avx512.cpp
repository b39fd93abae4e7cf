// The CPU ranks' lane passes with the AVX-512 flags of the other CPU kernels (32-byte explicit
// vectors, as theirs). Called only where cpu::kernel_isa() picks the avx512 copy.
#define TRIAX_CPU_ISA avx512
#include "dist/cpu_lanes/lanes.inc"
