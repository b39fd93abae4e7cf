// triax::VarSolver: pointer checks, dispatch to a backend's variable-batch plan.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

#include "core/backend_plan.hpp"
#include "core/plan_guards.hpp"
#include "core/validate.hpp"
#include "core/var_problem.hpp"
#include "triax/varbatch.hpp"

namespace triax {
namespace {

constexpr const char* who = "triax::VarSolver";

[[noreturn]] void reject(const std::string& what) {
  throw invalid_argument(std::string(who) + ": " + what);
}

std::string address(const void* p) {
  char text[2 + 2 * sizeof(void*) + 1];
  std::snprintf(text, sizeof text, "%p", p);
  return text;
}

// Back to back, every operand covers the same runs of elements, each from its own base: p's and
// q's elements meet where some run shifted by q - p (in elements) meets some run. Runs are
// sorted and disjoint, so one merge-like walk decides it.
bool runs_meet(const std::vector<std::pair<std::int64_t, std::int64_t>>& runs, std::int64_t shift) {
  std::size_t i = 0, j = 0;
  while (i < runs.size() && j < runs.size()) {
    const __int128 lo = std::max<__int128>(runs[i].first, __int128(runs[j].first) + shift);
    const __int128 hi = std::min<__int128>(runs[i].second, __int128(runs[j].second) + shift);
    if (lo < hi) return true;
    if (runs[i].second < __int128(runs[j].second) + shift) {
      ++i;
    } else {
      ++j;
    }
  }
  return false;
}

}  // namespace

template <class T>
class VarSolver<T>::Impl {
 public:
  Impl(Backend backend, const VarLayout& layout, const Options& options)
      : backend_(backend), layout_(layout), options_(options) {
    detail::check_thread_count(options, who);
    if (options.algorithm != Algorithm::automatic) {
      reject("options.algorithm = " + std::string(to_string(options.algorithm)) +
             " is not automatic; a variable batch picks its own");
    }
    const VarLayout::Data& d = layout.data();
    if (d.padded()) d_self_overlaps_ = detail::layout_self_overlaps(d.layouts->d);
    try {
      switch (backend) {
        case Backend::reference: plan_ = detail::make_reference_var_plan<T>(d, options); break;
        case Backend::cpu: plan_ = detail::make_cpu_var_plan<T>(d, options); break;
        case Backend::cuda: plan_ = detail::make_cuda_var_plan<T>(d, options); break;
        default:
          reject("backend = " + std::to_string(static_cast<int>(backend)) + " is not a backend");
      }
    } catch (const std::bad_alloc&) {
      throw out_of_memory(std::string(who) + ": the workspace of a " +
                          std::string(to_string(backend)) + " plan for " +
                          std::to_string(d.lengths.size()) + " systems of up to " +
                          std::to_string(d.max_length) + " rows could not be allocated");
    }
  }

