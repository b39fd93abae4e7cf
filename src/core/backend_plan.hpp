#pragma once
// The one interface between core and the backends: core normalises and validates, then asks a
// backend for a plan of its own; each backend implements the factory below in its folder
// (src/cuda/launch/cuda_hooks.cpp throws not_compiled when CUDA is not built).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/problem.hpp"
#include "triax/options.hpp"

namespace triax::detail {

/// A backend's share of a plan: algorithm chosen, workspace owned.
template <class T>
class BackendPlan {
 public:
  virtual ~BackendPlan() = default;
  /// Runs the solve. Arguments have been validated by core; must not allocate. `problem` is the
  /// plan's problem, except that an in-place solve passes it with map[op_x] == map[op_d].
  virtual void solve(const Problem& problem, const Operands<T>& ops) = 0;
  /// Sets info[0 .. count) to 0 (systems of no rows, which are solved by doing nothing). Host
  /// memory here; the CUDA plan clears device memory on its stream.
  virtual void clear_info(int* info, std::int64_t count) { std::fill_n(info, count, 0); }
  virtual Algorithm algorithm() const = 0;
  virtual std::size_t workspace_bytes() const = 0;
};

template <class T>
std::unique_ptr<BackendPlan<T>> make_reference_plan(const Problem& problem,
                                                    const Options& options);
template <class T>
std::unique_ptr<BackendPlan<T>> make_cpu_plan(const Problem& problem, const Options& options);
template <class T>
std::unique_ptr<BackendPlan<T>> make_cuda_plan(const Problem& problem, const Options& options);

/// Memory-space queries for pointer validation (cuda_hooks: cudaPointerGetAttributes).
enum class MemorySpace { host, device, unknown };
MemorySpace memory_space_of(const void* pointer);
bool cuda_compiled();

}  // namespace triax::detail
