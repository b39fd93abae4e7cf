#include "factored_plan.hpp"

#include <type_traits>

#include "device_guard.hpp"
#include "plan.hpp"

namespace triax::python {
namespace {

template <class T>
struct FactoredValue;
template <class T>
struct FactoredValue<triax::FactoredSolver<T>> {
  using type = T;
};

// Appends the n values of a host array of T (a, b or c) to `matrix`.
template <class T>
void append_diagonal(nb::handle h, const char* name, std::int64_t n, std::vector<T>& matrix) {
  nb::ndarray<const T, nb::ndim<1>, nb::device::cpu, nb::c_contig> x;
  if (h.is_none() || !nb::try_cast(h, x)) {
    throw nb::type_error(
        (std::string("triax: ") + name + " must be a 1-D contiguous host array of d's dtype")
            .c_str());
  }
  if (static_cast<std::int64_t>(x.shape(0)) != n) {
    throw nb::value_error((std::string("triax: ") + name + " has " + std::to_string(x.shape(0)) +
                           " values but the systems along the axis have " + std::to_string(n) +
                           " rows")
                              .c_str());
  }
  matrix.insert(matrix.end(), x.data(), x.data() + n);
}

}  // namespace

FactoredPlan::FactoredPlan(nb::handle a, nb::handle b, nb::handle c, const Signature& signature,
                           std::uintptr_t stream)
    : signature_(signature),
      backend_(signature.device_type == device_cuda ? Backend::cuda : Backend::cpu) {
  const std::int64_t n = system_length();
  auto copy = [&](auto& matrix) {
    append_diagonal(a, "a", n, matrix);
    append_diagonal(b, "b", n, matrix);
    append_diagonal(c, "c", n, matrix);
  };
  if (signature_.bits == 32) {
    copy(matrix_f_);
  } else {
    copy(matrix_d_);
  }
  DeviceGuard guard(signature_);
  solver_for(stream);
}

FactoredPlan::Solver FactoredPlan::make_solver(std::uintptr_t stream) const {
  const Options options = options_for(signature_, stream);
  const OperandLayouts l = layouts_of(signature_);
  const FactoredLayouts layouts(l.d, l.x);
  const int axis = library_axis(signature_);
  const std::int64_t n = system_length();
  if (signature_.bits == 32) {
    const float* m = matrix_f_.data();
    return Solver(std::in_place_type<triax::FactoredSolver<float>>, backend_, m, m + n, m + 2 * n,
                  n, layouts, axis, options);
  }
  const double* m = matrix_d_.data();
  return Solver(std::in_place_type<triax::FactoredSolver<double>>, backend_, m, m + n, m + 2 * n, n,
                layouts, axis, options);
}

FactoredPlan::Solver& FactoredPlan::solver_for(std::uintptr_t stream) {
  return solvers_.for_stream(backend_, stream,
                              [this](std::uintptr_t s) { return make_solver(s); });
}

void FactoredPlan::run(const Operands& ops, bool increment, int* info, std::uintptr_t stream) {
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(mutex_);
  DeviceGuard guard(signature_);
  std::visit(
      [&](auto& solver) {
        using Value = typename FactoredValue<std::decay_t<decltype(solver)>>::type;
        const auto* d = static_cast<const Value*>(ops.data[3]);
        auto* x = static_cast<Value*>(const_cast<void*>(ops.data[op_out]));
        if (increment) {
          solver.solve_increment(d, x, info);
        } else if (x == d && signature_.strides[3] == signature_.strides[op_out]) {
          solver.solve_in_place(x, info);
        } else {
          solver.solve(d, x, info);
        }
      },
      solver_for(stream));
}

template <class F>
auto FactoredPlan::visit_first(F&& f) const {
  return std::visit(f, solvers_.front());
}

std::string FactoredPlan::backend() const { return std::string(to_string(backend_)); }

std::int64_t FactoredPlan::system_count() const {
  return visit_first([](const auto& s) { return s.system_count(); });
}
std::int64_t FactoredPlan::stored_rows() const {
  return visit_first([](const auto& s) { return s.stored_rows(); });
}
bool FactoredPlan::compressed() const {
  return visit_first([](const auto& s) { return s.compressed(); });
}
std::int64_t FactoredPlan::factor_info() const {
  return visit_first([](const auto& s) { return s.factor_info(); });
}
std::size_t FactoredPlan::workspace_bytes() const {
  return solvers_.workspace_bytes();
}

}  // namespace triax::python
