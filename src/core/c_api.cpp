// The C API: a thin shell over triax::Solver that turns exceptions into status codes.
#include <cstring>
#include <new>
#include <string>
#include <variant>

#include "core/c_api_support.hpp"
#include "triax/triax.h"
#include "triax/triax.hpp"

struct triax_plan {
  std::variant<triax::Solver<float>, triax::Solver<double>> solver;
};

namespace triax::capi {
std::string& last_error() {
  thread_local std::string message;
  return message;
}
}  // namespace triax::capi

namespace {

using triax::capi::guarded;
using triax::capi::last_error;
using triax::capi::to_backend;
using triax::capi::to_layout;
using triax::capi::to_options;

template <class T>
triax_status create(triax_plan** plan, triax_backend backend, const triax_layout* layout, int axis,
                    const triax_options* options) {
  return guarded([&] {
    if (plan == nullptr) throw triax::invalid_argument("triax_plan_create: plan is null");
    *plan = nullptr;
    *plan = new triax_plan{triax::Solver<T>(to_backend(backend, "triax_plan_create"),
                                            to_layout(layout), axis, to_options(options))};
  });
}

template <class T>
triax::Solver<T>& solver_of(triax_plan* plan) {
  return triax::capi::solver_in<triax::Solver<T>>(plan, "triax_solve");
}

}  // namespace

extern "C" {

triax_status triax_layout_packed(triax_layout* layout, int rank, const int64_t* extents) {
  return guarded([&] {
    if (layout == nullptr) throw triax::invalid_argument("triax_layout_packed: layout is null");
    if (extents == nullptr) throw triax::invalid_argument("triax_layout_packed: extents is null");
    if (rank < 1 || rank > triax::max_rank) {
      throw triax::invalid_argument("triax_layout_packed: rank = " + std::to_string(rank) +
                                    "; the rank must be 1..8");
    }
    const auto l = triax::Layout::packed(std::span<const int64_t>(extents, rank));
    std::memset(layout, 0, sizeof(*layout));
    layout->rank = rank;
    for (int k = 0; k < rank; ++k) {
      layout->extents[k] = l.extent(k);
      layout->strides[k] = l.stride(k);
    }
    layout->offset = l.offset();
  });
}

triax_status triax_plan_create_d(triax_plan** plan, triax_backend backend,
                                 const triax_layout* layout, int axis,
                                 const triax_options* options) {
  return create<double>(plan, backend, layout, axis, options);
}
triax_status triax_plan_create_f(triax_plan** plan, triax_backend backend,
                                 const triax_layout* layout, int axis,
                                 const triax_options* options) {
  return create<float>(plan, backend, layout, axis, options);
}

void triax_plan_destroy(triax_plan* plan) { delete plan; }

int64_t triax_plan_system_count(const triax_plan* plan) {
  if (plan == nullptr) return 0;
  return std::visit([](const auto& s) { return s.system_count(); }, plan->solver);
}

triax_status triax_solve_in_place_d(triax_plan* plan, const double* a, const double* b,
                                    const double* c, double* d, int* info) {
  return guarded([&] { solver_of<double>(plan).solve_in_place(a, b, c, d, info); });
}
triax_status triax_solve_in_place_f(triax_plan* plan, const float* a, const float* b,
                                    const float* c, float* d, int* info) {
  return guarded([&] { solver_of<float>(plan).solve_in_place(a, b, c, d, info); });
}
triax_status triax_solve_d(triax_plan* plan, const double* a, const double* b, const double* c,
                           const double* d, double* x, int* info) {
  return guarded([&] { solver_of<double>(plan).solve(a, b, c, d, x, info); });
}
triax_status triax_solve_f(triax_plan* plan, const float* a, const float* b, const float* c,
                           const float* d, float* x, int* info) {
  return guarded([&] { solver_of<float>(plan).solve(a, b, c, d, x, info); });
}
triax_status triax_solve_increment_d(triax_plan* plan, const double* a, const double* b,
                                     const double* c, const double* d, double* u, int* info) {
  return guarded([&] { solver_of<double>(plan).solve_increment(a, b, c, d, u, info); });
}
triax_status triax_solve_increment_f(triax_plan* plan, const float* a, const float* b,
                                     const float* c, const float* d, float* u, int* info) {
  return guarded([&] { solver_of<float>(plan).solve_increment(a, b, c, d, u, info); });
}

const char* triax_last_error(void) { return last_error().c_str(); }

}  // extern "C"
