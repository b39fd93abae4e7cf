// The C API: a thin shell over triax::Solver that turns exceptions into status codes.
#include <cstring>
#include <new>
#include <string>
#include <variant>

#include "triax/triax.h"
#include "triax/triax.hpp"

struct triax_plan {
  std::variant<triax::Solver<float>, triax::Solver<double>> solver;
};

namespace {

thread_local std::string last_error;

template <class F>
triax_status guarded(F&& f) {
  try {
    f();
    last_error.clear();
    return TRIAX_SUCCESS;
  } catch (const triax::invalid_argument& e) {
    last_error = e.what();
    return TRIAX_INVALID_ARGUMENT;
  } catch (const triax::not_compiled& e) {
    last_error = e.what();
    return TRIAX_NOT_COMPILED;
  } catch (const triax::cuda_error& e) {
    last_error = e.what();
    return TRIAX_CUDA_ERROR;
  } catch (const triax::mpi_error& e) {
    last_error = e.what();
    return TRIAX_MPI_ERROR;
  } catch (const triax::out_of_memory& e) {
    last_error = e.what();
    return TRIAX_OUT_OF_MEMORY;
  } catch (const std::bad_alloc&) {
    last_error = "triax: out of memory";
    return TRIAX_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    last_error = e.what();
    return TRIAX_INTERNAL_ERROR;
  } catch (...) {
    last_error = "triax: unknown exception";
    return TRIAX_INTERNAL_ERROR;
  }
}

triax::Layout to_layout(const triax_layout* l) {
  if (l == nullptr) throw triax::invalid_argument("triax_plan_create: layout is null");
  if (l->rank < 1 || l->rank > triax::max_rank) {
    throw triax::invalid_argument("triax_plan_create: layout->rank = " +
                                  std::to_string(l->rank) + "; the rank must be 1..8");
  }
  return triax::Layout::strided(std::span<const int64_t>(l->extents, l->rank),
                                std::span<const int64_t>(l->strides, l->rank), l->offset);
}

triax::Options to_options(const triax_options* o) {
  triax::Options opt;
  if (o == nullptr) return opt;
  if (o->algorithm < 0 ||
      o->algorithm > static_cast<int>(triax::Algorithm::cuda_cr_rd)) {
    throw triax::invalid_argument("triax_plan_create: options->algorithm = " +
                                  std::to_string(o->algorithm) + " is not an algorithm");
  }
  opt.algorithm = static_cast<triax::Algorithm>(o->algorithm);
  opt.checked = o->checked != 0;
  opt.stream = o->stream;
  opt.num_threads = o->num_threads;
  return opt;
}

template <class T>
triax_status create(triax_plan** plan, triax_backend backend, const triax_layout* layout,
                    int axis, const triax_options* options) {
  return guarded([&] {
    if (plan == nullptr) throw triax::invalid_argument("triax_plan_create: plan is null");
    *plan = nullptr;
    if (backend < TRIAX_BACKEND_REFERENCE || backend > TRIAX_BACKEND_CUDA) {
      throw triax::invalid_argument("triax_plan_create: backend = " +
                                    std::to_string(static_cast<int>(backend)) +
                                    " is not a backend");
    }
    *plan = new triax_plan{triax::Solver<T>(static_cast<triax::Backend>(backend),
                                            to_layout(layout), axis, to_options(options))};
  });
}

template <class T>
triax::Solver<T>& solver_of(triax_plan* plan) {
  if (plan == nullptr) throw triax::invalid_argument("triax_solve: plan is null");
  auto* s = std::get_if<triax::Solver<T>>(&plan->solver);
  if (s == nullptr) {
    throw triax::invalid_argument(
        "triax_solve: the plan was made for the other precision (_f and _d must match)");
  }
  return *s;
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

const char* triax_last_error(void) { return last_error.c_str(); }

}  // extern "C"
