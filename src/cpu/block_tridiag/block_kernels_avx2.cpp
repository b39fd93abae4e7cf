// The block kernels again, compiled with -mavx2 -mfma (src/CMakeLists.txt); the plan calls them
// only where cpu::avx2_kernels_usable() says the processor has both.
#define TRIAX_CPU_ISA avx2
#define TRIAX_CPU_BLOCK_ENTRY solve_block_batch_avx2
#include "cpu/block_tridiag/block_kernels.inc"
