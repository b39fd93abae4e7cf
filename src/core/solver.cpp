// triax::Solver: validation, normalisation, dispatch to a backend's plan.
#include <string>

#include "core/backend_plan.hpp"
#include "core/normalize.hpp"
#include "core/validate.hpp"
#include "triax/triax.hpp"

namespace triax {

template <class T>
class Solver<T>::Impl {
 public:
  Impl(Backend backend, const OperandLayouts& layouts, int axis, const Options& options)
      : backend_(backend), layouts_(layouts), options_(options) {
    detail::validate_layouts(layouts, axis);
    if (options.num_threads < 0) {
      throw invalid_argument("triax::Solver: options.num_threads = " +
                             std::to_string(options.num_threads) + " is negative");
    }
    problem_ = detail::normalize(layouts, axis);
    switch (backend) {
      case Backend::reference: plan_ = detail::make_reference_plan<T>(problem_, options); break;
      case Backend::cpu: plan_ = detail::make_cpu_plan<T>(problem_, options); break;
      case Backend::cuda: plan_ = detail::make_cuda_plan<T>(problem_, options); break;
      default:
        throw invalid_argument("triax::Solver: backend = " +
                               std::to_string(static_cast<int>(backend)) + " is not a backend");
    }
  }

  enum class Mode { in_place, separate, increment };

  void run(const T* a, const T* b, const T* c, const T* d, T* x, Mode mode, int* info) {
    // solve(d, x = d) with x laid out as d is the same as solving in place.
    const bool in_place =
        mode == Mode::in_place || (mode == Mode::separate && x == d && layouts_.x == layouts_.d);
    const bool accumulate = mode == Mode::increment;
    const bool empty = problem_.count == 0;
    detail::validate_pointers(a, b, c, d, x, layouts_, sizeof(T), alignof(T), in_place, empty);
    if (options_.checked && info == nullptr && !empty) {
      throw invalid_argument("triax::Solver: checked mode needs an info array, but info is null");
    }
    if (!empty) check_memory_space(a, b, c, d, x, info);
    if (empty) return;
    detail::Problem p = problem_;
    if (in_place) p.map[detail::op_x] = p.map[detail::op_d];
    plan_->solve(p, {a, b, c, d, x, accumulate, options_.checked ? info : nullptr});
  }

  Backend backend_;
  OperandLayouts layouts_;
  Options options_;
  detail::Problem problem_;
  std::unique_ptr<detail::BackendPlan<T>> plan_;

 private:
  void check_memory_space(const void* a, const void* b, const void* c, const void* d,
                          const void* x, const void* info) const {
    const bool want_device = backend_ == Backend::cuda;
    const char* names[] = {"a", "b", "c", "d", "x", "info"};
    const void* ptrs[] = {a, b, c, d, x, info};
    for (int i = 0; i < 6; ++i) {
      if (ptrs[i] == nullptr) continue;
      const detail::MemorySpace s = detail::memory_space_of(ptrs[i]);
      if (s == detail::MemorySpace::unknown) continue;
      if (want_device && s != detail::MemorySpace::device) {
        throw invalid_argument(std::string("triax::Solver: the cuda backend needs device memory, "
                                           "but ") + names[i] + " is a host pointer");
      }
      if (!want_device && s == detail::MemorySpace::device) {
        throw invalid_argument(std::string("triax::Solver: the ") +
                               std::string(to_string(backend_)) +
                               " backend needs host memory, but " + names[i] +
                               " is a device pointer");
      }
    }
  }
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
  impl_->run(a, b, c, d, d, Impl::Mode::in_place, info);
}

template <class T>
void Solver<T>::solve(const T* a, const T* b, const T* c, const T* d, T* x, int* info) {
  impl_->run(a, b, c, d, x, Impl::Mode::separate, info);
}

template <class T>
void Solver<T>::solve_increment(const T* a, const T* b, const T* c, const T* d, T* u,
                                int* info) {
  impl_->run(a, b, c, d, u, Impl::Mode::increment, info);
}

template <class T>
Backend Solver<T>::backend() const {
  return impl_->backend_;
}
template <class T>
Algorithm Solver<T>::algorithm() const {
  return impl_->plan_->algorithm();
}
template <class T>
std::int64_t Solver<T>::system_length() const {
  return impl_->problem_.n;
}
template <class T>
std::int64_t Solver<T>::system_count() const {
  return impl_->problem_.count;
}
template <class T>
std::size_t Solver<T>::workspace_bytes() const {
  return impl_->plan_->workspace_bytes();
}

template class Solver<float>;
template class Solver<double>;

bool backend_compiled(Backend backend) {
  return backend != Backend::cuda || detail::cuda_compiled();
}

}  // namespace triax
