#pragma once
// A plan as Python uses it: one Signature, and one triax::Solver (triax::BlockSolver for block
// systems) per CUDA stream it has run on (a library plan is tied to the stream in its options;
// the CPU needs one).

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <variant>
#include <vector>

#include "operands.hpp"
#include "per_stream.hpp"

namespace triax::python {

/// The library options of a plan for a signature: its checked mode, the stream, and one
/// thread for small CPU problems.
Options options_for(const Signature& s, std::uintptr_t stream);

class Plan {
 public:
  /// Makes the library plan for the signature (on `stream` for CUDA arrays). Throws
  /// triax::invalid_argument for layouts the library rejects, triax::not_compiled for CUDA
  /// arrays in a build without CUDA.
  Plan(const Signature& signature, std::uintptr_t stream);

  /// Solves with arrays already described by this plan's signature: out = x, or out += x with
  /// `increment`. Releases the GIL; solves on one plan from several threads take turns (the
  /// library allows one solve at a time on a plan: it owns one workspace).
  void run(const Operands& operands, bool increment, int* info, std::uintptr_t stream);

  const Signature& signature() const { return signature_; }
  /// False for an empty problem (an extent of 0): there is nothing to solve and no library plan.
  bool has_solver() const { return !solvers_.empty(); }
  std::string algorithm() const;
  std::string backend() const;
  std::int64_t system_length() const;
  std::int64_t system_count() const;
  std::size_t workspace_bytes() const;

 private:
  using Solver = std::variant<triax::Solver<float>, triax::Solver<double>,
                              triax::BlockSolver<float>, triax::BlockSolver<double>>;
  Solver make_solver(std::uintptr_t stream) const;
  Solver& solver_for(std::uintptr_t stream);

  Signature signature_;
  Backend backend_;
  std::mutex mutex_;
  PerStreamSolvers<Solver> solvers_;
};

/// Solves with the cached plan of the arrays' signature, making it on a miss. The cache holds
/// at most `cache_capacity` plans (their workspaces are memory: device memory on the GPU) and
/// drops the oldest past that.
void solve_cached(const Signature& signature, const Operands& operands, bool increment, int* info,
                  std::uintptr_t stream);
inline constexpr std::size_t cache_capacity = 64;
std::size_t cache_size();
void clear_cache();

}  // namespace triax::python
