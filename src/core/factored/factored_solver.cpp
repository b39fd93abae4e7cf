// triax::FactoredSolver: validation, factoring, normalisation, dispatch to a backend's plan.
#include <atomic>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/backend_plan.hpp"
#include "core/factored/factored_plan.hpp"
#include "core/normalize.hpp"
#include "core/plan_guards.hpp"
#include "core/validate.hpp"
#include "triax/factored.hpp"

namespace triax {
namespace {

// A layout of d's rank and extents whose every index maps to element 0: what the shared
// validation sees for a, b and c, which a factored solve does not take (they point at a value
// the plan owns, so no caller array can overlap them).
Layout broadcast_like(const Layout& l) {
  std::vector<std::int64_t> extents(l.rank()), strides(l.rank(), 0);
  for (int k = 0; k < l.rank(); ++k) extents[k] = l.extent(k);
  return Layout::strided(extents, strides, 0);
}

Backend backend_of(FactoredAlgorithm algorithm) {
  switch (algorithm) {
    case FactoredAlgorithm::cpu_thomas:
    case FactoredAlgorithm::cpu_cr:
      return Backend::cpu;
    case FactoredAlgorithm::cuda_thread_thomas:
    case FactoredAlgorithm::cuda_block_cr_shared:
    case FactoredAlgorithm::cuda_block_cr_global:
      return Backend::cuda;
    case FactoredAlgorithm::automatic:
      break;
  }
  throw invalid_argument("triax::FactoredSolver: algorithm = " +
                         std::to_string(static_cast<int>(algorithm)) +
                         " is not a factored algorithm");
}

bool is_cr(FactoredAlgorithm a) {
  return a == FactoredAlgorithm::cpu_cr || a == FactoredAlgorithm::cuda_block_cr_shared ||
         a == FactoredAlgorithm::cuda_block_cr_global;
}

}  // namespace

std::string_view to_string(FactoredAlgorithm algorithm) {
  switch (algorithm) {
    case FactoredAlgorithm::automatic: return "automatic";
    case FactoredAlgorithm::cpu_thomas: return "cpu_thomas";
    case FactoredAlgorithm::cpu_cr: return "cpu_cr";
    case FactoredAlgorithm::cuda_thread_thomas: return "cuda_thread_thomas";
    case FactoredAlgorithm::cuda_block_cr_shared: return "cuda_block_cr_shared";
    case FactoredAlgorithm::cuda_block_cr_global: return "cuda_block_cr_global";
  }
  return "unknown";
}

template <class T>
class FactoredSolver<T>::Impl {
 public:
  Impl(Backend backend, const T* a, const T* b, const T* c, std::int64_t n,
       const FactoredLayouts& layouts, int axis, const Options& options,
       FactoredAlgorithm algorithm)
      : backend_(backend),
        options_(options),
        // a, b, c laid out as d for normalisation (their maps are unused); the validation of
        // pointers sees them as broadcast values of the plan's own.
        layouts_(layouts.d, layouts.d, layouts.d, layouts.d, layouts.x),
        checked_layouts_(broadcast_like(layouts.d), broadcast_like(layouts.d),
                         broadcast_like(layouts.d), layouts.d, layouts.x) {
    detail::validate_layouts(layouts_, axis);
    detail::check_thread_count(options, who);
    if (options.algorithm != Algorithm::automatic) {
      throw invalid_argument(std::string(who) + ": options.algorithm = " +
                             std::string(to_string(options.algorithm)) +
                             " names a triax::Solver algorithm; factored plans take automatic");
    }
    if (algorithm != FactoredAlgorithm::automatic && backend_of(algorithm) != backend) {
      throw invalid_argument(std::string(who) + ": algorithm = " +
                             std::string(to_string(algorithm)) + " does not run on the " +
                             std::string(to_string(backend)) + " backend");
    }
    if (algorithm == FactoredAlgorithm::cuda_block_cr_shared &&
        n > detail::cr_shared_max_n<T>()) {
      throw invalid_argument(std::string(who) + ": algorithm = cuda_block_cr_shared holds a system in "
                             "shared memory, at most " + std::to_string(detail::cr_shared_max_n<T>()) + " rows, but n = " + std::to_string(n) +
                             " (use cuda_block_cr_global)");
    }
    if (n != layouts.d.extent(axis)) {
      throw invalid_argument(std::string(who) + ": n = " + std::to_string(n) +
                             " differs from extent[" + std::to_string(axis) + "] = " +
                             std::to_string(layouts.d.extent(axis)) + " of d along the axis");
    }
    // a[0] and c[n-1] are never read: a and c are needed from two rows on, b from one.
    if (n >= 1 && b == nullptr) throw invalid_argument(std::string(who) + ": pointer b is null");
    if (n >= 2 && a == nullptr) throw invalid_argument(std::string(who) + ": pointer a is null");
    if (n >= 2 && c == nullptr) throw invalid_argument(std::string(who) + ": pointer c is null");
    problem_ = detail::normalize(layouts_, axis);
    d_self_overlaps_ = detail::layout_self_overlaps(layouts.d);
    table_ = detail::factor_matrix(a, b, c, n);
    // Until measurements say otherwise, automatic runs the Thomas factors (the default before
    // the CR algorithms existed).
    if (algorithm == FactoredAlgorithm::automatic) {
      algorithm = backend == Backend::cpu    ? FactoredAlgorithm::cpu_thomas
                  : backend == Backend::cuda ? FactoredAlgorithm::cuda_thread_thomas
                                             : FactoredAlgorithm::automatic;
    }
    algorithm_ = algorithm;
    if (is_cr(algorithm)) cr_ = detail::cr_matrix(a, b, c, n);
    try {
      switch (backend) {
        case Backend::reference: {
          detail::FactoredMatrix<T> m;
          m.a.assign(static_cast<std::size_t>(n), T(0));
          m.b.assign(static_cast<std::size_t>(n), T(0));
          m.c.assign(static_cast<std::size_t>(n), T(0));
          for (std::int64_t i = 0; i < n; ++i) {
            if (i > 0) m.a[i] = a[i];
            m.b[i] = b[i];
            if (i + 1 < n) m.c[i] = c[i];
          }
          plan_ = detail::make_reference_factored_plan<T>(problem_, options, m);
          break;
        }
        case Backend::cpu:
          plan_ = algorithm == FactoredAlgorithm::cpu_cr
                      ? detail::make_cpu_factored_cr_plan<T>(problem_, options, cr_)
                      : detail::make_cpu_factored_plan<T>(problem_, options, table_);
          break;
        case Backend::cuda:
          plan_ = is_cr(algorithm)
                      ? detail::make_cuda_factored_cr_plan<T>(
                            problem_, options, cr_,
                            algorithm == FactoredAlgorithm::cuda_block_cr_global)
                      : detail::make_cuda_factored_plan<T>(problem_, options, table_);
          break;
        default:
          throw invalid_argument(std::string(who) + ": backend = " +
                                 std::to_string(static_cast<int>(backend)) + " is not a backend");
      }
    } catch (const std::bad_alloc&) {
      throw_out_of_memory();
    } catch (const std::length_error&) {
      throw_out_of_memory();
    }
  }

