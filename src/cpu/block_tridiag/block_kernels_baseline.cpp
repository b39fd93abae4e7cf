// The block kernels for the instruction set the compiler targets by default.
#define TRIAX_CPU_ISA baseline
#define TRIAX_CPU_BLOCK_ENTRY solve_block_batch_baseline
#include "cpu/block_tridiag/block_kernels.inc"
