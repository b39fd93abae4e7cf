// The block kernels compiled for AVX-512 (src/CMakeLists.txt), like cpu/scalar/kernels_avx512.cpp;
// the plan calls them only where cpu::avx512_kernels_usable().
#define TRIAX_CPU_ISA avx512
#define TRIAX_CPU_BLOCK_ENTRY solve_block_batch_avx512
#include "cpu/block_tridiag/block_kernels.inc"