  [[noreturn]] void throw_out_of_memory() const {
    throw out_of_memory(std::string(who) + ": the workspace of a " +
                        std::string(to_string(backend_)) + " plan for " +
                        std::to_string(problem_.count) + " systems of " +
                        std::to_string(problem_.n) + " rows could not be allocated");
  }

  void run(const T* d, T* x, detail::SolveMode mode, int* info) {
    const detail::OneSolveAtATime one_solve(busy_, who);
    if (mode == detail::SolveMode::separate && x == d && layouts_.x == layouts_.d) {
      mode = detail::SolveMode::in_place;
    }
    const bool empty = problem_.count == 0 || problem_.n == 0;
    int* checked_info = options_.checked ? info : nullptr;
    const T* unread = &unread_;
    detail::validate_pointers({unread, unread, unread, d, x, checked_info, mode, empty,
                               problem_.count},
                              checked_layouts_, sizeof(T), alignof(T), d_self_overlaps_, who);
    const bool has_systems = problem_.count > 0;
    if (options_.checked && info == nullptr && has_systems) {
      throw invalid_argument(std::string(who) + ": checked mode needs an info array, but info is null");
    }
    if (has_systems) {
      detail::check_memory_space(backend_, {nullptr, nullptr, nullptr, d, x, checked_info}, who);
    }
    if (empty) {
      if (options_.checked && has_systems) plan_->clear_info(info, problem_.count);
      return;
    }
    detail::Problem p = problem_;
    if (mode == detail::SolveMode::in_place) p.map[detail::op_x] = p.map[detail::op_d];
    plan_->solve(p, {d, x, mode == detail::SolveMode::increment, checked_info});
  }

