// The C API of block tridiagonal solves: a thin shell over triax::BlockSolver and
// triax::BlockLayouts, with c_api.cpp's status codes and messages.
#include <cstring>
#include <string>
#include <variant>
#include <vector>

#include "core/c_api_support.hpp"
#include "triax/block.hpp"
#include "triax/triax.h"

struct triax_block_plan {
  std::variant<triax::BlockSolver<float>, triax::BlockSolver<double>> solver;
};

namespace {

using triax::capi::guarded;
using triax::capi::to_backend;
using triax::capi::to_layout;
using triax::capi::to_options;

void to_c(const triax::Layout& from, triax_layout& to) {
  std::memset(&to, 0, sizeof(to));
  to.rank = from.rank();
  for (int k = 0; k < from.rank(); ++k) {
    to.extents[k] = from.extent(k);
    to.strides[k] = from.stride(k);
  }
  to.offset = from.offset();
}

// Checks the arguments every named layout takes and returns the grid extents.
std::vector<std::int64_t> grid_of(const char* who, triax_block_layouts* layouts, int grid_rank,
                                  const int64_t* extents) {
  if (layouts == nullptr) throw triax::invalid_argument(std::string(who) + ": layouts is null");
  if (extents == nullptr) throw triax::invalid_argument(std::string(who) + ": extents is null");
  if (grid_rank < 1 || grid_rank > triax::max_block_grid_rank) {
    throw triax::invalid_argument(std::string(who) + ": grid_rank = " + std::to_string(grid_rank) +
                                  "; the grid's rank must be 1.." +
                                  std::to_string(triax::max_block_grid_rank));
  }
  return std::vector<std::int64_t>(extents, extents + grid_rank);
}

void store(const triax::BlockLayouts& from, triax_block_layouts* to) {
  to_c(from.a, to->a);
  to_c(from.b, to->b);
  to_c(from.c, to->c);
  to_c(from.d, to->d);
  to_c(from.x, to->x);
}

triax::BlockLayouts to_block_layouts(const triax_block_layouts* l) {
  constexpr const char* who = "triax_block_plan_create";
  if (l == nullptr) throw triax::invalid_argument(std::string(who) + ": layouts is null");
  return triax::BlockLayouts(to_layout(&l->a, who), to_layout(&l->b, who), to_layout(&l->c, who),
                             to_layout(&l->d, who), to_layout(&l->x, who));
}

template <class T>
triax_status create(triax_block_plan** plan, triax_backend backend, int m,
                    const triax_block_layouts* layouts, int axis, const triax_options* options,
                    int block_algorithm) {
  return guarded([&] {
    constexpr const char* who = "triax_block_plan_create";
    if (plan == nullptr) throw triax::invalid_argument(std::string(who) + ": plan is null");
    *plan = nullptr;
    const auto algorithm = static_cast<triax::BlockAlgorithm>(block_algorithm);
    if (block_algorithm < 0 || triax::to_string(algorithm) == "unknown") {
      throw triax::invalid_argument(std::string(who) +
                                    ": block_algorithm = " + std::to_string(block_algorithm) +
                                    " is not a triax::BlockAlgorithm");
    }
    *plan = new triax_block_plan{triax::BlockSolver<T>(to_backend(backend, who), m,
                                                       to_block_layouts(layouts), axis,
                                                       to_options(options), algorithm)};
  });
}

template <class T>
triax::BlockSolver<T>& solver_of(triax_block_plan* plan) {
  return triax::capi::solver_in<triax::BlockSolver<T>>(plan, "triax_block_solve");
}

}  // namespace

extern "C" {

triax_status triax_block_layouts_array_of_blocks(triax_block_layouts* layouts, int m, int grid_rank,
                                                 const int64_t* extents) {
  return guarded([&] {
    const auto grid = grid_of("triax_block_layouts_array_of_blocks", layouts, grid_rank, extents);
    store(triax::BlockLayouts::array_of_blocks(m, grid), layouts);
  });
}

triax_status triax_block_layouts_structure_of_arrays(triax_block_layouts* layouts, int m,
                                                     int grid_rank, const int64_t* extents) {
  return guarded([&] {
    const auto grid =
        grid_of("triax_block_layouts_structure_of_arrays", layouts, grid_rank, extents);
    store(triax::BlockLayouts::structure_of_arrays(m, grid), layouts);
  });
}

triax_status triax_block_layouts_interleaved(triax_block_layouts* layouts, int m, int grid_rank,
                                             const int64_t* extents, int axis) {
  return guarded([&] {
    const auto grid = grid_of("triax_block_layouts_interleaved", layouts, grid_rank, extents);
    store(triax::BlockLayouts::interleaved(m, grid, axis), layouts);
  });
}

triax_status triax_block_plan_create_d(triax_block_plan** plan, triax_backend backend, int m,
                                       const triax_block_layouts* layouts, int axis,
                                       const triax_options* options, int block_algorithm) {
  return create<double>(plan, backend, m, layouts, axis, options, block_algorithm);
}
triax_status triax_block_plan_create_f(triax_block_plan** plan, triax_backend backend, int m,
                                       const triax_block_layouts* layouts, int axis,
                                       const triax_options* options, int block_algorithm) {
  return create<float>(plan, backend, m, layouts, axis, options, block_algorithm);
}

void triax_block_plan_destroy(triax_block_plan* plan) { delete plan; }

int64_t triax_block_plan_system_count(const triax_block_plan* plan) {
  if (plan == nullptr) return 0;
  return std::visit([](const auto& s) { return s.system_count(); }, plan->solver);
}

triax_status triax_block_solve_in_place_d(triax_block_plan* plan, const double* a, const double* b,
                                          const double* c, double* d, int* info) {
  return guarded([&] { solver_of<double>(plan).solve_in_place(a, b, c, d, info); });
}
triax_status triax_block_solve_in_place_f(triax_block_plan* plan, const float* a, const float* b,
                                          const float* c, float* d, int* info) {
  return guarded([&] { solver_of<float>(plan).solve_in_place(a, b, c, d, info); });
}
triax_status triax_block_solve_d(triax_block_plan* plan, const double* a, const double* b,
                                 const double* c, const double* d, double* x, int* info) {
  return guarded([&] { solver_of<double>(plan).solve(a, b, c, d, x, info); });
}
triax_status triax_block_solve_f(triax_block_plan* plan, const float* a, const float* b,
                                 const float* c, const float* d, float* x, int* info) {
  return guarded([&] { solver_of<float>(plan).solve(a, b, c, d, x, info); });
}
triax_status triax_block_solve_increment_d(triax_block_plan* plan, const double* a, const double* b,
                                           const double* c, const double* d, double* u, int* info) {
  return guarded([&] { solver_of<double>(plan).solve_increment(a, b, c, d, u, info); });
}
triax_status triax_block_solve_increment_f(triax_block_plan* plan, const float* a, const float* b,
                                           const float* c, const float* d, float* u, int* info) {
  return guarded([&] { solver_of<float>(plan).solve_increment(a, b, c, d, u, info); });
}

}  // extern "C"
