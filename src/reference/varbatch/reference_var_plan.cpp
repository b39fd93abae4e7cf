// The reference backend of a variable-size batch: every system of length n handed, one at a
// time, to the fixed-size reference plan as a batch of one system of n rows. The oracle of the
// variable batch is thereby the oracle of the fixed one (long double Thomas), not a second copy.
#include <algorithm>

#include "core/backend_plan.hpp"
#include "core/var_problem.hpp"

namespace triax::detail {
namespace {

template <class T>
class ReferenceVarPlan final : public VarBackendPlan<T> {
 public:
  ReferenceVarPlan(const VarLayout::Data& layout, const Options& options) : layout_(layout) {
    Problem one{};
    one.n = std::max<std::int64_t>(layout.max_length, 1);
    one.count = 1;
    Options single = options;
    single.num_threads = 1;  // one system per call: its workspace is 2n values
    plan_ = make_reference_plan<T>(one, single);
  }

  void solve(const Problem& p, const Operands<T>& ops) override {
    solve_lengths(p, ops, layout_.lengths.data(), false);
  }
  bool takes_solve_lengths() const override { return true; }

  void solve_lengths(const Problem& p, const Operands<T>& ops, const std::int64_t* lengths,
                     bool) override {
    const auto count = static_cast<std::int64_t>(layout_.lengths.size());
    for (std::int64_t s = 0; s < count; ++s) {
      const std::int64_t n = lengths[s];
      if (n == 0) {
        if (ops.info != nullptr) ops.info[s] = 0;
        continue;
      }
      Problem one{};
      one.n = n;
      one.count = 1;
      for (int op = 0; op < operand_count; ++op) {
        one.map[op].offset = layout_.system_offset(p, op, s);
        one.map[op].row_stride = layout_.row_stride(p, op);
      }
      Operands<T> o = ops;
      o.info = ops.info != nullptr ? ops.info + s : nullptr;
      plan_->solve(one, o);
    }
  }

  std::size_t workspace_bytes() const override { return plan_->workspace_bytes(); }

 private:
  const VarLayout::Data& layout_;  // owned by the VarSolver, which outlives this plan
  std::unique_ptr<BackendPlan<T>> plan_;
};

}  // namespace

template <class T>
std::unique_ptr<VarBackendPlan<T>> make_reference_var_plan(const VarLayout::Data& layout,
                                                           const Options& options) {
  return std::make_unique<ReferenceVarPlan<T>>(layout, options);
}
template std::unique_ptr<VarBackendPlan<float>> make_reference_var_plan(const VarLayout::Data&,
                                                                        const Options&);
template std::unique_ptr<VarBackendPlan<double>> make_reference_var_plan(const VarLayout::Data&,
                                                                         const Options&);

}  // namespace triax::detail
