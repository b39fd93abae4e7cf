#pragma once
// The interface between triax::FactoredSolver's core (validation, normalisation, factoring) and
// its backends: each backend's folder implements one factory below (src/reference/factored,
// src/cpu/factored, src/cuda/factored; core/device_hooks throws not_compiled without CUDA).

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/factored/cr_table.hpp"
#include "core/factored/factor_table.hpp"
#include "core/problem.hpp"
#include "triax/options.hpp"
#include "triax/stencil.hpp"

namespace triax::detail {

/// The pointers of one factored solve: d read, x written (or x += solution), info in checked mode.
template <class T>
struct FactoredOperands {
  const T* d;
  T* x;
  bool accumulate;
  int* info;  // one per system in checked mode, else nullptr
};

/// The matrix as the caller gave it (host copies), for the reference backend, which solves from
/// it directly rather than from the factors.
template <class T>
struct FactoredMatrix {
  std::vector<T> a, b, c;
};

template <class T>
class FactoredBackendPlan {
 public:
  virtual ~FactoredBackendPlan() = default;
  /// Runs a validated solve; must not allocate. `problem` maps d to op_d and x to op_x (in place:
  /// map[op_x] == map[op_d]); the maps of a, b, c are unused.
  virtual void solve(const Problem& problem, const FactoredOperands<T>& ops) = 0;
  virtual void clear_info(int* info, std::int64_t count) { std::fill_n(info, count, 0); }
  virtual std::size_t workspace_bytes() const = 0;
  /// Whether solve_stencil() runs: x = A^{-1} (B f) in one pass, B f formed inside the solve.
  /// Plans that do not (the default) get B f from the core's workspace and solve() it.
  virtual bool fuses_stencil() const { return false; }
  /// x = A^{-1} (B f), f laid out by problem.map[op_d] (and not overlapping x), unchecked; only
  /// where fuses_stencil(). Must not allocate.
  virtual void solve_stencil(const Problem&, const Stencil<T>&, const T*, T*) {
    throw std::logic_error("triax: solve_stencil on a factored plan that does not fuse it");
  }
};

/// plan_breakdown: the breakdown row + 1 the plan's table found (0: none), which the reference
/// honours too where its own long double factoring would go on (factor_info's contract: a
/// breakdown makes every solve NaN on every backend).
template <class T>
std::unique_ptr<FactoredBackendPlan<T>> make_reference_factored_plan(const Problem& problem,
                                                                     const Options& options,
                                                                     const FactoredMatrix<T>& m,
                                                                     int plan_breakdown);
template <class T>
std::unique_ptr<FactoredBackendPlan<T>> make_cpu_factored_plan(const Problem& problem,
                                                               const Options& options,
                                                               const FactorTable<T>& table);
template <class T>
std::unique_ptr<FactoredBackendPlan<T>> make_cuda_factored_plan(const Problem& problem,
                                                                const Options& options,
                                                                const FactorTable<T>& table);

/// FactoredAlgorithm::cuda_hybrid: triax::Solver's cuda plan given the matrix m broadcast to
/// every system (the Thomas factors' kernels where the hybrid cannot keep factored.hpp's
/// contract: checked mode, a breakdown, a scaled table).
template <class T>
std::unique_ptr<FactoredBackendPlan<T>> make_cuda_factored_hybrid_plan(const Problem& problem,
                                                                       const Options& options,
                                                                       const FactorTable<T>& table,
                                                                       const FactoredMatrix<T>& m);

// Paper 004's cyclic reduction with precomputed coefficients (FactoredAlgorithm::cpu_cr,
// cuda_block_cr_shared, cuda_block_cr_global).
template <class T>
std::unique_ptr<FactoredBackendPlan<T>> make_cpu_factored_cr_plan(const Problem& problem,
                                                                  const Options& options,
                                                                  const CrTable<T>& table);
/// global: the system lives in global memory (x's rows, or a workspace for u += x) rather than in
/// shared memory, for systems longer than shared memory holds.
template <class T>
std::unique_ptr<FactoredBackendPlan<T>> make_cuda_factored_cr_plan(const Problem& problem,
                                                                   const Options& options,
                                                                   const CrTable<T>& table,
                                                                   bool global);

}  // namespace triax::detail
