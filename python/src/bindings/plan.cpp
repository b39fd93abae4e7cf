#include "plan.hpp"

#include <deque>
#include <type_traits>
#include <unordered_map>

#include "device_guard.hpp"

namespace triax::python {
namespace {

template <class T>
struct SolverValue;
template <class T>
struct SolverValue<triax::Solver<T>> {
  using type = T;
};
template <class T>
struct SolverValue<triax::BlockSolver<T>> {
  using type = T;
};

// The largest CPU problem solved in one thread (see options_for).
constexpr std::int64_t single_thread_elements = 4096;

}  // namespace

Options options_for(const Signature& s, std::uintptr_t stream) {
  Options options;
  options.checked = s.checked;
  options.stream = reinterpret_cast<void*>(stream);
  // Small CPU problems in one thread: the library opens an OpenMP team for any batch, and for
  // a few thousand elements the team costs more than it saves (one system of 8 rows: 8 us in
  // one thread, 54 us with two threads on a busy 2-core machine).
  if (s.device_type != device_cuda && s.size() <= single_thread_elements) {
    options.num_threads = 1;
  }
  return options;
}

Plan::Plan(const Signature& signature, std::uintptr_t stream)
    : signature_(signature),
      backend_(signature.device_type == device_cuda ? Backend::cuda : Backend::cpu) {
  if (signature_.size() == 0) return;  // nothing will ever be solved
  DeviceGuard guard(signature_);
  solver_for(stream);
}

Plan::Solver Plan::make_solver(std::uintptr_t stream) const {
  const Options options = options_for(signature_, stream);
  const int axis = library_axis(signature_);
  if (signature_.block_m > 0) {
    const BlockLayouts blocks = block_layouts_of(signature_);
    const int m = signature_.block_m;
    if (signature_.bits == 32) {
      return Solver(std::in_place_type<triax::BlockSolver<float>>, backend_, m, blocks, axis,
                    options);
    }
    return Solver(std::in_place_type<triax::BlockSolver<double>>, backend_, m, blocks, axis,
                  options);
  }
  const OperandLayouts layouts = layouts_of(signature_);
  if (signature_.bits == 32) {
    return Solver(std::in_place_type<triax::Solver<float>>, backend_, layouts, axis, options);
  }
  return Solver(std::in_place_type<triax::Solver<double>>, backend_, layouts, axis, options);
}

Plan::Solver& Plan::solver_for(std::uintptr_t stream) {
  return solvers_.for_stream(backend_, stream,
                              [this](std::uintptr_t s) { return make_solver(s); });
}

void Plan::run(const Operands& ops, bool increment, int* info, std::uintptr_t stream) {
  if (!has_solver()) return;
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(mutex_);
  DeviceGuard guard(signature_);
  std::visit(
      [&](auto& solver) {
        using Value = typename SolverValue<std::decay_t<decltype(solver)>>::type;
        const auto* a = static_cast<const Value*>(ops.data[0]);
        const auto* b = static_cast<const Value*>(ops.data[1]);
        const auto* c = static_cast<const Value*>(ops.data[2]);
        const auto* d = static_cast<const Value*>(ops.data[3]);
        auto* x = static_cast<Value*>(const_cast<void*>(ops.data[op_out]));
        if (increment) {
          solver.solve_increment(a, b, c, d, x, info);
        } else {
          solver.solve(a, b, c, d, x, info);  // in place when x is d (same pointer and layout)
        }
      },
      solver_for(stream));
}

std::string Plan::algorithm() const {
  if (!has_solver()) return "none";
  return std::visit([](const auto& s) { return std::string(to_string(s.algorithm())); },
                    solvers_.front());
}

std::string Plan::backend() const { return std::string(to_string(backend_)); }

std::int64_t Plan::system_length() const { return signature_.shape[signature_.axis]; }

std::int64_t Plan::system_count() const {
  // The product of the other extents, as the library counts (systems of 0 rows included).
  std::int64_t count = 1;
  for (int k = 0; k < signature_.ndim; ++k) {
    if (k != signature_.axis) count *= signature_.shape[k];
  }
  return count;
}

std::size_t Plan::workspace_bytes() const {
  return solvers_.workspace_bytes();
}

namespace {

// Guarded by the GIL: every function below runs with it held.
struct Cache {
  std::unordered_map<Signature, std::shared_ptr<Plan>, SignatureHash> plans;
  std::deque<Signature> order;  // oldest first
};

Cache& cache() {
  static Cache c;
  return c;
}

}  // namespace

void solve_cached(const Signature& signature, const Operands& operands, bool increment, int* info,
                  std::uintptr_t stream) {
  Cache& c = cache();
  auto it = c.plans.find(signature);
  std::shared_ptr<Plan> plan;
  if (it != c.plans.end()) {
    plan = it->second;
  } else {
    plan = std::make_shared<Plan>(signature, stream);
    if (c.plans.size() >= cache_capacity) {
      c.plans.erase(c.order.front());
      c.order.pop_front();
    }
    c.plans.emplace(signature, plan);
    c.order.push_back(signature);
  }
  // The shared_ptr keeps the plan alive if another thread clears the cache meanwhile.
  plan->run(operands, increment, info, stream);
}

std::size_t cache_size() { return cache().plans.size(); }

void clear_cache() {
  cache().plans.clear();
  cache().order.clear();
}

}  // namespace triax::python
