// The CPU cyclic plan: one system at a time per OpenMP thread, each copied into the thread's
// scratch (rows with a[0] = c[n-1] = 0), solved there (cyclic_system.hpp) and written out in the
// solve's mode. The scratch of every thread is allocated here, none in solve.
#include "cpu/cyclic/cyclic_plan.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/batch_loop.hpp"
#include "core/cyclic_variants.hpp"
#include "core/omp_threads.hpp"
#include "cpu/cyclic/cyclic_system.hpp"
#include "triax/errors.hpp"

namespace triax::detail {
namespace {

template <class T>
class CpuCyclicPlan final : public BackendPlan<T> {
 public:
  CpuCyclicPlan(const Problem& p, const Options& o)
      : threads_(host_threads(o.num_threads)),
        algorithm_(o.algorithm),
        variant_(*cyclic::variant_of(o.algorithm)) {
    const std::size_t limit = std::numeric_limits<std::size_t>::max() / 2 / threads_;
    const std::size_t per_system_bytes =
        cpu::cyclic::Scratch<T>::bytes(1) * 2;  // bytes(n) <= n * this
    if (static_cast<std::size_t>(p.n) > limit / per_system_bytes) {
      throw invalid_argument("triax::Solver: n = " + std::to_string(p.n) + " needs a " +
                             std::string(to_string(algorithm_)) +
                             " workspace larger than memory can address");
    }
    per_thread_bytes_ = aligned(cpu::cyclic::Scratch<T>::bytes(p.n));
    // Bytes as max-aligned blocks, so that every part of the scratch is aligned for its type.
    work_.resize(per_thread_bytes_ / sizeof(Block) * threads_);
  }

  void solve(const Problem& p, const Operands<T>& ops) override {
    if (ops.accumulate) {
      ops.info ? run<true, true>(p, ops) : run<true, false>(p, ops);
    } else {
      ops.info ? run<false, true>(p, ops) : run<false, false>(p, ops);
    }
  }

  Algorithm algorithm() const override { return algorithm_; }
  std::size_t workspace_bytes() const override { return work_.size() * sizeof(Block); }

 private:
  using Block = std::max_align_t;
  static std::size_t aligned(std::size_t bytes) {
    return (bytes + sizeof(Block) - 1) / sizeof(Block) * sizeof(Block);
  }

  cpu::cyclic::Scratch<T> scratch_of(int thread, std::int64_t n) {
    auto* base = reinterpret_cast<unsigned char*>(work_.data()) + per_thread_bytes_ * thread;
    const auto rows = static_cast<std::size_t>(n);
    auto* equations = reinterpret_cast<cyclic::Equation<T>*>(base);
    auto* steps = reinterpret_cast<cyclic::AffineStep<T>*>(equations + 2 * rows + 1);
    return {equations, equations + rows, steps, reinterpret_cast<T*>(steps + 2 * rows)};
  }

  template <bool Accumulate, bool Checked>
  void run(const Problem& p, const Operands<T>& ops) {
    const std::int64_t n = p.n;
    const std::int64_t ra = p.map[op_a].row_stride, rb = p.map[op_b].row_stride,
                       rc = p.map[op_c].row_stride, rd = p.map[op_d].row_stride,
                       rx = p.map[op_x].row_stride;
    for_each_item(p.count, threads_, [&](std::int64_t s, int thread) {
      const cpu::cyclic::Scratch<T> scratch = scratch_of(thread, n);
      const T* a = ops.a + p.system_offset(op_a, s);
      const T* b = ops.b + p.system_offset(op_b, s);
      const T* c = ops.c + p.system_offset(op_c, s);
      const T* d = ops.d + p.system_offset(op_d, s);
      T* x = ops.x + p.system_offset(op_x, s);
      for (std::int64_t i = 0; i < n; ++i) {
        scratch.rows[i] = {i > 0 ? a[i * ra] : T(0), b[i * rb], i + 1 < n ? c[i * rc] : T(0),
                           d[i * rd]};
      }
      const int breakdown = cpu::cyclic::solve_system(scratch, n, variant_);
      // In place, x is d: d was read into the scratch above, so the stores cannot spoil it.
      int last_bad = 0;
      for (std::int64_t i = n - 1; i >= 0; --i) {
        const T out = Accumulate ? x[i * rx] + scratch.x[i] : scratch.x[i];
        x[i * rx] = out;
        if (Checked && last_bad == 0 && !std::isfinite(out)) last_bad = static_cast<int>(i + 1);
      }
      if (Checked) ops.info[s] = breakdown != 0 ? breakdown : last_bad;
    });
  }

  int threads_;
  Algorithm algorithm_;
  cyclic::Variant variant_;
  std::size_t per_thread_bytes_ = 0;
  std::vector<Block> work_;
};

}  // namespace

bool is_cpu_cyclic(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::cpu_cr:
    case Algorithm::cpu_pcr:
    case Algorithm::cpu_rd:
    case Algorithm::cpu_cr_pcr:
    case Algorithm::cpu_cr_rd:
      return true;
    default:
      return false;
  }
}

template <class T>
std::unique_ptr<BackendPlan<T>> make_cpu_cyclic_plan(const Problem& p, const Options& o) {
  return std::make_unique<CpuCyclicPlan<T>>(p, o);
}
template std::unique_ptr<BackendPlan<float>> make_cpu_cyclic_plan(const Problem&, const Options&);
template std::unique_ptr<BackendPlan<double>> make_cpu_cyclic_plan(const Problem&, const Options&);

}  // namespace triax::detail
