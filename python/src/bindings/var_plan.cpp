#include "var_plan.hpp"

#include <span>
#include <type_traits>

#include "device_guard.hpp"
#include "plan.hpp"

namespace triax::python {
namespace {

template <class T>
struct VarValue;
template <class T>
struct VarValue<triax::VarSolver<T>> {
  using type = T;
};

using HostIndex = nb::ndarray<const std::int64_t, nb::ndim<1>, nb::device::cpu, nb::c_contig>;

HostIndex import_index(nb::handle h, const char* name) {
  HostIndex x;
  if (h.is_none() || !nb::try_cast(h, x)) {
    throw nb::type_error((std::string("triax: ") + name +
                          " must be a 1-D contiguous host array of int64 (one value per system)")
                             .c_str());
  }
  return x;
}

std::span<const std::int64_t> span_of(const HostIndex& x) {
  return {x.data(), static_cast<std::size_t>(x.shape(0))};
}

}  // namespace

VarLayout var_layout_of(nb::handle lengths, nb::handle offsets, bool back_to_back,
                        const Signature& s) {
  const HostIndex l = import_index(lengths, "lengths");
  if (!back_to_back) {
    if (!offsets.is_none()) {
      throw nb::value_error("triax: offsets are for back-to-back storage (axis=None) only");
    }
    return VarLayout::padded(layouts_of(s), library_axis(s), span_of(l));
  }
  // Back to back: every operand is one 1-D run of elements, system s's row i at offsets[s] + i.
  for (int op = 0; op < operand_count; ++op) {
    if (s.ndim != 1 || (s.shape[0] > 1 && s.strides[op][0] != 1)) {
      throw nb::value_error((std::string("triax: back-to-back storage needs 1-D arrays with unit "
                                         "stride; ") +
                             operand_names[op] + " is not one")
                                .c_str());
    }
  }
  VarLayout layout = offsets.is_none() ? VarLayout::back_to_back(span_of(l))
                                       : VarLayout::back_to_back(
                                             span_of(l), span_of(import_index(offsets, "offsets")));
  if (layout.span() > s.shape[0]) {
    throw nb::value_error(("triax: the systems end at element " + std::to_string(layout.span()) +
                           " but the arrays hold " + std::to_string(s.shape[0]))
                              .c_str());
  }
  return layout;
}

VarPlan::VarPlan(nb::handle lengths, nb::handle offsets, bool back_to_back,
                 const Signature& signature, std::uintptr_t stream)
    : signature_(signature),
      back_to_back_(back_to_back),
      backend_(signature.device_type == device_cuda ? Backend::cuda : Backend::cpu),
      layout_(var_layout_of(lengths, offsets, back_to_back, signature)) {
  DeviceGuard guard(signature_);
  solver_for(stream);
}

VarPlan::Solver VarPlan::make_solver(std::uintptr_t stream) const {
  Options options = options_for(signature_, stream);
  if (signature_.bits == 32) {
    return Solver(std::in_place_type<triax::VarSolver<float>>, backend_, layout_, options);
  }
  return Solver(std::in_place_type<triax::VarSolver<double>>, backend_, layout_, options);
}

VarPlan::Solver& VarPlan::solver_for(std::uintptr_t stream) {
  return solvers_.for_stream(backend_, stream,
                              [this](std::uintptr_t s) { return make_solver(s); });
}

void VarPlan::run(const Operands& ops, bool increment, int* info, std::uintptr_t stream) {
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(mutex_);
  DeviceGuard guard(signature_);
  std::visit(
      [&](auto& solver) {
        using Value = typename VarValue<std::decay_t<decltype(solver)>>::type;
        const auto* a = static_cast<const Value*>(ops.data[0]);
        const auto* b = static_cast<const Value*>(ops.data[1]);
        const auto* c = static_cast<const Value*>(ops.data[2]);
        const auto* d = static_cast<const Value*>(ops.data[3]);
        auto* x = static_cast<Value*>(const_cast<void*>(ops.data[op_out]));
        if (increment) {
          solver.solve_increment(a, b, c, d, x, info);
        } else if (x == d && signature_.strides[3] == signature_.strides[op_out]) {
          solver.solve_in_place(a, b, c, x, info);
        } else {
          solver.solve(a, b, c, d, x, info);
        }
      },
      solver_for(stream));
}

std::string VarPlan::backend() const { return std::string(to_string(backend_)); }

std::size_t VarPlan::workspace_bytes() const {
  return solvers_.workspace_bytes();
}

}  // namespace triax::python
