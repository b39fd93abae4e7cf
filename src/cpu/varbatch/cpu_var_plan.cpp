// The CPU backend of a variable-size batch: one thread per system, Thomas in T. Load balance is
// decided once, at plan time: the systems, in their order, are cut into one contiguous share per
// OpenMP thread with equal rows (split_by_rows), so that a heavy-tailed batch (lengths 8 to
// 65536) does not leave the thread with the long systems running alone; each thread walks its
// share in memory order, which back to back is one forward stream.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/batch_loop.hpp"
#include "core/omp_threads.hpp"
#include "core/var_problem.hpp"

namespace triax::detail {
namespace {

// One system of n >= 1 rows: c' and d' in w (2n values), then x. Checked mode's info as the
// reference backend gives it (Options::checked): the first row whose pivot or d' breaks down,
// else the last row whose stored value is not finite.
template <class T>
int thomas(const T* a, const T* b, const T* c, const T* d, T* x, std::int64_t sa, std::int64_t sb,
           std::int64_t sc, std::int64_t sd, std::int64_t sx, std::int64_t n, bool accumulate,
           bool checked, T* w) {
  T* cp = w;
  T* dp = w + n;
  int info = 0;
  T c_prev = 0, d_prev = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const T ai = i > 0 ? a[i * sa] : T(0);
    const T ci = i + 1 < n ? c[i * sc] : T(0);
    const T m = b[i * sb] - ai * c_prev;
    // (m - m) is NaN exactly when m is not finite: an infinite pivot must not give a finite x.
    c_prev = ci / m;
    d_prev = (d[i * sd] - ai * d_prev + (m - m)) / m;
    cp[i] = c_prev;
    dp[i] = d_prev;
    if (checked && info == 0 && !(m != T(0) && std::isfinite(m) && std::isfinite(d_prev))) {
      info = static_cast<int>(i + 1);
    }
  }
  T next = 0;
  int bad = 0;
  for (std::int64_t i = n - 1; i >= 0; --i) {
    next = dp[i] - cp[i] * next;
    T& out = x[i * sx];
    out = accumulate ? out + next : next;
    if (checked && bad == 0 && !std::isfinite(out)) bad = static_cast<int>(i + 1);
  }
  return info != 0 ? info : bad;
}

template <class T>
class CpuVarPlan final : public VarBackendPlan<T> {
 public:
  CpuVarPlan(const VarLayout::Data& layout, const Options& options)
      : layout_(layout), threads_(host_threads(options.num_threads)) {
    const auto count = static_cast<std::int64_t>(layout.lengths.size());
    threads_ = static_cast<int>(std::clamp<std::int64_t>(count, 1, threads_));
    bounds_ = split_by_rows(layout.lengths, threads_);
    per_thread_ = 2 * std::max<std::int64_t>(layout.max_length, 1);
    work_.resize(static_cast<std::size_t>(per_thread_ * threads_));
  }

  void solve(const Problem& p, const Operands<T>& ops) override {
    solve_lengths(p, ops, layout_.lengths.data(), false);
  }
  bool takes_solve_lengths() const override { return true; }

  // Per-solve lengths (at most the layout's longest: the workspace's bound) keep the shares cut
  // for the layout's lengths: correct, balanced as far as the lengths resemble them.
  void solve_lengths(const Problem& p, const Operands<T>& ops, const std::int64_t* lengths,
                     bool) override {
    const std::int64_t sa = layout_.row_stride(p, op_a), sb = layout_.row_stride(p, op_b),
                       sc = layout_.row_stride(p, op_c), sd = layout_.row_stride(p, op_d),
                       sx = layout_.row_stride(p, op_x);
    for_each_item(threads_, threads_, [&](std::int64_t t, int) {
      T* w = work_.data() + per_thread_ * t;
      for (std::int64_t s = bounds_[t]; s < bounds_[t + 1]; ++s) {
        const std::int64_t n = lengths[s];
        int info = 0;
        if (n > 0) {
          info = thomas(ops.a + layout_.system_offset(p, op_a, s),
                        ops.b + layout_.system_offset(p, op_b, s),
                        ops.c + layout_.system_offset(p, op_c, s),
                        ops.d + layout_.system_offset(p, op_d, s),
                        ops.x + layout_.system_offset(p, op_x, s), sa, sb, sc, sd, sx, n,
                        ops.accumulate, ops.info != nullptr, w);
        }
        if (ops.info != nullptr) ops.info[s] = info;
      }
    });
  }

  std::size_t workspace_bytes() const override { return work_.size() * sizeof(T); }

 private:
  const VarLayout::Data& layout_;  // owned by the VarSolver, which outlives this plan
  int threads_;
  std::vector<std::int64_t> bounds_;
  std::int64_t per_thread_ = 0;
  std::vector<T> work_;
};

}  // namespace

template <class T>
std::unique_ptr<VarBackendPlan<T>> make_cpu_var_plan(const VarLayout::Data& layout,
                                                     const Options& options) {
  return std::make_unique<CpuVarPlan<T>>(layout, options);
}
template std::unique_ptr<VarBackendPlan<float>> make_cpu_var_plan(const VarLayout::Data&,
                                                                  const Options&);
template std::unique_ptr<VarBackendPlan<double>> make_cpu_var_plan(const VarLayout::Data&,
                                                                   const Options&);

}  // namespace triax::detail
