// The CPU backend of triax::FactoredSolver: the table of factors, a strip width, per-thread
// scratch sized once, and the lanes kernel (strips.inc: AVX-512, AVX2 or portable copy) over
// OpenMP threads.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "core/factored/factored_plan.hpp"
#include "core/omp_threads.hpp"
#include "cpu/batch.hpp"
#include "cpu/factored/strip_work.hpp"
#include "cpu/isa.hpp"

namespace triax::detail {
namespace {

// The scratch of d' a strip keeps between its passes: within L2 with room for the rows it reads
// (the strip kernel's budget, docs/algorithms.md "Strip kernel").
constexpr std::int64_t strip_budget_bytes = std::int64_t(1) << 20;

template <class T>
class CpuFactoredPlan final : public FactoredBackendPlan<T> {
 public:
  CpuFactoredPlan(const Problem& p, const Options& o, const FactorTable<T>& table)
      : threads_(host_threads(o.num_threads)), table_(table) {
    const std::int64_t e0 = p.batch_rank > 0 ? p.batch_extents[0] : 1;
    const bool lanes_contiguous = p.batch_rank == 0 || (p.map[op_d].batch_strides[0] == 1 &&
                                                        p.map[op_x].batch_strides[0] == 1);
    // Contiguous lanes: wide strips, long runs per row for the prefetcher. Gathered lanes (axis
    // 0): 32 systems, enough independent chains for the vector units, few streams.
    const std::int64_t most = lanes_contiguous ? 512 : 32;
    std::int64_t w = strip_budget_bytes / std::max<std::int64_t>(1, p.n * std::int64_t(sizeof(T)));
    w = std::clamp<std::int64_t>(w, 1, most);
    if (w > 8) w -= w % 8;
    width_ = static_cast<int>(std::max<std::int64_t>(1, std::min(w, e0)));
    e0_ = e0;
    per_thread_ = static_cast<std::size_t>(p.n * width_ + width_);
    work_.resize(per_thread_ * threads_);
    info_.resize(static_cast<std::size_t>(2 * width_ * threads_));
    // The widest copy the processor runs; TRIAX_CPU_ISA forces one (as for the scalar kernels:
    // the tests run every copy the machine has).
    entry_ =
        cpu::pick_kernel(&cpu_factored::run_strips_baseline<T>, &cpu_factored::run_strips_avx2<T>,
                         &cpu_factored::run_strips_avx512<T>);
  }

  void solve(const Problem& p, const FactoredOperands<T>& ops) override {
    const cpu_factored::StripWork<T> sw{threads_, width_, e0_, work_.data(), per_thread_,
                                        info_.data()};
    entry_(p, ops, table_.view(), sw);
  }

  std::size_t workspace_bytes() const override {
    return work_.size() * sizeof(T) + info_.size() * sizeof(int) + table_.rows.size() * sizeof(T);
  }

 private:
  int threads_;
  FactorTable<T> table_;
  int width_ = 1;
  std::int64_t e0_ = 1;
  std::size_t per_thread_ = 0;
  std::vector<T> work_;
  std::vector<int> info_;
  cpu_factored::StripEntry<T> entry_ = nullptr;
};

}  // namespace

template <class T>
std::unique_ptr<FactoredBackendPlan<T>> make_cpu_factored_plan(const Problem& p, const Options& o,
                                                               const FactorTable<T>& table) {
  return std::make_unique<CpuFactoredPlan<T>>(p, o, table);
}
template std::unique_ptr<FactoredBackendPlan<float>> make_cpu_factored_plan(
    const Problem&, const Options&, const FactorTable<float>&);
template std::unique_ptr<FactoredBackendPlan<double>> make_cpu_factored_plan(
    const Problem&, const Options&, const FactorTable<double>&);

}  // namespace triax::detail
