// The CPU ranks' lane passes for the compiler's default target (16-byte vectors).
#define TRIAX_CPU_ISA baseline
#include "dist/cpu_lanes/lanes.inc"
