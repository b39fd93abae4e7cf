// Compiled instead of src/cuda/varbatch when CUDA is off: a variable batch on the cuda backend
// throws not_compiled, as a fixed one does.
#include "core/var_problem.hpp"
#include "triax/errors.hpp"

namespace triax::detail {

std::vector<std::int64_t> host_values(std::span<const std::int64_t> values) {
  return {values.begin(), values.end()};  // no device memory without CUDA
}

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

#include "core/device_convert.hpp"

namespace triax::detail {

template <class T>
void device_convert(const Layout&, const T*, const Layout&, T*, void*) {
  throw not_compiled(
      "triax::layouts::convert: the cuda backend was not compiled into this build (configure "
      "with -DTRIAX_ENABLE_CUDA=ON on a machine with nvcc)");
}
template void device_convert(const Layout&, const float*, const Layout&, float*, void*);
template void device_convert(const Layout&, const double*, const Layout&, double*, void*);

}  // namespace triax::detail
