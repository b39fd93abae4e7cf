// triax::FactoredSolver: validation, factoring, normalisation, dispatch to a backend's plan.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/backend_plan.hpp"
#include "core/factored/factored_plan.hpp"
#include "core/factored/groups.hpp"
#include "core/factored/route.hpp"
#include "core/factored/stencil_workspace.hpp"
#include "core/normalize.hpp"
#include "core/overlap.hpp"
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
    case FactoredAlgorithm::cuda_hybrid:
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
    case FactoredAlgorithm::cuda_hybrid: return "cuda_hybrid";
  }
  return "unknown";
}

template <class T>
class FactoredSolver<T>::Impl {
 public:
  // One matrix for every system: the caller's n values of a, b, c (a[0], c[n-1] unread).
  Impl(Backend backend, const T* a, const T* b, const T* c, std::int64_t n,
       const FactoredLayouts& layouts, int axis, const Options& options,
       FactoredAlgorithm algorithm)
      : Impl(backend, layouts, axis, options, algorithm) {
    check_n(n, layouts, axis);
    check_pointers(a, b, c, n);
    // d's own layout with every batch stride read as 0: a single group (no group dimensions).
    split_ = detail::split_groups(broadcast_like(layouts.d), layouts.d, layouts.x, axis, who);
    build(a, b, c, /*row_stride=*/1, axis);
  }

  // One matrix per group: a, b, c laid out by `coefficients` (groups.hpp states the rule).
  Impl(Backend backend, const T* a, const T* b, const T* c, const Layout& coefficients,
       const FactoredLayouts& layouts, int axis, const Options& options,
       FactoredAlgorithm algorithm)
      : Impl(backend, layouts, axis, options, algorithm) {
    split_ = detail::split_groups(coefficients, layouts.d, layouts.x, axis, who);
    const std::int64_t n = layouts.d.extent(axis);
    if (algorithm == FactoredAlgorithm::cuda_hybrid && split_.count > 1) {
      // The hybrid reads one matrix broadcast to every system; groups keep the factored kernels.
      throw invalid_argument(std::string(who) + ": algorithm = cuda_hybrid solves with one matrix, "
                             "but the coefficients give " + std::to_string(split_.count) +
                             " groups (use cuda_thread_thomas)");
    }
    check_pointers(a, b, c, n);
    if (options.checked && backend == Backend::cuda && !split_.info_contiguous) {
      // The groups' info would have to be scattered in device memory; with the group dimensions
      // the slowest, each group's info is one run and its plan writes it in place.
      throw invalid_argument(std::string(who) +
                             ": options.checked = true on the cuda backend needs the group "
                             "dimensions (coefficients' non-zero strides) to be the slowest "
                             "dimensions of d with extent > 1 besides the axis");
    }
    build(a, b, c, coefficients.stride(axis), axis);
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
    if (check_call(d, x, mode, info, "d")) dispatch(d, x, mode, info);
  }

  // x = A^{-1} (B f): fused into the solve where the plan's backend does it (one group, unchecked:
  // the cuda chunk table), else B f into the workspace (laid out as d) and the ordinary solve.
  void run_stencil(const Stencil<T>& s, const T* f, T* x, int* info) {
    const detail::OneSolveAtATime one_solve(busy_, who);
    check_stencil_input(f, x);
    if (!check_call(f, x, detail::SolveMode::separate, info, "f")) return;
    if (detail::FactoredBackendPlan<T>* fused = fused_plan()) {
      fused->solve_stencil(groups_.front().problem, s, f + split_.offset_d[0],
                           x + split_.offset_x[0]);
      return;
    }
    detail::StencilWorkspace<T>& ws = stencil_workspace();
    ws.apply(problem_, s, f);
    dispatch(ws.data(), x, detail::SolveMode::separate, info);
  }

  // The plan that forms B f inside its solve, or null.
  detail::FactoredBackendPlan<T>* fused_plan() const {
    if (unified_plan_ || groups_.size() != 1 || options_.checked) return nullptr;
    detail::FactoredBackendPlan<T>* plan = groups_.front().plan.get();
    return plan != nullptr && plan->fuses_stencil() ? plan : nullptr;
  }

  static constexpr const char* stencil_who = "triax::FactoredSolver::solve_stencil";