  void check_back_to_back(const T* const (&ptr)[5], detail::SolveMode mode, const int* info) {
    static constexpr const char* names[] = {"a", "b", "c", "d", "x"};
    const VarLayout::Data& d = layout_.data();
    const char* out = mode == detail::SolveMode::increment ? "u" : "x";
    if (d.total_rows == 0) return;
    for (int k = 0; k < 5; ++k) {
      if (ptr[k] == nullptr) reject(std::string("pointer ") + (k == 4 ? out : names[k]) + " is null");
      if (reinterpret_cast<std::uintptr_t>(ptr[k]) % alignof(T) != 0) {
        reject(std::string("pointer ") + (k == 4 ? out : names[k]) + " = " + address(ptr[k]) +
               " is not aligned to " + std::to_string(alignof(T)) + " bytes");
      }
    }
    const auto lo = static_cast<std::uintptr_t>(d.runs.front().first) * sizeof(T);
    const auto hi = static_cast<std::uintptr_t>(d.runs.back().second) * sizeof(T);
    const auto meets = [&](const T* p, const T* q) {
      const auto bp = reinterpret_cast<std::uintptr_t>(p), bq = reinterpret_cast<std::uintptr_t>(q);
      if (!(bp + lo < bq + hi && bq + lo < bp + hi)) return false;  // spans apart
      const std::intptr_t bytes = static_cast<std::intptr_t>(bq - bp);
      if (bytes % static_cast<std::intptr_t>(sizeof(T)) != 0) return true;  // straddling elements
      return runs_meet(d.runs, bytes / static_cast<std::intptr_t>(sizeof(T)));
    };
    const int inputs = mode == detail::SolveMode::in_place ? 3 : 4;
    for (int k = 0; k < inputs; ++k) {
      if (meets(ptr[4], ptr[k])) {
        reject(std::string("output ") + out + " = " + address(ptr[4]) +
               " shares elements with input " + names[k] + " = " + address(ptr[k]));
      }
    }
    if (info != nullptr) {
      const auto bi = reinterpret_cast<std::uintptr_t>(info);
      const auto ei = bi + d.lengths.size() * sizeof(int);
      for (int k = 0; k < 5; ++k) {
        const auto b = reinterpret_cast<std::uintptr_t>(ptr[k]);
        if (bi < b + hi && b + lo < ei) {
          reject("info = " + address(info) + " overlaps operand " +
                 (k == 4 ? std::string(out) : std::string(names[k])) + " = " + address(ptr[k]));
        }
      }
    }
  }

  // Per-solve lengths: where they live (device memory only on cuda), and, in host memory,
  // each within the layout's longest, before anything is written.
  bool check_solve_lengths(std::span<const std::int64_t> lengths) const {
    const VarLayout::Data& d = layout_.data();
    if (!d.padded()) {
      reject("lengths passed per solve need a padded layout; this one is back to back (its "
             "offsets follow from its lengths)");
    }
    if (static_cast<std::size_t>(lengths.size()) != d.lengths.size()) {
      reject("lengths.size() = " + std::to_string(lengths.size()) + ", but the layout has " +
             std::to_string(d.lengths.size()) + " systems");
    }
    if (!plan_->takes_solve_lengths()) {
      reject("the " + std::string(to_string(backend_)) +
             " plan of this layout does not take lengths per solve (cuda: padded layouts whose "
             "longest system has at most 512 rows, outside checked mode)");
    }
    if (lengths.empty()) return false;
    const bool on_device = detail::memory_space_of(lengths.data()) == detail::MemorySpace::device;
    if (on_device && backend_ != Backend::cuda) {
      reject("lengths = " + address(lengths.data()) + " is device memory, which the " +
             std::string(to_string(backend_)) + " backend cannot read");
    }
    if (on_device) return true;
    for (std::size_t s = 0; s < lengths.size(); ++s) {
      if (lengths[s] < 0 || lengths[s] > d.max_length) {
        reject("lengths[" + std::to_string(s) + "] = " + std::to_string(lengths[s]) +
               " is outside 0 .. " + std::to_string(d.max_length) +
               " (the layout's longest length, which the plan was made for)");
      }
    }
    return false;
  }

