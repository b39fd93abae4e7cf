// The reference backend, the oracle every other backend is tested against: plain loops over
// one system at a time, no tricks. Thomas accumulates in long double; dense Gaussian
// elimination with partial pivoting is there for small n, where it also solves systems that
// need pivoting.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/backend_plan.hpp"
#include "core/omp_threads.hpp"
#include "core/batch_loop.hpp"
#include "triax/errors.hpp"

namespace triax::detail {
namespace {

using Wide = long double;

inline bool usable_pivot(Wide m) { return std::isfinite(m) && m != 0; }

// One system's strided view.
template <class T>
struct SystemView {
  const T *a, *b, *c, *d;
  T* x;
  std::int64_t sa, sb, sc, sd, sx;  // row strides
};

template <class T>
SystemView<T> view_of(const Problem& p, const Operands<T>& ops, std::int64_t s) {
  return {ops.a + p.system_offset(op_a, s), ops.b + p.system_offset(op_b, s),
          ops.c + p.system_offset(op_c, s), ops.d + p.system_offset(op_d, s),
          ops.x + p.system_offset(op_x, s), p.map[op_a].row_stride, p.map[op_b].row_stride,
          p.map[op_c].row_stride, p.map[op_d].row_stride, p.map[op_x].row_stride};
}

// Writes the solution (stored or added); returns the last row whose solution is non-finite + 1,
// or 0.
template <class T>
int store(const SystemView<T>& v, const Wide* sol, std::int64_t n, bool accumulate) {
  int bad = 0;
  for (std::int64_t i = n - 1; i >= 0; --i) {
    T& out = v.x[i * v.sx];
    const Wide value = accumulate ? static_cast<Wide>(out) + sol[i] : sol[i];
    out = static_cast<T>(value);
    if (bad == 0 && !std::isfinite(out)) bad = static_cast<int>(i + 1);
  }
  return bad;
}

// Thomas in long double; returns the LAPACK-style info.
template <class T>
int thomas(const SystemView<T>& v, std::int64_t n, Wide* cp, Wide* dp, bool accumulate) {
  int info = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const Wide a = i > 0 ? static_cast<Wide>(v.a[i * v.sa]) : 0;
    const Wide c = i + 1 < n ? static_cast<Wide>(v.c[i * v.sc]) : 0;
    const Wide m = static_cast<Wide>(v.b[i * v.sb]) - (i > 0 ? a * cp[i - 1] : 0);
    cp[i] = c / m;
    // (m - m) is NaN exactly when m is not finite: an infinite pivot would give c' = d' = 0 and
    // a finite x; this makes the breakdown show in x as the CPU kernels do (thomas_lanes.hpp).
    dp[i] = (static_cast<Wide>(v.d[i * v.sd]) - (i > 0 ? a * dp[i - 1] : 0) + (m - m)) / m;
    if (info == 0 && !(usable_pivot(m) && std::isfinite(dp[i]))) info = static_cast<int>(i + 1);
  }
  for (std::int64_t i = n - 2; i >= 0; --i) dp[i] -= cp[i] * dp[i + 1];
  const int bad = store(v, dp, n, accumulate);
  return info != 0 ? info : bad;
}

// Dense Gaussian elimination with partial pivoting on the n x n matrix (row-major in m).
template <class T>
int dense_lu(const SystemView<T>& v, std::int64_t n, Wide* m, Wide* rhs, bool accumulate) {
  for (std::int64_t i = 0; i < n * n; ++i) m[i] = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (i > 0) m[i * n + i - 1] = v.a[i * v.sa];
    m[i * n + i] = v.b[i * v.sb];
    if (i + 1 < n) m[i * n + i + 1] = v.c[i * v.sc];
    rhs[i] = v.d[i * v.sd];
  }
  int info = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    std::int64_t p = k;
    for (std::int64_t r = k + 1; r < n; ++r) {
      if (std::fabs(m[r * n + k]) > std::fabs(m[p * n + k])) p = r;
    }
    if (!usable_pivot(m[p * n + k])) {
      if (info == 0) info = static_cast<int>(k + 1);
      continue;
    }
    if (p != k) {
      for (std::int64_t j = 0; j < n; ++j) std::swap(m[k * n + j], m[p * n + j]);
      std::swap(rhs[k], rhs[p]);
    }
    // Row k's right-hand side is final here: the first one that is not finite is the breakdown
    // row, as in Thomas' forward pass (options.hpp, `checked`), not the last bad row of x.
    if (info == 0 && !std::isfinite(rhs[k])) info = static_cast<int>(k + 1);
    for (std::int64_t r = k + 1; r < n; ++r) {
      const Wide f = m[r * n + k] / m[k * n + k];
      if (f == 0) continue;
      for (std::int64_t j = k; j < n; ++j) m[r * n + j] -= f * m[k * n + j];
      rhs[r] -= f * rhs[k];
    }
  }
  for (std::int64_t i = n - 1; i >= 0; --i) {
    Wide s = rhs[i];
    for (std::int64_t j = i + 1; j < n; ++j) s -= m[i * n + j] * rhs[j];
    // As in thomas(): a non-finite pivot must not give a finite x.
    const Wide pivot = m[i * n + i];
    rhs[i] = (s + (pivot - pivot)) / pivot;
  }
  const int bad = store(v, rhs, n, accumulate);
  return info != 0 ? info : bad;
}

