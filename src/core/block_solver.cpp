// triax::BlockSolver: validation, normalisation, dispatch to a backend's block plan.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>

#include "core/backend_plan.hpp"
#include "core/block_problem.hpp"
#include "core/block_validate.hpp"
#include "core/plan_guards.hpp"
#include "core/validate.hpp"
#include "triax/block.hpp"

namespace triax {

std::string_view to_string(BlockAlgorithm algorithm) {
  switch (algorithm) {
    case BlockAlgorithm::automatic:
      return "automatic";
    case BlockAlgorithm::reference_block_thomas:
      return "reference_block_thomas";
    case BlockAlgorithm::cpu_block_thomas:
      return "cpu_block_thomas";
    case BlockAlgorithm::cuda_block_thread_thomas:
      return "cuda_block_thread_thomas";
    case BlockAlgorithm::cuda_block_coop_thomas:
      return "cuda_block_coop_thomas";
  }
  return "unknown";
}

namespace {

// The backend a named block algorithm runs on.
Backend backend_of(BlockAlgorithm algorithm) {
  switch (algorithm) {
    case BlockAlgorithm::reference_block_thomas:
      return Backend::reference;
    case BlockAlgorithm::cpu_block_thomas:
      return Backend::cpu;
    case BlockAlgorithm::cuda_block_thread_thomas:
    case BlockAlgorithm::cuda_block_coop_thomas:
      return Backend::cuda;
    case BlockAlgorithm::automatic:
      break;
  }
  throw invalid_argument("triax::BlockSolver: algorithm = " +
                         std::to_string(static_cast<int>(algorithm)) + " is not a block algorithm");
}

}  // namespace

template <class T>
class BlockSolver<T>::Impl {
 public:
  Impl(Backend backend, int m, const BlockLayouts& layouts, int axis, const Options& options,
       BlockAlgorithm algorithm)
      : backend_(backend), layouts_(layouts), options_(options) {
    detail::validate_block_layouts(m, layouts, axis);
    detail::check_thread_count(options, who);
    // The block algorithms are not values of triax::Algorithm (one per backend for now).
    if (options.algorithm != Algorithm::automatic) {
      throw invalid_argument(
          "triax::BlockSolver: options.algorithm = " + std::string(to_string(options.algorithm)) +
          " is a scalar algorithm; block plans take automatic");
    }
    if (algorithm != BlockAlgorithm::automatic && backend_of(algorithm) != backend) {
      throw invalid_argument(
          "triax::BlockSolver: algorithm = " + std::string(to_string(algorithm)) +
          " does not run on backend " + std::string(to_string(backend)));
    }
    problem_ = detail::normalize_block(m, layouts, axis);
    d_self_overlaps_ = detail::layout_self_overlaps(layouts.d);
    switch (backend) {
      case Backend::reference:
        plan_ = detail::make_reference_block_plan<T>(problem_, options);
        break;
      case Backend::cpu:
        plan_ = detail::make_cpu_block_plan<T>(problem_, options);
        break;
      case Backend::cuda:
        plan_ = detail::make_cuda_block_plan<T>(problem_, options, algorithm);
        break;
      default:
        throw invalid_argument("triax::BlockSolver: backend = " +
                               std::to_string(static_cast<int>(backend)) + " is not a backend");
    }
  }

  void run(const T* a, const T* b, const T* c, const T* d, T* x, detail::SolveMode mode,
           int* info) {
    const detail::OneSolveAtATime one_solve(busy_, who);
    if (mode == detail::SolveMode::separate && x == d && layouts_.x == layouts_.d) {
      mode = detail::SolveMode::in_place;
    }
    const bool has_systems = problem_.grid.count > 0;
    const bool empty = !has_systems || problem_.grid.n == 0;
    int* checked_info = options_.checked ? info : nullptr;
    // The scalar plans' pointer checks: block operands are layouts of other ranks, nothing else.
    detail::validate_pointers({a, b, c, d, x, checked_info, mode, empty, problem_.grid.count},
                              operands_, sizeof(T), alignof(T), d_self_overlaps_, who);
    if (options_.checked && info == nullptr && has_systems) {
      throw invalid_argument(std::string(who) +
                             ": checked mode needs an info array, but info is null");
    }
    if (has_systems) detail::check_memory_space(backend_, {a, b, c, d, x, checked_info}, who);
    if (empty) {
      // No block rows: every system is (trivially) solved (device memory on cuda, on its stream).
      if (checked_info != nullptr && has_systems)
        plan_->clear_info(checked_info, problem_.grid.count);
      return;
    }
    detail::BlockProblem p = problem_;
    if (mode == detail::SolveMode::in_place) {
      p.grid.map[detail::op_x] = p.grid.map[detail::op_d];
      p.entry_row[detail::op_x] = p.entry_row[detail::op_d];
    }
    plan_->solve(p, {a, b, c, d, x, mode == detail::SolveMode::increment, checked_info});
  }

  static constexpr const char* who = "triax::BlockSolver";

  Backend backend_;
  BlockLayouts layouts_;
  OperandLayouts operands_{layouts_.a, layouts_.b, layouts_.c, layouts_.d, layouts_.x};
  Options options_;
  detail::BlockProblem problem_;
  detail::Overlap d_self_overlaps_ = detail::Overlap::no;
  std::unique_ptr<detail::BlockBackendPlan<T>> plan_;
  std::atomic<bool> busy_{false};
};

template <class T>
BlockSolver<T>::BlockSolver(Backend backend, int m, const BlockLayouts& layouts, int axis,
                            const Options& options, BlockAlgorithm algorithm)
    : impl_(std::make_unique<Impl>(backend, m, layouts, axis, options, algorithm)) {}
template <class T>
BlockSolver<T>::~BlockSolver() = default;
template <class T>
BlockSolver<T>::BlockSolver(BlockSolver&&) noexcept = default;
template <class T>
BlockSolver<T>& BlockSolver<T>::operator=(BlockSolver&&) noexcept = default;

template <class T>
void BlockSolver<T>::solve_in_place(const T* a, const T* b, const T* c, T* d, int* info) {
  detail::live(impl_, Impl::who).run(a, b, c, d, d, detail::SolveMode::in_place, info);
}
template <class T>
void BlockSolver<T>::solve(const T* a, const T* b, const T* c, const T* d, T* x, int* info) {
  detail::live(impl_, Impl::who).run(a, b, c, d, x, detail::SolveMode::separate, info);
}
template <class T>
void BlockSolver<T>::solve_increment(const T* a, const T* b, const T* c, const T* d, T* u,
                                     int* info) {
  detail::live(impl_, Impl::who).run(a, b, c, d, u, detail::SolveMode::increment, info);
}

template <class T>
Backend BlockSolver<T>::backend() const {
  return detail::live(impl_, Impl::who).backend_;
}
template <class T>
BlockAlgorithm BlockSolver<T>::algorithm() const {
  return detail::live(impl_, Impl::who).plan_->algorithm();
}
template <class T>
int BlockSolver<T>::block_size() const {
  return detail::live(impl_, Impl::who).problem_.m;
}
template <class T>
std::int64_t BlockSolver<T>::system_length() const {
  return detail::live(impl_, Impl::who).problem_.grid.n;
}
template <class T>
std::int64_t BlockSolver<T>::system_count() const {
  return detail::live(impl_, Impl::who).problem_.grid.count;
}
template <class T>
std::size_t BlockSolver<T>::workspace_bytes() const {
  return detail::live(impl_, Impl::who).plan_->workspace_bytes();
}

template class BlockSolver<float>;
template class BlockSolver<double>;

}  // namespace triax