  void run(const T* a, const T* b, const T* c, const T* dd, T* x, detail::SolveMode mode,
           int* info, std::optional<std::span<const std::int64_t>> solve_lengths = {}) {
    const detail::OneSolveAtATime one_solve(busy_, who);
    const VarLayout::Data& d = layout_.data();
    const auto count = static_cast<std::int64_t>(d.lengths.size());
    const bool lengths_on_device = solve_lengths && check_solve_lengths(*solve_lengths);
    int* checked_info = options_.checked ? info : nullptr;
    if (d.padded()) {
      if (mode == detail::SolveMode::separate && x == dd && d.layouts->x == d.layouts->d) {
        mode = detail::SolveMode::in_place;
      }
      // The padded storage is the layouts' own: judged as triax::Solver judges them.
      detail::validate_pointers({a, b, c, dd, x, checked_info, mode, d.total_rows == 0, count},
                                *d.layouts, sizeof(T), alignof(T), d_self_overlaps_, who);
    } else {
      if (mode == detail::SolveMode::separate && x == dd) mode = detail::SolveMode::in_place;
      check_back_to_back({a, b, c, dd, x}, mode, checked_info);
    }
    if (options_.checked && info == nullptr && count > 0) {
      reject("checked mode needs an info array, but info is null");
    }
    if (count > 0) detail::check_memory_space(backend_, {a, b, c, dd, x, checked_info}, who);
    if (count == 0) return;
    detail::Problem p = d.fixed;
    if (mode == detail::SolveMode::in_place) p.map[detail::op_x] = p.map[detail::op_d];
    const detail::Operands<T> ops{a, b, c, dd, x, mode == detail::SolveMode::increment,
                                  checked_info};
    if (solve_lengths) {
      plan_->solve_lengths(p, ops, solve_lengths->data(), lengths_on_device);
    } else {
      plan_->solve(p, ops);
    }
  }

  Backend backend_;
  VarLayout layout_;
  Options options_;
  detail::Overlap d_self_overlaps_ = detail::Overlap::no;
  std::unique_ptr<detail::VarBackendPlan<T>> plan_;
  std::atomic<bool> busy_{false};
};

template <class T>
VarSolver<T>::VarSolver(Backend backend, const VarLayout& layout, const Options& options)
    : impl_(std::make_unique<Impl>(backend, layout, options)) {}
template <class T>
VarSolver<T>::~VarSolver() = default;
template <class T>
VarSolver<T>::VarSolver(VarSolver&&) noexcept = default;
template <class T>
VarSolver<T>& VarSolver<T>::operator=(VarSolver&&) noexcept = default;

template <class T>
void VarSolver<T>::solve_in_place(const T* a, const T* b, const T* c, T* d, int* info) {
  detail::live(impl_, who).run(a, b, c, d, d, detail::SolveMode::in_place, info);
}
template <class T>
void VarSolver<T>::solve(const T* a, const T* b, const T* c, const T* d, T* x, int* info) {
  detail::live(impl_, who).run(a, b, c, d, x, detail::SolveMode::separate, info);
}
template <class T>
void VarSolver<T>::solve_increment(const T* a, const T* b, const T* c, const T* d, T* u,
                                   int* info) {
  detail::live(impl_, who).run(a, b, c, d, u, detail::SolveMode::increment, info);
}
template <class T>
void VarSolver<T>::solve_in_place(const T* a, const T* b, const T* c, T* d,
                                  std::span<const std::int64_t> lengths, int* info) {
  detail::live(impl_, who).run(a, b, c, d, d, detail::SolveMode::in_place, info, lengths);
}
template <class T>
void VarSolver<T>::solve(const T* a, const T* b, const T* c, const T* d, T* x,
                         std::span<const std::int64_t> lengths, int* info) {
  detail::live(impl_, who).run(a, b, c, d, x, detail::SolveMode::separate, info, lengths);
}
template <class T>
void VarSolver<T>::solve_increment(const T* a, const T* b, const T* c, const T* d, T* u,
                                   std::span<const std::int64_t> lengths, int* info) {
  detail::live(impl_, who).run(a, b, c, d, u, detail::SolveMode::increment, info, lengths);
}
template <class T>
Backend VarSolver<T>::backend() const {
  return detail::live(impl_, who).backend_;
}
template <class T>
std::int64_t VarSolver<T>::system_count() const {
  return detail::live(impl_, who).layout_.count();
}
template <class T>
std::size_t VarSolver<T>::workspace_bytes() const {
  return detail::live(impl_, who).plan_->workspace_bytes();
}

template class VarSolver<float>;
template class VarSolver<double>;

}  // namespace triax