constexpr std::int64_t dense_limit = 1024;

template <class T>
class ReferencePlan final : public BackendPlan<T> {
 public:
  ReferencePlan(const Problem& p, const Options& o) : threads_(host_threads(o.num_threads)) {
    algorithm_ = o.algorithm == Algorithm::automatic ? Algorithm::reference_thomas : o.algorithm;
    if (algorithm_ != Algorithm::reference_thomas && algorithm_ != Algorithm::reference_dense_lu) {
      throw invalid_argument("triax::Solver: algorithm " + std::string(to_string(algorithm_)) +
                             " does not belong to the reference backend");
    }
    if (algorithm_ == Algorithm::reference_dense_lu && p.n > dense_limit) {
      throw invalid_argument("triax::Solver: reference_dense_lu handles n <= " +
                             std::to_string(dense_limit) + ", but n = " + std::to_string(p.n));
    }
    // 2n (Thomas) or n^2 + n (dense LU, n <= dense_limit) values per thread, in arithmetic that
    // cannot wrap: n near 2^62 made 2n * threads overflow into a workspace of a few values.
    const std::int64_t limit = static_cast<std::int64_t>(
        std::min<std::size_t>(std::numeric_limits<std::int64_t>::max(),
                              std::vector<Wide>().max_size()));
    const std::int64_t per_thread_max = limit / 2 / threads_ - 1;
    if (p.n > per_thread_max) {
      throw invalid_argument("triax::Solver: n = " + std::to_string(p.n) +
                             " needs a reference workspace larger than memory can address");
    }
    per_thread_ = algorithm_ == Algorithm::reference_thomas ? 2 * p.n : p.n * p.n + p.n;
    work_.resize(static_cast<std::size_t>(per_thread_ * threads_));
  }

  void solve(const Problem& p, const Operands<T>& ops) override {
    const std::int64_t n = p.n;
    for_each_item(p.count, threads_, [&](std::int64_t s, int t) {
      Wide* w = work_.data() + per_thread_ * t;
      const SystemView<T> v = view_of(p, ops, s);
      const int info = algorithm_ == Algorithm::reference_thomas
                           ? thomas(v, n, w, w + n, ops.accumulate)
                           : dense_lu(v, n, w, w + n * n, ops.accumulate);
      if (ops.info != nullptr) ops.info[s] = info;
    });
  }

  Algorithm algorithm() const override { return algorithm_; }
  std::size_t workspace_bytes() const override { return work_.size() * sizeof(Wide); }

 private:
  int threads_;
  Algorithm algorithm_;
  std::int64_t per_thread_ = 0;
  std::vector<Wide> work_;
};

}  // namespace

template <class T>
std::unique_ptr<BackendPlan<T>> make_reference_plan(const Problem& p, const Options& o) {
  return std::make_unique<ReferencePlan<T>>(p, o);
}
template std::unique_ptr<BackendPlan<float>> make_reference_plan(const Problem&, const Options&);
template std::unique_ptr<BackendPlan<double>> make_reference_plan(const Problem&,
                                                                  const Options&);

}  // namespace triax::detail
