// Compiled instead of src/cuda when TRIAX_ENABLE_CUDA is off: the CUDA backend exists as a
// value and throws not_compiled when a plan asks for it.
#include "core/backend_plan.hpp"
#include "core/block_problem.hpp"
#include "triax/errors.hpp"

namespace triax::detail {

template <class T>
std::unique_ptr<BackendPlan<T>> make_cuda_plan(const Problem&, const Options&) {
  throw not_compiled(
      "triax: the cuda backend was not compiled into this build (configure with "
      "-DTRIAX_ENABLE_CUDA=ON on a machine with nvcc)");
}
template std::unique_ptr<BackendPlan<float>> make_cuda_plan(const Problem&, const Options&);
template std::unique_ptr<BackendPlan<double>> make_cuda_plan(const Problem&, const Options&);

template <class T>
std::unique_ptr<BlockBackendPlan<T>> make_cuda_block_plan(const BlockProblem&, const Options&,
                                                          BlockAlgorithm) {
  throw not_compiled(
      "triax::BlockSolver: the cuda backend was not compiled into this build (configure with "
      "-DTRIAX_ENABLE_CUDA=ON on a machine with nvcc)");
}
TRIAX_INSTANTIATE_CUDA_BLOCK_PLAN()

MemorySpace memory_space_of(const void*) { return MemorySpace::host; }
bool cuda_compiled() { return false; }

}  // namespace triax::detail
