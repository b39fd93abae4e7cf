// Compiled instead of src/cuda/factored when TRIAX_ENABLE_CUDA is off: a factored plan on the
// cuda backend throws not_compiled.
#include "core/factored/factored_plan.hpp"
#include "core/factored/stencil_workspace.hpp"
#include "triax/errors.hpp"

namespace triax::detail {
namespace {
[[noreturn]] void no_cuda() {
  throw not_compiled(
      "triax::FactoredSolver: the cuda backend was not compiled into this build (configure with "
      "-DTRIAX_ENABLE_CUDA=ON on a machine with nvcc)");
}
}  // namespace

template <class T>
std::unique_ptr<FactoredBackendPlan<T>> make_cuda_factored_plan(const Problem&, const Options&,
                                                                const FactorTable<T>&) {
  no_cuda();
}
template std::unique_ptr<FactoredBackendPlan<float>> make_cuda_factored_plan(
    const Problem&, const Options&, const FactorTable<float>&);
template std::unique_ptr<FactoredBackendPlan<double>> make_cuda_factored_plan(
    const Problem&, const Options&, const FactorTable<double>&);

template <class T>
std::unique_ptr<FactoredBackendPlan<T>> make_cuda_factored_cr_plan(const Problem&, const Options&,
                                                                   const CrTable<T>&, bool) {
  no_cuda();
}
template std::unique_ptr<FactoredBackendPlan<float>> make_cuda_factored_cr_plan(
    const Problem&, const Options&, const CrTable<float>&, bool);
template std::unique_ptr<FactoredBackendPlan<double>> make_cuda_factored_cr_plan(
    const Problem&, const Options&, const CrTable<double>&, bool);

template <class T>
std::unique_ptr<FactoredBackendPlan<T>> make_cuda_factored_hybrid_plan(const Problem&,
                                                                       const Options&,
                                                                       const FactorTable<T>&,
                                                                       const FactoredMatrix<T>&) {
  no_cuda();
}
template std::unique_ptr<FactoredBackendPlan<float>> make_cuda_factored_hybrid_plan(
    const Problem&, const Options&, const FactorTable<float>&, const FactoredMatrix<float>&);
template std::unique_ptr<FactoredBackendPlan<double>> make_cuda_factored_hybrid_plan(
    const Problem&, const Options&, const FactorTable<double>&, const FactoredMatrix<double>&);

template <class T>
std::unique_ptr<StencilWorkspace<T>> make_cuda_stencil_workspace(std::int64_t, void*) {
  no_cuda();
}
template std::unique_ptr<StencilWorkspace<float>> make_cuda_stencil_workspace(std::int64_t, void*);
template std::unique_ptr<StencilWorkspace<double>> make_cuda_stencil_workspace(std::int64_t,
                                                                               void*);

}  // namespace triax::detail
