// The CPU backend's block plan: sizes the per-thread scratch of the lane kernel once and picks
// the instruction set (cpu/isa.hpp, as the scalar plan does; TRIAX_CPU_ISA forces one copy).
#include <cstddef>
#include <vector>

#include "core/block_problem.hpp"
#include "core/omp_threads.hpp"
#include "cpu/batch.hpp"
#include "cpu/block_tridiag/block_batch.hpp"
#include "cpu/isa.hpp"

namespace triax::detail {
namespace {

template <class T>
class CpuBlockPlan final : public BlockBackendPlan<T> {
 public:
  CpuBlockPlan(const BlockProblem& p, const Options& o)
      : threads_(host_threads(o.num_threads)),
        per_thread_(cpu::block_scratch_elements(p.grid.n, p.m)) {
    work_.resize(per_thread_ * threads_);
    entry_ = cpu::pick_kernel(&cpu::solve_block_batch_baseline<T>, &cpu::solve_block_batch_avx2<T>,
                              &cpu::solve_block_batch_avx512<T>);
  }

  void solve(const BlockProblem& p, const Operands<T>& ops) override {
    entry_({&p, ops, threads_, work_.data(), per_thread_});
  }
  BlockAlgorithm algorithm() const override { return BlockAlgorithm::cpu_block_thomas; }
  std::size_t workspace_bytes() const override { return work_.size() * sizeof(T); }

 private:
  int threads_;
  std::size_t per_thread_;
  std::vector<T> work_;
  void (*entry_)(const cpu::BlockBatch<T>&) = nullptr;
};

}  // namespace

template <class T>
std::unique_ptr<BlockBackendPlan<T>> make_cpu_block_plan(const BlockProblem& p, const Options& o) {
  return std::make_unique<CpuBlockPlan<T>>(p, o);
}
template std::unique_ptr<BlockBackendPlan<float>> make_cpu_block_plan(const BlockProblem&,
                                                                      const Options&);
template std::unique_ptr<BlockBackendPlan<double>> make_cpu_block_plan(const BlockProblem&,
                                                                       const Options&);

}  // namespace triax::detail
