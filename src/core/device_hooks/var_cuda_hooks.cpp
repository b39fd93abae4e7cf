// Compiled instead of src/cuda/varbatch when CUDA is off: a variable batch on the cuda backend
// throws not_compiled, as a fixed one does.
#include "core/var_problem.hpp"
#include "triax/errors.hpp"

namespace triax::detail {

template <class T>
std::unique_ptr<VarBackendPlan<T>> make_cuda_var_plan(const VarLayout::Data&, const Options&) {
  throw not_compiled(
      "triax::VarSolver: the cuda backend was not compiled into this build (configure with "
      "-DTRIAX_ENABLE_CUDA=ON on a machine with nvcc)");
}
template std::unique_ptr<VarBackendPlan<float>> make_cuda_var_plan(const VarLayout::Data&,
                                                                   const Options&);
template std::unique_ptr<VarBackendPlan<double>> make_cuda_var_plan(const VarLayout::Data&,
                                                                    const Options&);

}  // namespace triax::detail
