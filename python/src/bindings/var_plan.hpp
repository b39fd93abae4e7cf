#pragma once
// triax::VarSolver as Python uses it: a VarLayout (the systems' lengths, and their offsets in
// back-to-back storage or the layouts of padded storage), the Signature of the arrays it was
// made for, and one library plan per CUDA stream.

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "operands.hpp"
#include "per_stream.hpp"
#include "triax/varbatch.hpp"

namespace triax::python {

class VarPlan {
 public:
  /// lengths (and offsets, back to back only): host int64 arrays. axis < 0 with back_to_back:
  /// systems stored one after another in 1-D arrays; otherwise padded storage, the systems along
  /// the signature's axis.
  VarPlan(nb::handle lengths, nb::handle offsets, bool back_to_back, const Signature& signature,
          std::uintptr_t stream);

  void run(const Operands& operands, bool increment, int* info, std::uintptr_t stream);

  const Signature& signature() const { return signature_; }
  bool back_to_back() const { return back_to_back_; }
  std::string backend() const;
  std::int64_t system_count() const { return layout_.count(); }
  std::int64_t total_rows() const { return layout_.total_rows(); }
  std::int64_t max_length() const { return layout_.max_length(); }
  std::int64_t span() const { return layout_.span(); }
  std::size_t workspace_bytes() const;

 private:
  using Solver = std::variant<triax::VarSolver<float>, triax::VarSolver<double>>;
  Solver make_solver(std::uintptr_t stream) const;
  Solver& solver_for(std::uintptr_t stream);

  Signature signature_;
  bool back_to_back_;
  Backend backend_;
  VarLayout layout_;
  std::mutex mutex_;
  PerStreamSolvers<Solver> solvers_;
};

/// The VarLayout of a call: lengths and offsets as host int64 arrays (offsets may be None).
VarLayout var_layout_of(nb::handle lengths, nb::handle offsets, bool back_to_back,
                        const Signature& signature);

}  // namespace triax::python