  // solve_stencil's own checks on f (before the checks solve() makes, which then see f as d):
  // null, alignment, memory space, and no element shared with x.
  void check_stencil_input(const T* f, const T* x) const {
    if (problem_.count == 0 || problem_.n == 0) return;  // as solve(): nothing is read
    if (f == nullptr) throw invalid_argument(std::string(stencil_who) + ": pointer f is null");
    if (reinterpret_cast<std::uintptr_t>(f) % alignof(T) != 0) {
      throw invalid_argument(std::string(stencil_who) + ": pointer f is not aligned to " +
                             std::to_string(alignof(T)) + " bytes");
    }
    detail::check_memory_space(backend_, {nullptr, nullptr, nullptr, f, nullptr, nullptr},
                               stencil_who, "f");
    if (x == nullptr) return;  // check_call names it
    const detail::Overlap o =
        detail::layouts_overlap(reinterpret_cast<std::uintptr_t>(x), layouts_.x,
                                reinterpret_cast<std::uintptr_t>(f), layouts_.d, sizeof(T));
    if (o != detail::Overlap::no) {
      const char* how = o == detail::Overlap::yes ? "shares elements with" : "may share elements with";
      throw invalid_argument(std::string(stencil_who) + ": x " + how +
                             " f: the stencil reads f's neighbouring rows while x is written, so "
                             "f and x must be separate arrays");
    }
  }

  // The workspace of the unfused route: laid out as d, in the backend's memory, made at the
  // first solve_stencil that needs it and kept.
  detail::StencilWorkspace<T>& stencil_workspace() {
    if (!stencil_ws_) {
      const std::int64_t elements = detail::max_offset(layouts_.d) + 1;
      try {
        stencil_ws_ = backend_ == Backend::cuda
                          ? detail::make_cuda_stencil_workspace<T>(elements, options_.stream)
                          : detail::make_host_stencil_workspace<T>(elements, options_.num_threads);
      } catch (const std::bad_alloc&) {
        throw_out_of_memory();
      } catch (const std::length_error&) {
        throw_out_of_memory();
      }
    }
    return *stencil_ws_;
  }