  static constexpr const char* who = "triax::FactoredSolver";

  Backend backend_;
  Options options_;
  OperandLayouts layouts_;
  OperandLayouts checked_layouts_;
  detail::Problem problem_;
  detail::Overlap d_self_overlaps_ = detail::Overlap::no;
  detail::FactorTable<T> table_;
  FactoredAlgorithm algorithm_ = FactoredAlgorithm::automatic;
  detail::CrTable<T> cr_;  // empty unless a CR algorithm runs
  std::unique_ptr<detail::FactoredBackendPlan<T>> plan_;
  T unread_ = T(0);
  std::atomic<bool> busy_{false};
};

template <class T>
FactoredSolver<T>::FactoredSolver(Backend backend, const T* a, const T* b, const T* c,
                                  std::int64_t n, const FactoredLayouts& layouts, int axis,
                                  const Options& options, FactoredAlgorithm algorithm)
    : impl_(std::make_unique<Impl>(backend, a, b, c, n, layouts, axis, options, algorithm)) {}
template <class T>
FactoredSolver<T>::~FactoredSolver() = default;
template <class T>
FactoredSolver<T>::FactoredSolver(FactoredSolver&&) noexcept = default;
template <class T>
FactoredSolver<T>& FactoredSolver<T>::operator=(FactoredSolver&&) noexcept = default;

template <class T>
void FactoredSolver<T>::solve_in_place(T* d, int* info) {
  detail::live(impl_, Impl::who).run(d, d, detail::SolveMode::in_place, info);
}
template <class T>
void FactoredSolver<T>::solve(const T* d, T* x, int* info) {
  detail::live(impl_, Impl::who).run(d, x, detail::SolveMode::separate, info);
}
template <class T>
void FactoredSolver<T>::solve_increment(const T* d, T* u, int* info) {
  detail::live(impl_, Impl::who).run(d, u, detail::SolveMode::increment, info);
}

template <class T>
Backend FactoredSolver<T>::backend() const {
  return detail::live(impl_, Impl::who).backend_;
}
template <class T>
FactoredAlgorithm FactoredSolver<T>::algorithm() const {
  return detail::live(impl_, Impl::who).algorithm_;
}
template <class T>
std::int64_t FactoredSolver<T>::system_length() const {
  return detail::live(impl_, Impl::who).problem_.n;
}
template <class T>
std::int64_t FactoredSolver<T>::system_count() const {
  return detail::live(impl_, Impl::who).problem_.count;
}
template <class T>
std::int64_t FactoredSolver<T>::stored_rows() const {
  const Impl& impl = detail::live(impl_, Impl::who);
  return is_cr(impl.algorithm_) ? impl.cr_.stored() : impl.table_.view().stored();
}
template <class T>
std::int64_t FactoredSolver<T>::head_rows() const {
  return detail::live(impl_, Impl::who).table_.head;
}
template <class T>
std::int64_t FactoredSolver<T>::tail_rows() const {
  return detail::live(impl_, Impl::who).table_.tail;
}
template <class T>
bool FactoredSolver<T>::compressed() const {
  return detail::live(impl_, Impl::who).table_.compressed;
}
template <class T>
bool FactoredSolver<T>::scaled() const {
  return detail::live(impl_, Impl::who).table_.scaled;
}
template <class T>
std::int64_t FactoredSolver<T>::factor_info() const {
  const Impl& impl = detail::live(impl_, Impl::who);
  return is_cr(impl.algorithm_) ? impl.cr_.layout.breakdown : impl.table_.breakdown;
}
template <class T>
std::size_t FactoredSolver<T>::workspace_bytes() const {
  return detail::live(impl_, Impl::who).plan_->workspace_bytes();
}

template class FactoredSolver<float>;
template class FactoredSolver<double>;

}  // namespace triax
