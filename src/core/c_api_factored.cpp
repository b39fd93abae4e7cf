// The C API of factored plans (one matrix, many right-hand sides): a thin shell over
// triax::FactoredSolver with c_api.cpp's status codes and messages. The C stencil structs are
// copied member by member into triax::Stencil (same weights, same meaning: stencil.hpp).
#include <string>
#include <type_traits>
#include <variant>

#include "core/c_api_support.hpp"
#include "triax/factored.hpp"
#include "triax/stencil.hpp"
#include "triax/triax.h"

struct triax_factored_plan {
  std::variant<triax::FactoredSolver<float>, triax::FactoredSolver<double>> solver;
};

namespace {

using triax::capi::guarded;
using triax::capi::to_backend;
using triax::capi::to_layout;
using triax::capi::to_options;

constexpr const char* create_who = "triax_factored_plan_create";

// triax.h documents these values and this layout: keep the two sides in step.
static_assert(static_cast<int>(triax::FactoredAlgorithm::cpu_thomas) == 1 &&
              static_cast<int>(triax::FactoredAlgorithm::cpu_cr) == 2 &&
              static_cast<int>(triax::FactoredAlgorithm::cuda_thread_thomas) == 3 &&
              static_cast<int>(triax::FactoredAlgorithm::cuda_block_cr_shared) == 4 &&
              static_cast<int>(triax::FactoredAlgorithm::cuda_block_cr_global) == 5 &&
              static_cast<int>(triax::FactoredAlgorithm::cuda_hybrid) == 6);
static_assert(sizeof(triax_stencil_d) == sizeof(triax::Stencil<double>) &&
              sizeof(triax_stencil_f) == sizeof(triax::Stencil<float>));

// The C stencil struct of T (triax_stencil_f or triax_stencil_d).
template <class T>
using CStencil = std::conditional_t<std::is_same_v<T, float>, triax_stencil_f, triax_stencil_d>;

template <class T>
triax::Stencil<T> to_stencil(const CStencil<T>* s) {
  if (s == nullptr) {
    throw triax::invalid_argument("triax_factored_solve_stencil: stencil is null");
  }
  triax::Stencil<T> out;
  for (int k = 0; k < 5; ++k) {
    out.interior[k] = s->interior[k];
    for (int r = 0; r < 2; ++r) {
      out.first[r][k] = s->first[r][k];
      out.last[r][k] = s->last[r][k];
    }
  }
  return out;
}

triax::FactoredAlgorithm to_algorithm(int value) {
  const auto algorithm = static_cast<triax::FactoredAlgorithm>(value);
  if (value < 0 || triax::to_string(algorithm) == "unknown") {
    throw triax::invalid_argument(std::string(create_who) + ": factored_algorithm = " +
                                  std::to_string(value) + " is not a triax::FactoredAlgorithm");
  }
  return algorithm;
}

// d's and x's layouts (x NULL: as d).
triax::FactoredLayouts to_layouts(const triax_layout* d_layout, const triax_layout* x_layout) {
  const triax::Layout d = to_layout(d_layout, create_who, "d_layout");
  if (x_layout == nullptr) return triax::FactoredLayouts(d);
  return triax::FactoredLayouts(d, to_layout(x_layout, create_who, "x_layout"));
}

// Both constructors: `matrix` is n (one matrix) or the coefficients' layout (groups).
template <class T, class Matrix>
triax_status create(triax_factored_plan** plan, triax_backend backend, const T* a, const T* b,
                    const T* c, Matrix matrix, const triax_layout* d_layout,
                    const triax_layout* x_layout, int axis, const triax_options* options,
                    int factored_algorithm) {
  return guarded([&] {
    if (plan == nullptr) throw triax::invalid_argument(std::string(create_who) + ": plan is null");
    *plan = nullptr;
    const auto be = to_backend(backend, create_who);
    const auto layouts = to_layouts(d_layout, x_layout);
    const auto opt = to_options(options, create_who);
    const auto algorithm = to_algorithm(factored_algorithm);
    if constexpr (std::is_pointer_v<Matrix>) {
      const triax::Layout coefficients = to_layout(matrix, create_who, "coefficients");
      *plan = new triax_factored_plan{
          triax::FactoredSolver<T>(be, a, b, c, coefficients, layouts, axis, opt, algorithm)};
    } else {
      *plan = new triax_factored_plan{
          triax::FactoredSolver<T>(be, a, b, c, matrix, layouts, axis, opt, algorithm)};
    }
  });
}

template <class T>
triax::FactoredSolver<T>& solver_of(triax_factored_plan* plan) {
  return triax::capi::solver_in<triax::FactoredSolver<T>>(plan, "triax_factored_solve");
}

}  // namespace

