// The back-to-back class kernel's launches, variant ahead (var_b2b_launch.hpp).
#include "cuda/varbatch/var_b2b_launch.cuh"

TRIAX_B2B_LAUNCH_VARIANT(triax::detail::B2BVariant::ahead)
