// The CPU factored kernel for the compiler's default target (every x86-64, every other processor).
#define TRIAX_FACTORED_ISA baseline
#define TRIAX_FACTORED_ENTRY run_strips_baseline
#include "cpu/factored/strips.inc"
