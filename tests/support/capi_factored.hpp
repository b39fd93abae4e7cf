#pragma once
// The factored plan's C API (triax_factored_*, include/triax/triax.h) seen from the C++ suites:
// CFactoredPlan<T> wraps a C plan behind triax::FactoredSolver's entry points (a failed status
// throws with triax_last_error()), so the suites' runners and oracles take it unchanged; and
// check_capi_matches_cpp, which runs the C API and the C++ plan on identical inputs and asks for
// identical bits (the C API is a shell: same factors, same kernels), NaN and info included.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "support/factored_cases.hpp"
#include "support/factored_stencil.hpp"
#include "triax/triax.h"

namespace triax::test {

inline triax_layout to_c_layout(const Layout& l) {
  triax_layout c{};
  c.rank = l.rank();
  for (int k = 0; k < l.rank(); ++k) {
    c.extents[k] = l.extent(k);
    c.strides[k] = l.stride(k);
  }
  c.offset = l.offset();
  return c;
}

inline void c_ok(triax_status s) {
  if (s != TRIAX_SUCCESS) throw std::runtime_error(std::string("C API: ") + triax_last_error());
}

/// A C factored plan with FactoredSolver<T>'s solve signatures.
template <class T>
class CFactoredPlan {
  static constexpr bool is_double = std::is_same_v<T, double>;
  using CStencil = std::conditional_t<is_double, triax_stencil_d, triax_stencil_f>;

 public:
  /// One matrix (coefficients null) or one per group (a, b, c laid out by *coefficients).
  CFactoredPlan(Backend backend, const T* a, const T* b, const T* c, std::int64_t n,
                const FactoredLayouts& layouts, int axis, const Options& o = {},
                FactoredAlgorithm algorithm = FactoredAlgorithm::automatic,
                const Layout* coefficients = nullptr) {
    const triax_layout ld = to_c_layout(layouts.d), lx = to_c_layout(layouts.x);
    const triax_options opt{static_cast<int>(o.algorithm), o.checked ? 1 : 0, o.stream,
                            o.num_threads};
    const auto be = static_cast<triax_backend>(backend);
    const int alg = static_cast<int>(algorithm);
    if (coefficients != nullptr) {
      const triax_layout lc = to_c_layout(*coefficients);
      if constexpr (is_double) {
        c_ok(triax_factored_plan_create_groups_d(&plan_, be, a, b, c, &lc, &ld, &lx, axis, &opt, alg));
      } else {
        c_ok(triax_factored_plan_create_groups_f(&plan_, be, a, b, c, &lc, &ld, &lx, axis, &opt, alg));
      }
    } else if constexpr (is_double) {
      c_ok(triax_factored_plan_create_d(&plan_, be, a, b, c, n, &ld, &lx, axis, &opt, alg));
    } else {
      c_ok(triax_factored_plan_create_f(&plan_, be, a, b, c, n, &ld, &lx, axis, &opt, alg));
    }
  }
  ~CFactoredPlan() { triax_factored_plan_destroy(plan_); }
  CFactoredPlan(const CFactoredPlan&) = delete;
  CFactoredPlan& operator=(const CFactoredPlan&) = delete;

  void solve_in_place(T* d, int* info = nullptr) {
    if constexpr (is_double) c_ok(triax_factored_solve_in_place_d(plan_, d, info));
    else c_ok(triax_factored_solve_in_place_f(plan_, d, info));
  }
  void solve(const T* d, T* x, int* info = nullptr) {
    if constexpr (is_double) c_ok(triax_factored_solve_d(plan_, d, x, info));
    else c_ok(triax_factored_solve_f(plan_, d, x, info));
  }
  void solve_increment(const T* d, T* u, int* info = nullptr) {
    if constexpr (is_double) c_ok(triax_factored_solve_increment_d(plan_, d, u, info));
    else c_ok(triax_factored_solve_increment_f(plan_, d, u, info));
  }
  void solve_stencil(const Stencil<T>& B, const T* f, T* x, int* info = nullptr) {
    CStencil s;
    static_assert(sizeof(s) == sizeof(B), "the C stencil holds the same 25 weights");
    std::memcpy(&s, &B, sizeof(s));
    if constexpr (is_double) c_ok(triax_factored_solve_stencil_d(plan_, &s, f, x, info));
    else c_ok(triax_factored_solve_stencil_f(plan_, &s, f, x, info));
  }
  triax_factored_plan_properties properties() const {
    triax_factored_plan_properties p{};
    c_ok(triax_factored_plan_query(plan_, &p));
    return p;
  }
  bool fuses_stencil() const { return triax_factored_plan_fuses_stencil(plan_) != 0; }
  std::int64_t system_count() const { return triax_factored_plan_system_count(plan_); }