  // The checks of every solve, before anything is written (d_name: what the caller called d).
  // False when there is nothing to solve; checked mode's info has then been cleared.
  bool check_call(const T* d, T* x, detail::SolveMode mode, int* info, const char* d_name) {
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
      detail::check_memory_space(backend_, {nullptr, nullptr, nullptr, d, x, checked_info}, who,
                                 d_name);
    }
    if (empty) {
      if (options_.checked && has_systems) {
        (unified_plan_ ? unified_plan_ : groups_.front().plan)->clear_info(info, problem_.count);
      }
      return false;
    }
    return true;
  }

  // A checked solve of d into x: the unified plan, or each group's plan on its sub-batch.
  void dispatch(const T* d, T* x, detail::SolveMode mode, int* info) {
    int* checked_info = options_.checked ? info : nullptr;
    if (unified_plan_) {
      detail::Problem p = unified_problem_;
      if (mode == detail::SolveMode::in_place) p.map[detail::op_x] = p.map[detail::op_d];
      unified_plan_->solve(p, {d, x, mode == detail::SolveMode::increment, checked_info});
      return;
    }
    const std::int64_t per = split_.systems_per_group;
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      Group& group = groups_[g];
      detail::Problem p = group.problem;
      if (mode == detail::SolveMode::in_place) p.map[detail::op_x] = p.map[detail::op_d];
      int* group_info = nullptr;
      if (checked_info != nullptr) {
        // Contiguous: the group's run of info. Else (host memory) a scratch, scattered below.
        group_info = info_index_.empty() ? checked_info + static_cast<std::int64_t>(g) * per
                                         : info_scratch_.data() + static_cast<std::int64_t>(g) * per;
      }
      // In place, x is d laid out as d: the group's offset in d.
      const std::int64_t ox =
          mode == detail::SolveMode::in_place ? split_.offset_d[g] : split_.offset_x[g];
      group.plan->solve(p, {d + split_.offset_d[g], x + ox,
                            mode == detail::SolveMode::increment, group_info});
    }
    if (checked_info != nullptr && !info_index_.empty()) {
      for (std::size_t k = 0; k < info_index_.size(); ++k) {
        checked_info[info_index_[k]] = info_scratch_[k];
      }
    }
  }

  static constexpr const char* who = "triax::FactoredSolver";

  // One matrix's factors and the plan that solves its group's sub-batch.
  struct Group {
    detail::Problem problem;
    detail::FactorTable<T> table;
    detail::CrTable<T> cr;  // empty unless a CR algorithm runs
    std::unique_ptr<detail::FactoredBackendPlan<T>> plan;
  };

  Backend backend_;
  Options options_;
  OperandLayouts layouts_;
  OperandLayouts checked_layouts_;
  detail::Problem problem_;
  detail::Overlap d_self_overlaps_ = detail::Overlap::no;
  FactoredAlgorithm algorithm_ = FactoredAlgorithm::automatic;
  detail::GroupSplit split_;
  std::vector<Group> groups_;
  // Every group in one plan (make_unified_plan); then the groups' own plans are null.
  detail::Problem unified_problem_;
  std::unique_ptr<detail::FactoredBackendPlan<T>> unified_plan_;
  std::unique_ptr<detail::StencilWorkspace<T>> stencil_ws_;  // unfused solve_stencil, made at first use
  std::vector<std::int64_t> info_index_;  // empty unless checked, grouped and not contiguous
  std::vector<int> info_scratch_;
  T unread_ = T(0);
  std::atomic<bool> busy_{false};
  bool requested_automatic_ = false;  // the caller left the algorithm to the plan

 private:
  // What both constructors check and set up before the matrices: the layouts, options and
  // algorithm (as triax::Solver's), and the normalised batch.
  Impl(Backend backend, const FactoredLayouts& layouts, int axis, const Options& options,
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
    const std::int64_t n = layouts.d.extent(axis);
    if (algorithm == FactoredAlgorithm::cuda_block_cr_shared &&
        n > detail::cr_shared_max_n<T>()) {
      throw invalid_argument(std::string(who) + ": algorithm = cuda_block_cr_shared holds a system in "
                             "shared memory, at most " + std::to_string(detail::cr_shared_max_n<T>()) + " rows, but n = " + std::to_string(n) +
                             " (use cuda_block_cr_global)");
    }
    problem_ = detail::normalize(layouts_, axis);
    d_self_overlaps_ = detail::layout_self_overlaps(layouts.d);
    // Until measurements say otherwise, automatic runs the Thomas factors (the default before
    // the CR algorithms existed); build() may route a cuda plan to the hybrid (route.hpp).
    requested_automatic_ = algorithm == FactoredAlgorithm::automatic;
    if (algorithm == FactoredAlgorithm::automatic) {
      algorithm = backend == Backend::cpu    ? FactoredAlgorithm::cpu_thomas
                  : backend == Backend::cuda ? FactoredAlgorithm::cuda_thread_thomas
                                             : FactoredAlgorithm::automatic;
    }
    algorithm_ = algorithm;
  }

  static void check_n(std::int64_t n, const FactoredLayouts& layouts, int axis) {
    if (n != layouts.d.extent(axis)) {
      throw invalid_argument(std::string(who) + ": n = " + std::to_string(n) +
                             " differs from extent[" + std::to_string(axis) + "] = " +
                             std::to_string(layouts.d.extent(axis)) + " of d along the axis");
    }
  }

  static void check_pointers(const T* a, const T* b, const T* c, std::int64_t n) {
    // a[0] and c[n-1] are never read: a and c are needed from two rows on, b from one.
    if (n >= 1 && b == nullptr) throw invalid_argument(std::string(who) + ": pointer b is null");
    if (n >= 2 && a == nullptr) throw invalid_argument(std::string(who) + ": pointer a is null");
    if (n >= 2 && c == nullptr) throw invalid_argument(std::string(who) + ": pointer c is null");
  }

  // Factors each group's matrix (its n rows at row_stride from the group's coefficient offset)
  // and makes the backend plan of its sub-batch.
  void build(const T* a, const T* b, const T* c, std::int64_t row_stride, int axis) {
    const std::int64_t n = problem_.n;
    const OperandLayouts sub(split_.d, split_.d, split_.d, split_.d, split_.x);
    detail::validate_layouts(sub, axis);
    const detail::Problem sub_problem = detail::normalize(sub, axis);
    if (options_.checked && split_.count > 1 && !split_.info_contiguous) {
      info_index_ = detail::group_info_index(split_, layouts_.d, axis);
      info_scratch_.assign(info_index_.size(), 0);
    }
    std::vector<T> ga(static_cast<std::size_t>(n), T(0)), gb(ga), gc(ga);
    auto gather = [&](std::int64_t g) {
      const std::int64_t base = split_.offset_coefficients[g];
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t at = base + i * row_stride;
        ga[i] = i > 0 ? a[at] : T(0);
        gb[i] = b[at];
        gc[i] = i + 1 < n ? c[at] : T(0);
      }
    };
    try {
      groups_.reserve(static_cast<std::size_t>(split_.count));
      for (std::int64_t g = 0; g < split_.count; ++g) {
        gather(g);
        Group group;
        group.problem = sub_problem;
        group.table = detail::factor_matrix(ga.data(), gb.data(), gc.data(), n);
        if (is_cr(algorithm_)) group.cr = detail::cr_matrix(ga.data(), gb.data(), gc.data(), n);
        groups_.push_back(std::move(group));
      }
      if (split_.count == 1) {
        gather(0);
        route_one_matrix(ga, gb, gc);
      }
      if (make_unified_plan(axis)) return;
      for (std::int64_t g = 0; g < split_.count; ++g) {
        gather(g);
        groups_[g].plan = make_plan(groups_[g], ga, gb, gc);
      }
    } catch (const std::bad_alloc&) {
      throw_out_of_memory();
    } catch (const std::length_error&) {
      throw_out_of_memory();
    }
  }

  // Several groups in one launch (one OpenMP region): the Thomas kernels read system s's
  // matrix from a grouped table (groups.hpp, unify_tables) when the group of a system is
  // s / systems_per_group, i.e. the group dimensions are the slowest; on the CPU the strips'
  // lanes (the fastest batch dimension) must also stay inside one group. The batch is normalised
  // with a, b, c seen as a marker (stride 0 off the group dimensions) so that no free dimension
  // merges with a group dimension. TRIAX_FACTORED_GROUP_LOOP=1 keeps the group-by-group plans
  // (the tests run both).
  bool make_unified_plan(int axis) {
    const char* loop = std::getenv("TRIAX_FACTORED_GROUP_LOOP");
    if (loop != nullptr && loop[0] == '1') return false;
    const bool thomas = algorithm_ == FactoredAlgorithm::cpu_thomas ||
                        algorithm_ == FactoredAlgorithm::cuda_thread_thomas;
    if (split_.count <= 1 || !thomas || !split_.info_contiguous) return false;
    const Layout& d = layouts_.d;
    std::vector<std::int64_t> extents(d.rank()), strides(d.rank(), 0);
    std::int64_t step = 1;
    for (int k = 0; k < d.rank(); ++k) extents[k] = d.extent(k);
    for (int k : split_.dims) {
      strides[k] = step;
      step *= d.extent(k);
    }
    const Layout marker = Layout::strided(extents, strides);
    const detail::Problem p =
        detail::normalize(OperandLayouts(marker, marker, marker, layouts_.d, layouts_.x), axis);
    if (backend_ == Backend::cpu &&
        (p.batch_rank == 0 || p.map[detail::op_a].batch_strides[0] != 0)) {
      return false;
    }
    std::vector<const detail::FactorTable<T>*> tables;
    for (const Group& g : groups_) tables.push_back(&g.table);
    constexpr std::size_t max_bytes = std::size_t(64) << 20;
    auto unified = detail::unify_tables(tables, split_.systems_per_group, max_bytes);
    if (!unified) return false;
    unified_problem_ = p;
    unified_plan_ = backend_ == Backend::cpu
                        ? detail::make_cpu_factored_plan<T>(p, options_, *unified)
                        : detail::make_cuda_factored_plan<T>(p, options_, *unified);
    return true;
  }

  // An automatic cuda plan of one matrix takes cuda_hybrid where route.hpp says so.
  void route_one_matrix(const std::vector<T>& a, const std::vector<T>& b, const std::vector<T>& c) {
    const detail::FactorTable<T>& table = groups_.front().table;
    detail::HybridRouteFacts facts;
    facts.cuda = backend_ == Backend::cuda;
    facts.automatic = requested_automatic_;
    facts.groups = split_.count;
    facts.checked = options_.checked;
    facts.breakdown = table.breakdown != 0;
    facts.scaled = table.scaled;
    facts.n = problem_.n;
    if (!facts.cuda || !facts.automatic) return;  // (the environment is read for cuda only)
    facts.dominant = detail::interior_dominant(a.data(), b.data(), c.data(), problem_.n);
    if (detail::route_to_hybrid(facts, detail::factored_route_from_env())) {
      algorithm_ = FactoredAlgorithm::cuda_hybrid;
    }
  }

  std::unique_ptr<detail::FactoredBackendPlan<T>> make_plan(const Group& g, const std::vector<T>& a,
                                                            const std::vector<T>& b,
                                                            const std::vector<T>& c) const {
    switch (backend_) {
      case Backend::reference:
        return detail::make_reference_factored_plan<T>(
            g.problem, options_, detail::FactoredMatrix<T>{a, b, c},
            static_cast<int>(is_cr(algorithm_) ? g.cr.layout.breakdown : g.table.breakdown));
      case Backend::cpu:
        return algorithm_ == FactoredAlgorithm::cpu_cr
                   ? detail::make_cpu_factored_cr_plan<T>(g.problem, options_, g.cr)
                   : detail::make_cpu_factored_plan<T>(g.problem, options_, g.table);
      case Backend::cuda:
        if (algorithm_ == FactoredAlgorithm::cuda_hybrid) {
          return detail::make_cuda_factored_hybrid_plan<T>(g.problem, options_, g.table,
                                                           detail::FactoredMatrix<T>{a, b, c});
        }
        return is_cr(algorithm_)
                   ? detail::make_cuda_factored_cr_plan<T>(
                         g.problem, options_, g.cr,
                         algorithm_ == FactoredAlgorithm::cuda_block_cr_global)
                   : detail::make_cuda_factored_plan<T>(g.problem, options_, g.table);
      default:
        throw invalid_argument(std::string(who) + ": backend = " +
                               std::to_string(static_cast<int>(backend_)) + " is not a backend");
    }
  }
};

