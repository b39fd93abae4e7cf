// The CPU kernels for the instruction set the compiler targets by default.
#define TRIAX_CPU_ISA baseline
#define TRIAX_CPU_ENTRY solve_batch_baseline
#include "cpu/scalar/solve_batch.inc"
