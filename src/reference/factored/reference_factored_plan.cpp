// The reference backend of triax::FactoredSolver: every system solved by Thomas in long double
// from the matrix as the caller gave it (not from the compressed factors the other backends
// read), so that comparing against it tests the factoring and the compression too.
#include <cmath>
#include <limits>
#include <vector>

#include "core/batch_loop.hpp"
#include "core/factored/factored_plan.hpp"
#include "core/omp_threads.hpp"

namespace triax::detail {
namespace {

template <class T>
class ReferenceFactoredPlan final : public FactoredBackendPlan<T> {
 public:
  ReferenceFactoredPlan(const Problem& p, const Options& o, const FactoredMatrix<T>& m,
                        int plan_breakdown)
      : threads_(host_threads(o.num_threads)), n_(p.n) {
    a_.assign(m.a.begin(), m.a.end());
    b_.assign(m.b.begin(), m.b.end());
    c_.assign(m.c.begin(), m.c.end());
    cp_.resize(static_cast<std::size_t>(n_));
    r_.resize(static_cast<std::size_t>(n_));
    // The pivots do not depend on the right-hand side: once, in long double.
    long double cp_prev = 0;
    for (std::int64_t i = 0; i < n_; ++i) {
      long double m_i = b_[i];
      if (i > 0) m_i -= a_[i] * cp_prev;
      const long double cp = i + 1 < n_ ? c_[i] / m_i : 0.0L;
      const bool bad = m_i == 0.0L || !std::isfinite(m_i) || !std::isfinite(static_cast<T>(cp));
      if (bad && breakdown_ == 0) breakdown_ = static_cast<int>(i + 1);
      r_[i] = 1.0L / m_i;
      cp_[i] = cp;
      cp_prev = cp;
    }
    // Pivots more than T's range apart are a breakdown of the T factors only: honoured here too.
    if (breakdown_ == 0) breakdown_ = plan_breakdown;
    work_.resize(static_cast<std::size_t>(n_ * threads_));
  }

  void solve(const Problem& p, const FactoredOperands<T>& ops) override {
    for_each_item(p.count, threads_, [&](std::int64_t s, int t) { solve_one(p, ops, s, t); });
  }

  std::size_t workspace_bytes() const override {
    return work_.size() * sizeof(long double) + 5 * cp_.size() * sizeof(long double);
  }

 private:
  void solve_one(const Problem& p, const FactoredOperands<T>& ops, std::int64_t s, int t) {
    long double* dp = work_.data() + t * n_;
    const T* d = ops.d + p.system_offset(op_d, s);
    T* x = ops.x + p.system_offset(op_x, s);
    const std::int64_t rd = p.map[op_d].row_stride, rx = p.map[op_x].row_stride;
    int forward = 0, backward = 0;
    for (std::int64_t i = 0; i < n_; ++i) {
      long double v = static_cast<long double>(d[i * rd]);
      if (i > 0) v -= a_[i] * dp[i - 1];
      dp[i] = v * r_[i];
      if (forward == 0 && !std::isfinite(dp[i])) forward = static_cast<int>(i + 1);
    }
    // x over d' (in place d is read completely before anything is stored).
    for (std::int64_t i = n_ - 1; i >= 0; --i) {
      if (i + 1 < n_) dp[i] -= cp_[i] * dp[i + 1];
    }
    const T nan = std::numeric_limits<T>::quiet_NaN();
    for (std::int64_t i = n_ - 1; i >= 0; --i) {
      // A broken factorisation makes every x NaN (triax/factored.hpp).
      const T xi = breakdown_ != 0 ? nan : static_cast<T>(dp[i]);
      const T v = ops.accumulate ? static_cast<T>(x[i * rx] + xi) : xi;
      x[i * rx] = v;
      if (backward == 0 && !std::isfinite(v)) backward = static_cast<int>(i + 1);
    }
    if (ops.info != nullptr) ops.info[s] = breakdown_ != 0 ? breakdown_ : forward != 0 ? forward : backward;
  }

  int threads_;
  std::int64_t n_;
  std::vector<long double> a_, b_, c_, cp_, r_;
  std::vector<long double> work_;
  int breakdown_ = 0;
};

}  // namespace

template <class T>
std::unique_ptr<FactoredBackendPlan<T>> make_reference_factored_plan(const Problem& p,
                                                                     const Options& o,
                                                                     const FactoredMatrix<T>& m,
                                                                     int plan_breakdown) {
  return std::make_unique<ReferenceFactoredPlan<T>>(p, o, m, plan_breakdown);
}
template std::unique_ptr<FactoredBackendPlan<float>> make_reference_factored_plan(
    const Problem&, const Options&, const FactoredMatrix<float>&, int);
template std::unique_ptr<FactoredBackendPlan<double>> make_reference_factored_plan(
    const Problem&, const Options&, const FactoredMatrix<double>&, int);

}  // namespace triax::detail
