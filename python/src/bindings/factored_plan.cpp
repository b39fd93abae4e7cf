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

// The factored algorithm named `name` (its to_string), else ValueError listing the names.
FactoredAlgorithm parse_algorithm(const std::string& name) {
  std::string names;
  for (auto a : {FactoredAlgorithm::automatic, FactoredAlgorithm::cpu_thomas, FactoredAlgorithm::cpu_cr,
                 FactoredAlgorithm::cuda_thread_thomas, FactoredAlgorithm::cuda_block_cr_shared,
                 FactoredAlgorithm::cuda_block_cr_global, FactoredAlgorithm::cuda_hybrid}) {
    if (to_string(a) == name) return a;
    names += (names.empty() ? "" : ", ") + std::string(to_string(a));
  }
  throw nb::value_error(
      ("triax: algorithm = '" + name + "' is not a factored algorithm (" + names + ")").c_str());
}

// Appends the n values of a host array of T (a, b or c) to `matrix`.
template <class T>
void append_diagonal(nb::handle h, const char* name, std::int64_t n, bool grouped,
                     std::vector<T>& matrix) {
  nb::ndarray<const T, nb::ndim<1>, nb::device::cpu, nb::c_contig> x;
  if (h.is_none() || !nb::try_cast(h, x)) {
    throw nb::type_error(
        (std::string("triax: ") + name + " must be a 1-D contiguous host array of d's dtype")
            .c_str());
  }
  if (static_cast<std::int64_t>(x.shape(0)) != n) {
    throw nb::value_error((std::string("triax: ") + name + " has " + std::to_string(x.shape(0)) +
                           (grouped ? " values but its shape needs " + std::to_string(n)
                                    : " values but the systems along the axis have " +
                                          std::to_string(n) + " rows"))
                              .c_str());
  }
  matrix.insert(matrix.end(), x.data(), x.data() + n);
}

}  // namespace

FactoredPlan::FactoredPlan(nb::handle a, nb::handle b, nb::handle c, const Signature& signature,
                           std::uintptr_t stream, std::vector<std::int64_t> coefficient_shape,
                           const std::string& algorithm)
    : signature_(signature),
      backend_(signature.device_type == device_cuda ? Backend::cuda : Backend::cpu),
      coefficient_shape_(std::move(coefficient_shape)),
      algorithm_(parse_algorithm(algorithm)) {
  if (!coefficient_shape_.empty() &&
      static_cast<std::int64_t>(coefficient_shape_.size()) != signature_.ndim) {
    throw nb::value_error(("triax: a, b, c of " + std::to_string(coefficient_shape_.size()) +
                           " dimensions, but d has " + std::to_string(signature_.ndim) +
                           " (give one system's 1-D diagonals, or arrays of d's rank)")
                              .c_str());
  }
  const std::int64_t n = values();
  const bool grouped = !coefficient_shape_.empty();
  auto copy = [&](auto& matrix) {
    append_diagonal(a, "a", n, grouped, matrix);
    append_diagonal(b, "b", n, grouped, matrix);
    append_diagonal(c, "c", n, grouped, matrix);
  };
  if (signature_.bits == 32) {
    copy(matrix_f_);
  } else {
    copy(matrix_d_);
  }
  DeviceGuard guard(signature_);
  solver_for(stream);
}

std::int64_t FactoredPlan::values() const {
  if (coefficient_shape_.empty()) return system_length();
  std::int64_t v = 1;
  for (std::int64_t e : coefficient_shape_) v *= e;
  return v;
}

FactoredPlan::Solver FactoredPlan::make_solver(std::uintptr_t stream) const {
  const Options options = options_for(signature_, stream);
  const OperandLayouts l = layouts_of(signature_);
  const FactoredLayouts layouts(l.d, l.x);
  const int axis = library_axis(signature_);
  const std::int64_t n = system_length(), v = values();
  auto make = [&](auto* m) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(m)>>;
    if (coefficient_shape_.empty()) {
      return Solver(std::in_place_type<triax::FactoredSolver<T>>, backend_, m, m + v, m + 2 * v, n,
                    layouts, axis, options, algorithm_);
    }
    // C order, reversed into the library's order (dimension 0 fastest), as layouts_of does.
    const int rank = static_cast<int>(coefficient_shape_.size());
    std::vector<std::int64_t> extents(rank), strides(rank);
    std::int64_t stride = 1;
    for (int k = 0; k < rank; ++k) {
      extents[k] = coefficient_shape_[rank - 1 - k];
      strides[k] = extents[k] == 1 ? 0 : stride;
      stride *= extents[k];
    }
    return Solver(std::in_place_type<triax::FactoredSolver<T>>, backend_, m, m + v, m + 2 * v,
                  Layout::strided(extents, strides), layouts, axis, options, algorithm_);
  };
  if (signature_.bits == 32) return make(matrix_f_.data());
  return make(matrix_d_.data());
}

FactoredPlan::Solver& FactoredPlan::solver_for(std::uintptr_t stream) {
  return solvers_.for_stream(backend_, stream,
                              [this](std::uintptr_t s) { return make_solver(s); });
}

template <class F>
void FactoredPlan::visit_locked(std::uintptr_t stream, F&& f) {
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(mutex_);
  DeviceGuard guard(signature_);
  std::visit(
      [&](auto& solver) {
        using Value = typename FactoredValue<std::decay_t<decltype(solver)>>::type;
        f(solver, static_cast<Value*>(nullptr));
      },
      solver_for(stream));
}

void FactoredPlan::run(const Operands& ops, bool increment, int* info, std::uintptr_t stream) {
  visit_locked(stream, [&](auto& solver, auto* type) {
    using Value = std::remove_pointer_t<decltype(type)>;
    const auto* d = static_cast<const Value*>(ops.data[3]);
    auto* x = static_cast<Value*>(const_cast<void*>(ops.data[op_out]));
    if (increment) {
      solver.solve_increment(d, x, info);
    } else if (x == d && signature_.strides[3] == signature_.strides[op_out]) {
      solver.solve_in_place(x, info);
    } else {
      solver.solve(d, x, info);
    }
  });
}

void FactoredPlan::run_stencil(const Operands& ops, const std::array<double, 25>& weights,
                               int* info, std::uintptr_t stream) {
  visit_locked(stream, [&](auto& solver, auto* type) {
    using Value = std::remove_pointer_t<decltype(type)>;
    Stencil<Value> B;
    for (int k = 0; k < 5; ++k) {
      B.interior[k] = static_cast<Value>(weights[k]);
      for (int r = 0; r < 2; ++r) {
        B.first[r][k] = static_cast<Value>(weights[5 + 5 * r + k]);
        B.last[r][k] = static_cast<Value>(weights[15 + 5 * r + k]);
      }
    }
    const auto* f = static_cast<const Value*>(ops.data[3]);
    solver.solve_stencil(B, f, static_cast<Value*>(const_cast<void*>(ops.data[op_out])), info);
  });
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
std::string FactoredPlan::algorithm() const {
  return visit_first([](const auto& s) { return std::string(to_string(s.algorithm())); });
}
std::int64_t FactoredPlan::group_count() const {
  return visit_first([](const auto& s) { return s.group_count(); });
}
bool FactoredPlan::fuses_stencil() const {
  return visit_first([](const auto& s) { return s.fuses_stencil(); });
}
std::size_t FactoredPlan::workspace_bytes() const {
  return solvers_.workspace_bytes();
}

}  // namespace triax::python
