// triax::Solver: validation, normalisation, dispatch to a backend's plan.
#include <atomic>
#include <new>
#include <stdexcept>
#include <string>

#include "core/backend_plan.hpp"
#include "core/normalize.hpp"
#include "core/plan_guards.hpp"
#include "core/validate.hpp"
#include "triax/triax.hpp"

namespace triax {

template <class T>
class Solver<T>::Impl {
 public:
  Impl(Backend backend, const OperandLayouts& layouts, int axis, const Options& options)
      : backend_(backend), layouts_(layouts), options_(options) {
    detail::validate_layouts(layouts, axis);
    detail::check_thread_count(options, who);
    problem_ = detail::normalize(layouts, axis);
    d_self_overlaps_ = detail::layout_self_overlaps(layouts.d);
    try {
      switch (backend) {
        case Backend::reference: plan_ = detail::make_reference_plan<T>(problem_, options); break;
        case Backend::cpu: plan_ = detail::make_cpu_plan<T>(problem_, options); break;
        case Backend::cuda: plan_ = detail::make_cuda_plan<T>(problem_, options); break;
        default:
          throw invalid_argument("triax::Solver: backend = " +
                                 std::to_string(static_cast<int>(backend)) +
                                 " is not a backend");
      }
    } catch (const std::bad_alloc&) {
      throw_out_of_memory(backend, options);
    } catch (const std::length_error&) {  // a std::vector larger than it can be
      throw_out_of_memory(backend, options);
    }
  }

  [[noreturn]] void throw_out_of_memory(Backend backend, const Options& options) const {
    throw out_of_memory("triax::Solver: the workspace of a " + std::string(to_string(backend)) +
                        " plan for " + std::to_string(problem_.count) + " systems of " +
                        std::to_string(problem_.n) + " rows (options.num_threads = " +
                        std::to_string(options.num_threads) + ") could not be allocated");
  }

  void run(const T* a, const T* b, const T* c, const T* d, T* x, detail::SolveMode mode,
           int* info) {
    const detail::OneSolveAtATime one_solve(busy_, who);
    // solve(d, x = d) with x laid out as d is the same as solving in place.
    if (mode == detail::SolveMode::separate && x == d && layouts_.x == layouts_.d) {
      mode = detail::SolveMode::in_place;
    }
    // Nothing to solve when there are no systems, or systems of no rows: the arrays are empty
    // and their pointers may be null.
    const bool empty = problem_.count == 0 || problem_.n == 0;
    // info is written in checked mode only; unchecked solves ignore it.
    int* checked_info = options_.checked ? info : nullptr;
    detail::validate_pointers({a, b, c, d, x, checked_info, mode, empty, problem_.count}, layouts_,
                              sizeof(T), alignof(T), d_self_overlaps_, who);
    const bool has_systems = problem_.count > 0;
    if (options_.checked && info == nullptr && has_systems) {
      throw invalid_argument("triax::Solver: checked mode needs an info array, but info is null");
    }
    // a's row 0 is never read, so a may point before its allocation (LAPACK's dl - 1): its
    // memory space is asked of the first element a solve reads, row 1 of the first system.
    const T* a_read =
        a != nullptr && problem_.n >= 2
            ? a + problem_.map[detail::op_a].offset + problem_.map[detail::op_a].row_stride
            : a;
    if (has_systems) {
      detail::check_memory_space(backend_, {a_read, b, c, d, x, checked_info}, who);
    }
    if (empty) {
      // Systems of no rows are solved: every one gets info 0.
      if (options_.checked && has_systems) plan_->clear_info(info, problem_.count);
      return;
    }
    detail::Problem p = problem_;
    if (mode == detail::SolveMode::in_place) p.map[detail::op_x] = p.map[detail::op_d];
    plan_->solve(p, {a, b, c, d, x, mode == detail::SolveMode::increment, checked_info});
  }

  static constexpr const char* who = "triax::Solver";

  Backend backend_;
  OperandLayouts layouts_;
  Options options_;
  detail::Problem problem_;
  detail::Overlap d_self_overlaps_ = detail::Overlap::no;
  std::unique_ptr<detail::BackendPlan<T>> plan_;
  std::atomic<bool> busy_{false};

};

template <class T>
Solver<T>::Solver(Backend backend, const Layout& layout, int axis, const Options& options)
    : Solver(backend, OperandLayouts(layout), axis, options) {}

template <class T>
Solver<T>::Solver(Backend backend, const OperandLayouts& layouts, int axis,
                  const Options& options)
    : impl_(std::make_unique<Impl>(backend, layouts, axis, options)) {}

template <class T>
Solver<T>::~Solver() = default;
template <class T>
Solver<T>::Solver(Solver&&) noexcept = default;
template <class T>
Solver<T>& Solver<T>::operator=(Solver&&) noexcept = default;

template <class T>
void Solver<T>::solve_in_place(const T* a, const T* b, const T* c, T* d, int* info) {
  detail::live(impl_, Impl::who).run(a, b, c, d, d, detail::SolveMode::in_place, info);
}

template <class T>
void Solver<T>::solve(const T* a, const T* b, const T* c, const T* d, T* x, int* info) {
  detail::live(impl_, Impl::who).run(a, b, c, d, x, detail::SolveMode::separate, info);
}

template <class T>
void Solver<T>::solve_increment(const T* a, const T* b, const T* c, const T* d, T* u,
                                int* info) {
  detail::live(impl_, Impl::who).run(a, b, c, d, u, detail::SolveMode::increment, info);
}

template <class T>
Backend Solver<T>::backend() const {
  return detail::live(impl_, Impl::who).backend_;
}
template <class T>
Algorithm Solver<T>::algorithm() const {
  return detail::live(impl_, Impl::who).plan_->algorithm();
}
template <class T>
std::int64_t Solver<T>::system_length() const {
  return detail::live(impl_, Impl::who).problem_.n;
}
template <class T>
std::int64_t Solver<T>::system_count() const {
  return detail::live(impl_, Impl::who).problem_.count;
}
template <class T>
std::size_t Solver<T>::workspace_bytes() const {
  return detail::live(impl_, Impl::who).plan_->workspace_bytes();
}

template class Solver<float>;
template class Solver<double>;

bool backend_compiled(Backend backend) {
  return backend != Backend::cuda || detail::cuda_compiled();
}

}  // namespace triax