extern "C" {

triax_status triax_factored_plan_create_d(triax_factored_plan** plan, triax_backend backend,
                                          const double* a, const double* b, const double* c,
                                          int64_t n, const triax_layout* d_layout,
                                          const triax_layout* x_layout, int axis,
                                          const triax_options* options, int factored_algorithm) {
  return create(plan, backend, a, b, c, std::int64_t{n}, d_layout, x_layout, axis, options,
                factored_algorithm);
}
triax_status triax_factored_plan_create_f(triax_factored_plan** plan, triax_backend backend,
                                          const float* a, const float* b, const float* c,
                                          int64_t n, const triax_layout* d_layout,
                                          const triax_layout* x_layout, int axis,
                                          const triax_options* options, int factored_algorithm) {
  return create(plan, backend, a, b, c, std::int64_t{n}, d_layout, x_layout, axis, options,
                factored_algorithm);
}
triax_status triax_factored_plan_create_groups_d(triax_factored_plan** plan, triax_backend backend,
                                                 const double* a, const double* b, const double* c,
                                                 const triax_layout* coefficients,
                                                 const triax_layout* d_layout,
                                                 const triax_layout* x_layout, int axis,
                                                 const triax_options* options,
                                                 int factored_algorithm) {
  return create(plan, backend, a, b, c, coefficients, d_layout, x_layout, axis, options,
                factored_algorithm);
}
triax_status triax_factored_plan_create_groups_f(triax_factored_plan** plan, triax_backend backend,
                                                 const float* a, const float* b, const float* c,
                                                 const triax_layout* coefficients,
                                                 const triax_layout* d_layout,
                                                 const triax_layout* x_layout, int axis,
                                                 const triax_options* options,
                                                 int factored_algorithm) {
  return create(plan, backend, a, b, c, coefficients, d_layout, x_layout, axis, options,
                factored_algorithm);
}

void triax_factored_plan_destroy(triax_factored_plan* plan) { delete plan; }

triax_status triax_factored_plan_query(const triax_factored_plan* plan,
                                       triax_factored_plan_properties* properties) {
  return guarded([&] {
    constexpr const char* who = "triax_factored_plan_query";
    if (plan == nullptr) throw triax::invalid_argument(std::string(who) + ": plan is null");
    if (properties == nullptr) {
      throw triax::invalid_argument(std::string(who) + ": properties is null");
    }
    std::visit(
        [&](const auto& s) {
          triax_factored_plan_properties p{};
          p.system_length = s.system_length();
          p.system_count = s.system_count();
          p.group_count = s.group_count();
          p.stored_rows = s.stored_rows();
          p.head_rows = s.head_rows();
          p.tail_rows = s.tail_rows();
          p.factor_info = s.factor_info();
          p.workspace_bytes = static_cast<int64_t>(s.workspace_bytes());
          p.algorithm = static_cast<int>(s.algorithm());
          p.backend = static_cast<int>(s.backend());
          p.compressed = s.compressed() ? 1 : 0;
          p.scaled = s.scaled() ? 1 : 0;
          p.fuses_stencil = s.fuses_stencil() ? 1 : 0;
          *properties = p;
        },
        plan->solver);
  });
}

int64_t triax_factored_plan_system_count(const triax_factored_plan* plan) {
  if (plan == nullptr) return 0;
  return std::visit([](const auto& s) { return s.system_count(); }, plan->solver);
}

int triax_factored_plan_fuses_stencil(const triax_factored_plan* plan) {
  if (plan == nullptr) return 0;
  return std::visit([](const auto& s) { return s.fuses_stencil() ? 1 : 0; }, plan->solver);
}

triax_status triax_factored_solve_in_place_d(triax_factored_plan* plan, double* d, int* info) {
  return guarded([&] { solver_of<double>(plan).solve_in_place(d, info); });
}
triax_status triax_factored_solve_in_place_f(triax_factored_plan* plan, float* d, int* info) {
  return guarded([&] { solver_of<float>(plan).solve_in_place(d, info); });
}
triax_status triax_factored_solve_d(triax_factored_plan* plan, const double* d, double* x,
                                    int* info) {
  return guarded([&] { solver_of<double>(plan).solve(d, x, info); });
}
triax_status triax_factored_solve_f(triax_factored_plan* plan, const float* d, float* x,
                                    int* info) {
  return guarded([&] { solver_of<float>(plan).solve(d, x, info); });
}
triax_status triax_factored_solve_increment_d(triax_factored_plan* plan, const double* d,
                                              double* u, int* info) {
  return guarded([&] { solver_of<double>(plan).solve_increment(d, u, info); });
}
triax_status triax_factored_solve_increment_f(triax_factored_plan* plan, const float* d, float* u,
                                              int* info) {
  return guarded([&] { solver_of<float>(plan).solve_increment(d, u, info); });
}
triax_status triax_factored_solve_stencil_d(triax_factored_plan* plan,
                                            const triax_stencil_d* stencil, const double* f,
                                            double* x, int* info) {
  return guarded([&] {
    auto& s = solver_of<double>(plan);
    s.solve_stencil(to_stencil<double>(stencil), f, x, info);
  });
}
triax_status triax_factored_solve_stencil_f(triax_factored_plan* plan,
                                            const triax_stencil_f* stencil, const float* f,
                                            float* x, int* info) {
  return guarded([&] {
    auto& s = solver_of<float>(plan);
    s.solve_stencil(to_stencil<float>(stencil), f, x, info);
  });
}

}  // extern "C"