 private:
  triax_factored_plan* plan_ = nullptr;
};

/// A solve mode of the bit-for-bit comparison: the three of Mode, and solve_stencil.
enum class CMode { in_place, separate, increment, stencil };

/// Calls the entry point of `mode` on either plan (x unused in place).
template <class Plan, class T>
void solve_cmode(Plan& s, CMode mode, const Stencil<T>& B, T* d, T* x, int* info) {
  switch (mode) {
    case CMode::in_place: s.solve_in_place(d, info); break;
    case CMode::separate: s.solve(d, x, info); break;
    case CMode::increment: s.solve_increment(d, x, info); break;
    case CMode::stencil: s.solve_stencil(B, d, x, info); break;
  }
}

/// Runs `solve(d, x, info)` with d, x and info in the backend's memory: host buffers as they
/// are, or device copies (cuda suites) copied back. Host suites pass host_memory.
template <class T>
using MemoryRunner = std::function<void(std::vector<T>& d, std::vector<T>& x,
                                        std::vector<int>& info,
                                        const std::function<void(T*, T*, int*)>& solve)>;

template <class T>
void host_memory(std::vector<T>& d, std::vector<T>& x, std::vector<int>& info,
                 const std::function<void(T*, T*, int*)>& solve) {
  solve(d.data(), x.data(), info.data());
}

/// The matrices of the bit-for-bit comparison: factored_matrices(n), a breakdown (zero pivot at
/// row n/2: NaN everywhere, info n/2 + 1) and one scaled near the bottom of T's range.
template <class T>
std::vector<FactoredMatrixCase<T>> capi_matrices(std::int64_t n) {
  auto all = factored_matrices<T>(n, quick_mode());
  if (n >= 2) {
    auto broken = toeplitz<T>("breakdown", n, 0.25, 1.0, 0.25, 3.0);
    broken.a[n / 2] = T(0);
    broken.b[n / 2] = T(0);
    all.push_back(broken);
  }
  all.push_back(scaled_matrix(toeplitz<T>("scaled", n, 0.25, 1.0, 0.25, 3.0), low_exponent<T>()));
  return all;
}

/// For each matrix, grid, algorithm, mode and checked flag: the C API's plan and the C++ plan
/// on the same inputs (outputs poisoned with NaN, padding -7.5; info -1) give the same bytes in
/// d, x and info, and the same properties.
template <class T>
void check_capi_matches_cpp(Backend backend, std::int64_t n,
                            const std::vector<FactoredAlgorithm>& algorithms,
                            const std::vector<Options>& options, const MemoryRunner<T>& memory) {
  const Stencil<T> B = random_stencil<T>(test_seed(n) + 1);
  for (const auto& m : capi_matrices<T>(n)) {
    for (const auto& g : factored_grids(n, true)) {
      for (FactoredAlgorithm algorithm : algorithms) {
        for (const Options& o : options) {
          for (CMode mode : {CMode::in_place, CMode::separate, CMode::increment, CMode::stencil}) {
            SCOPED_TRACE(m.name + " " + g.name + " n=" + std::to_string(n) + " " +
                         std::string(to_string(algorithm)) + " mode " +
                         std::to_string(static_cast<int>(mode)) + (o.checked ? " checked" : ""));
            const std::int64_t count = n == 0 ? 0 : g.layouts.d.size() / n;
            std::vector<T> d(buffer_size(g.layouts.d), T(-7.5)), x(buffer_size(g.layouts.x), T(-7.5));
            std::mt19937_64 gen(test_seed(n) + static_cast<int>(mode));
            std::uniform_real_distribution<double> u(-1, 1);
            for_each_offset(g.layouts.d, [&](std::int64_t o) { d[o] = T(u(gen)); });
            for_each_offset(g.layouts.x, [&](std::int64_t o) {
              x[o] = mode == CMode::increment ? T(u(gen)) : std::numeric_limits<T>::quiet_NaN();
            });
            std::vector<T> d_c = d, x_c = x;
            std::vector<int> info(std::max<std::int64_t>(1, count), -1), info_c = info;
            const std::int64_t rows = static_cast<std::int64_t>(m.b.size());
            FactoredSolver<T> cpp(backend, m.a.data(), m.b.data(), m.c.data(), rows, g.layouts,
                                  g.axis, o, algorithm);
            CFactoredPlan<T> c(backend, m.a.data(), m.b.data(), m.c.data(), rows, g.layouts,
                               g.axis, o, algorithm);
            memory(d, x, info, [&](T* dp, T* xp, int* ip) {
              solve_cmode(cpp, mode, B, dp, xp, o.checked ? ip : nullptr);
            });
            memory(d_c, x_c, info_c, [&](T* dp, T* xp, int* ip) {
              solve_cmode(c, mode, B, dp, xp, o.checked ? ip : nullptr);
            });
            ASSERT_EQ(std::memcmp(d.data(), d_c.data(), d.size() * sizeof(T)), 0) << "d differs";
            ASSERT_EQ(std::memcmp(x.data(), x_c.data(), x.size() * sizeof(T)), 0) << "x differs";
            ASSERT_EQ(info, info_c);
            const auto p = c.properties();
            ASSERT_EQ(p.algorithm, static_cast<int>(cpp.algorithm()));
            ASSERT_EQ(p.factor_info, cpp.factor_info());
            ASSERT_EQ(p.stored_rows, cpp.stored_rows());
            ASSERT_EQ(p.head_rows, cpp.head_rows());
            ASSERT_EQ(p.tail_rows, cpp.tail_rows());
            ASSERT_EQ(p.compressed != 0, cpp.compressed());
            ASSERT_EQ(p.scaled != 0, cpp.scaled());
            ASSERT_EQ(p.system_count, cpp.system_count());
            ASSERT_EQ(p.system_length, cpp.system_length());
            ASSERT_EQ(p.group_count, cpp.group_count());
            ASSERT_EQ(p.fuses_stencil != 0, cpp.fuses_stencil());
            ASSERT_EQ(c.fuses_stencil(), cpp.fuses_stencil());
            ASSERT_EQ(static_cast<std::size_t>(p.workspace_bytes), cpp.workspace_bytes());
          }
        }
      }
    }
  }
}

/// A StencilRunner (support/factored_stencil.hpp) through the C API, for the oracle comparison.
template <class T>
StencilRunner<T> capi_stencil_runner(Backend backend, const MemoryRunner<T>& memory,
                                     const Options& o = {}) {
  return [=](const FactoredMatrixCase<T>& m, const FactoredGrid& g, const Stencil<T>& B,
             const std::vector<T>& f, std::vector<T>& x) {
    CFactoredPlan<T> c(backend, m.a.data(), m.b.data(), m.c.data(),
                       static_cast<std::int64_t>(m.b.size()), g.layouts, g.axis, o);
    std::vector<T> fc = f;
    std::vector<int> info(1);
    memory(fc, x, info, [&](T* fp, T* xp, int*) { c.solve_stencil(B, fp, xp); });
  };
}

/// A FactoredRunner (support/factored_cases.hpp) through the C API.
template <class T>
FactoredRunner<T> capi_factored_runner(Backend backend, const MemoryRunner<T>& memory,
                                       const Options& o = {}) {
  return per_call_runner<T>([=](const FactoredMatrixCase<T>& m, const FactoredGrid& g, Mode mode,
                                std::vector<T>& d, std::vector<T>& x) {
    CFactoredPlan<T> c(backend, m.a.data(), m.b.data(), m.c.data(),
                       static_cast<std::int64_t>(m.b.size()), g.layouts, g.axis, o);
    std::vector<int> info(1);
    memory(d, x, info, [&](T* dp, T* xp, int*) { solve_in_mode(c, mode, std::tuple(), dp, xp); });
  });
}

}  // namespace triax::test
