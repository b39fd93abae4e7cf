#pragma once
// triax::FactoredSolver as Python uses it: one matrix (host copies of a, b, c, kept to make a
// library plan for each CUDA stream the plan runs on), the Signature of d and out, and one
// library plan per stream.

#include <array>
#include <cstdint>
#include <mutex>
#include <string>
#include <variant>
#include <vector>

#include "operands.hpp"
#include "per_stream.hpp"
#include "triax/factored.hpp"

namespace triax::python {

class FactoredPlan {
 public:
  /// a, b, c: host arrays of n values of d's dtype (n = d's extent along the axis), or, with a
  /// non-empty `coefficient_shape` (NumPy order, d's rank, each extent d's or 1; the axis n),
  /// C-contiguous host arrays of that shape flattened: one matrix per group of systems.
  /// `algorithm`: a name of to_string(FactoredAlgorithm), e.g. "automatic" or "cpu_cr".
  FactoredPlan(nb::handle a, nb::handle b, nb::handle c, const Signature& signature,
               std::uintptr_t stream, std::vector<std::int64_t> coefficient_shape = {},
               const std::string& algorithm = "automatic");

  /// Solves with d and out described by this plan's signature: out = x, or out += x.
  void run(const Operands& operands, bool increment, int* info, std::uintptr_t stream);

  /// x = A^{-1} (B f): f is the operands' d, x their out; `weights` are the stencil's 25 values
  /// in triax::Stencil's order (interior[5], first[2][5], last[2][5]), rounded to the plan's type.
  void run_stencil(const Operands& operands, const std::array<double, 25>& weights, int* info,
                   std::uintptr_t stream);

  const Signature& signature() const { return signature_; }
  std::string backend() const;
  std::int64_t system_length() const { return signature_.shape[signature_.axis]; }
  std::int64_t system_count() const;
  std::int64_t stored_rows() const;
  bool compressed() const;
  std::int64_t factor_info() const;
  std::size_t workspace_bytes() const;
  std::string algorithm() const;
  std::int64_t group_count() const;
  bool fuses_stencil() const;

 private:
  using Solver = std::variant<triax::FactoredSolver<float>, triax::FactoredSolver<double>>;
  Solver make_solver(std::uintptr_t stream) const;
  std::int64_t values() const;  // of each of a, b, c
  Solver& solver_for(std::uintptr_t stream);
  template <class F>
  auto visit_first(F&& f) const;
  // Calls f(solver, (T*)nullptr) on the stream's plan, the GIL released and the plan locked.
  template <class F>
  void visit_locked(std::uintptr_t stream, F&& f);

  Signature signature_;
  Backend backend_;
  std::vector<std::int64_t> coefficient_shape_;  // empty: one matrix of n rows
  FactoredAlgorithm algorithm_ = FactoredAlgorithm::automatic;
  std::vector<float> matrix_f_;   // a, b, c back to back, each `values()` long (float32 plans)
  std::vector<double> matrix_d_;  // a, b, c back to back (float64 plans)
  std::mutex mutex_;
  PerStreamSolvers<Solver> solvers_;
};

}  // namespace triax::python
