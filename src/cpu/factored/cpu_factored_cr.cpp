// The CPU form of paper 004's near-Toeplitz cyclic reduction (FactoredAlgorithm::cpu_cr): one
// system at a time, copied into a scratch row, reduced and substituted back level by level with
// the precomputed coefficients (core/factored/cr_table.hpp), and written out. Written for
// clarity: it is the readable statement of the algorithm the CUDA kernels run, and the oracle
// for their arithmetic; the strip kernels (cpu_thomas) are the fast CPU path.
#include <cmath>
#include <vector>

#include "core/batch_loop.hpp"
#include "core/factored/cr_table.hpp"
#include "core/factored/factored_plan.hpp"
#include "core/omp_threads.hpp"

namespace triax::detail {
namespace {

/// Forward reduction and back substitution of one system held in w[0..n) (d in, x out).
template <class T>
void cr_solve_in_place(const CrView<T>& v, T* w) {
  const std::int64_t n = v.n;
  // Forward: level l's kept rows take in their even neighbours (paper 004, eq. 9).
  for (int l = 0; l + 1 < v.levels; ++l) {
    const std::int64_t m = CrView<T>::rows(n, l);
    for (std::int64_t i = 1; i < m; i += 2) {
      const T* k = v.kept_entry(l, i / 2);
      T di = w[CrView<T>::slot(i, l)] - k[0] * w[CrView<T>::slot(i - 1, l)];
      if (i + 1 < m) di -= k[1] * w[CrView<T>::slot(i + 1, l)];
      w[CrView<T>::slot(i, l)] = di;
    }
  }
  // Backward: from the one-row level down, every even row from its solved odd neighbours (eq. 10).
  for (int l = v.levels - 1; l >= 0; --l) {
    const std::int64_t m = CrView<T>::rows(n, l);
    for (std::int64_t i = 0; i < m; i += 2) {
      const T* e = v.eliminated_entry(l, i / 2);
      T xi = w[CrView<T>::slot(i, l)] * e[0];
      if (i > 0) xi -= e[1] * w[CrView<T>::slot(i - 1, l)];
      if (i + 1 < m) xi -= e[2] * w[CrView<T>::slot(i + 1, l)];
      w[CrView<T>::slot(i, l)] = xi;
    }
  }
}

template <class T>
class CpuFactoredCrPlan final : public FactoredBackendPlan<T> {
 public:
  CpuFactoredCrPlan(const Problem& p, const Options& o, const CrTable<T>& table)
      : threads_(host_threads(o.num_threads)),
        n_(p.n),
        table_(table),
        work_(static_cast<std::size_t>(p.n * threads_)) {}

  void solve(const Problem& p, const FactoredOperands<T>& ops) override {
    const CrView<T> v = table_.view();
    for_each_item(p.count, threads_, [&](std::int64_t s, int t) { solve_one(p, ops, v, s, t); });
  }

  std::size_t workspace_bytes() const override {
    return (work_.size() + table_.entries.size()) * sizeof(T);
  }

 private:
  void solve_one(const Problem& p, const FactoredOperands<T>& ops, const CrView<T>& v,
                 std::int64_t s, int t) {
    T* w = work_.data() + t * n_;
    const T* d = ops.d + p.system_offset(op_d, s);
    T* x = ops.x + p.system_offset(op_x, s);
    const std::int64_t rd = p.map[op_d].row_stride, rx = p.map[op_x].row_stride;
    // Checked mode: the first row whose d is not finite (where a Thomas forward pass would
    // first see a non-finite d'), else the first non-finite x (an overflow), else 0.
    int first = 0, last = 0;
    for (std::int64_t i = 0; i < n_; ++i) {
      const T di = d[i * rd];
      if (first == 0 && !std::isfinite(di)) first = static_cast<int>(i + 1);
      w[i] = v.scaled ? (di * v.scale[0]) * v.scale[1] : di;
    }
    cr_solve_in_place(v, w);
    for (std::int64_t i = 0; i < n_; ++i) {
      const T out = ops.accumulate ? x[i * rx] + w[i] : w[i];
      x[i * rx] = out;
      if (last == 0 && !std::isfinite(out)) last = static_cast<int>(i + 1);
    }
    if (ops.info != nullptr)
      ops.info[s] = v.breakdown != 0 ? v.breakdown : first != 0 ? first : last;
  }

  int threads_;
  std::int64_t n_;
  CrTable<T> table_;
  std::vector<T> work_;
};

}  // namespace

template <class T>
std::unique_ptr<FactoredBackendPlan<T>> make_cpu_factored_cr_plan(const Problem& p,
                                                                  const Options& o,
                                                                  const CrTable<T>& table) {
  return std::make_unique<CpuFactoredCrPlan<T>>(p, o, table);
}
template std::unique_ptr<FactoredBackendPlan<float>> make_cpu_factored_cr_plan(
    const Problem&, const Options&, const CrTable<float>&);
template std::unique_ptr<FactoredBackendPlan<double>> make_cpu_factored_cr_plan(
    const Problem&, const Options&, const CrTable<double>&);

}  // namespace triax::detail