template <class T>
FactoredSolver<T>::FactoredSolver(Backend backend, const T* a, const T* b, const T* c,
                                  std::int64_t n, const FactoredLayouts& layouts, int axis,
                                  const Options& options, FactoredAlgorithm algorithm)
    : impl_(std::make_unique<Impl>(backend, a, b, c, n, layouts, axis, options, algorithm)) {}
template <class T>
FactoredSolver<T>::FactoredSolver(Backend backend, const T* a, const T* b, const T* c,
                                  const Layout& coefficients, const FactoredLayouts& layouts,
                                  int axis, const Options& options, FactoredAlgorithm algorithm)
    : impl_(std::make_unique<Impl>(backend, a, b, c, coefficients, layouts, axis, options,
                                   algorithm)) {}
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
void FactoredSolver<T>::solve_stencil(const Stencil<T>& B, const T* f, T* x, int* info) {
  detail::live(impl_, Impl::who).run_stencil(B, f, x, info);
}
template <class T>
bool FactoredSolver<T>::fuses_stencil() const {
  return detail::live(impl_, Impl::who).fused_plan() != nullptr;
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
// A grouped plan's figures combine its groups' (factored.hpp says how).
template <class T>
std::int64_t FactoredSolver<T>::stored_rows() const {
  const Impl& impl = detail::live(impl_, Impl::who);
  std::int64_t sum = 0;
  for (const auto& g : impl.groups_) sum += is_cr(impl.algorithm_) ? g.cr.stored() : g.table.view().stored();
  return sum;
}
template <class T>
std::int64_t FactoredSolver<T>::head_rows() const {
  std::int64_t most = 0;
  for (const auto& g : detail::live(impl_, Impl::who).groups_) most = std::max(most, g.table.head);
  return most;
}
template <class T>
std::int64_t FactoredSolver<T>::tail_rows() const {
  std::int64_t most = 0;
  for (const auto& g : detail::live(impl_, Impl::who).groups_) most = std::max(most, g.table.tail);
  return most;
}
template <class T>
bool FactoredSolver<T>::compressed() const {
  const Impl& impl = detail::live(impl_, Impl::who);
  bool all = !impl.groups_.empty();
  for (const auto& g : impl.groups_) all = all && g.table.compressed;
  return all;
}
template <class T>
bool FactoredSolver<T>::scaled() const {
  bool any = false;
  for (const auto& g : detail::live(impl_, Impl::who).groups_) any = any || g.table.scaled;
  return any;
}
template <class T>
std::int64_t FactoredSolver<T>::factor_info() const {
  const Impl& impl = detail::live(impl_, Impl::who);
  for (const auto& g : impl.groups_) {
    const std::int64_t k = is_cr(impl.algorithm_) ? g.cr.layout.breakdown : g.table.breakdown;
    if (k != 0) return k;
  }
  return 0;
}
template <class T>
std::int64_t FactoredSolver<T>::group_count() const {
  return detail::live(impl_, Impl::who).split_.count;
}
template <class T>
std::size_t FactoredSolver<T>::workspace_bytes() const {
  const Impl& impl = detail::live(impl_, Impl::who);
  std::size_t sum = impl.stencil_ws_ ? impl.stencil_ws_->bytes() : 0;
  if (impl.unified_plan_) return sum + impl.unified_plan_->workspace_bytes();
  for (const auto& g : impl.groups_) sum += g.plan->workspace_bytes();
  return sum;
}

template class FactoredSolver<float>;
template class FactoredSolver<double>;

}  // namespace triax
