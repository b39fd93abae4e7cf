// FactoredAlgorithm::cuda_hybrid: a factored plan of one matrix that solves with triax::Solver's
// cuda plan (the Thomas-PCR hybrid where it applies), the matrix's diagonals held on the device
// once and passed as broadcast operands (row stride 1, every batch stride 0). Each solve then
// moves d and x; a, b, c are n values each that every block reads from the cache.
//
// Branch factcoef: where route.hpp's table_applies() says so, the plan runs the chunk table
// kernel instead (core/factored/chunk_table.hpp: the hybrid's chunk elimination and reduced
// system with every multiplier precomputed, so each row costs a load of d, five multiply-adds
// and a store of x). TRIAX_CUDA_FACTORED_ROUTE=hybrid keeps the general plan.
//
// Branch fusedfd: the table is built wherever it can be (table_applies() with the `table`
// route), also where plain solves keep the general hybrid (float along x, where the hybrid
// measured faster), because solve_stencil fuses B f into the table kernels: f read once and x
// written once, against a stencil pass and a solve. =hybrid and =thomas build no table.
//
// What the hybrid does not implement as factored.hpp specifies it runs the factored Thomas
// kernels instead (same plan, same algorithm() name): checked mode (info is defined by the
// stored factors' d'), a factorisation that broke down (NaN in every x, info = k + 1) and a
// scaled table (the exact power-of-two scaling of d).
#include <cuda_runtime.h>

#include <memory>

#include "core/backend_plan.hpp"
#include "core/factored/chunk_table.hpp"
#include "core/factored/factored_plan.hpp"
#include "core/factored/route.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_workspace.hpp"
#include "cuda/factored/chunk_table_launch.hpp"

namespace triax::detail {
namespace {

/// The problem the general plan sees: d and x as given, a, b, c one row each at stride 1.
Problem broadcast_coefficients(Problem p) {
  for (int op : {op_a, op_b, op_c}) p.map[op] = OperandMap{0, 1, {}};
  return p;
}

template <class T>
class CudaFactoredHybridPlan final : public FactoredBackendPlan<T> {
 public:
  CudaFactoredHybridPlan(const Problem& p, const Options& o, const FactorTable<T>& table,
                         const FactoredMatrix<T>& m)
      : stream_(static_cast<cudaStream_t>(o.stream)) {
    if (!hybrid_allowed(p, o, table)) {
      thomas_ = make_cuda_factored_plan<T>(p, o, table);
      return;
    }
    const std::size_t n = m.b.size();
    make_table(p, m);
    if (table_solves_) return;  // plain solves run the table too: no general plan
    diagonals_ = std::make_unique<cuda::DeviceWorkspace>(3 * pitch(n) * sizeof(T));
    T* base = static_cast<T*>(diagonals_->get());
    a_ = base;
    b_ = base + pitch(n);
    c_ = base + 2 * pitch(n);
    TRIAX_CUDA_CHECK(cudaMemcpy(base, m.a.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    TRIAX_CUDA_CHECK(cudaMemcpy(base + pitch(n), m.b.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    TRIAX_CUDA_CHECK(
        cudaMemcpy(base + 2 * pitch(n), m.c.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    Options general = o;
    general.algorithm = Algorithm::automatic;  // the general plan's own choice: the hybrid
    general_ = make_cuda_plan<T>(broadcast_coefficients(p), general);
  }

  void solve(const Problem& p, const FactoredOperands<T>& ops) override {
    if (thomas_) {
      thomas_->solve(p, ops);
      return;
    }
    if (table_solves_) {
      cuda::launch_chunk_table<T>(p, table_view_, ops.d, ops.x, ops.accumulate, stream_);
      return;
    }
    general_->solve(broadcast_coefficients(p),
                    {a_, b_, c_, ops.d, ops.x, ops.accumulate, ops.info});
  }
  void clear_info(int* info, std::int64_t count) override {
    if (thomas_) {
      thomas_->clear_info(info, count);
    } else if (table_solves_) {
      // Unchecked only (hybrid_allowed): no info to clear.
      (void)info;
      (void)count;
    } else {
      general_->clear_info(info, count);
    }
  }
  std::size_t workspace_bytes() const override {
    if (thomas_) return thomas_->workspace_bytes();
    const std::size_t table = table_ ? table_values_->bytes() : 0;
    if (table_solves_) return table;
    return table + diagonals_->bytes() + general_->workspace_bytes();
  }
  bool fuses_stencil() const override { return table_; }
  void solve_stencil(const Problem& p, const Stencil<T>& B, const T* f, T* x) override {
    cuda::launch_chunk_table_stencil<T>(p, table_view_, B, f, x, stream_);
  }

 private:
  // Each diagonal starts on a 256-byte boundary: the hybrid's vector loads along x take
  // aligned rows (an unaligned operand sends axis 0 to another kernel).
  static std::size_t pitch(std::size_t n) {
    constexpr std::size_t per = 256 / sizeof(T);
    return (n + per - 1) / per * per;
  }
  // (No systems or no rows: nothing reaches solve(), the factored plan only clears info.)
  static bool hybrid_allowed(const Problem& p, const Options& o, const FactorTable<T>& table) {
    return p.n > 0 && p.count > 0 && !o.checked && table.breakdown == 0 && !table.scaled;
  }

  // The chunk table on the device wherever route.hpp's table_applies() holds for the `table`
  // route (unless the environment asks for the hybrid or Thomas' kernels); plain solves run it
  // where it holds for the plan's route.
  void make_table(const Problem& p, const FactoredMatrix<T>& m) {
    const FactoredRoute route = factored_route_from_env();
    if (route == FactoredRoute::hybrid || route == FactoredRoute::thomas) return;
    TableRouteFacts facts;
    facts.n = p.n;
    facts.single = sizeof(T) == sizeof(float);
    facts.contiguous = p.map[op_d].row_stride == 1 && p.map[op_x].row_stride == 1;
    if (p.n > table_max_rows) return;
    facts.dominant = interior_dominant(m.a.data(), m.b.data(), m.c.data(), p.n);
    if (!facts.dominant) return;
    const ChunkTable<T> table = chunk_matrix(m.a.data(), m.b.data(), m.c.data(), p.n);
    facts.table_ok = table.ok;
    if (!table_applies(facts, FactoredRoute::table)) return;
    table_values_ = std::make_unique<cuda::DeviceWorkspace>(table.values.size() * sizeof(T));
    TRIAX_CUDA_CHECK(cudaMemcpy(table_values_->get(), table.values.data(),
                                table.values.size() * sizeof(T), cudaMemcpyHostToDevice));
    table_view_ = table.view_at(static_cast<const T*>(table_values_->get()));
    table_ = true;
    table_solves_ = table_applies(facts, route);
    // Load the kernels now rather than in the caller's first solve (launch_kernel.hpp).
    cuda::load_chunk_table_kernels<T>(p, table_view_, stream_);
  }

  cudaStream_t stream_;
  bool table_ = false;         // the chunk table is on the device (solve_stencil fuses)
  bool table_solves_ = false;  // plain solves run it too (else the general plan)
  std::unique_ptr<cuda::DeviceWorkspace> table_values_;
  ChunkView<T> table_view_;
  std::unique_ptr<cuda::DeviceWorkspace> diagonals_;  // a, b, c: n values each (a[0], c[n-1] are 0)
  const T* a_ = nullptr;
  const T* b_ = nullptr;
  const T* c_ = nullptr;
  std::unique_ptr<BackendPlan<T>> general_;
  std::unique_ptr<FactoredBackendPlan<T>> thomas_;
};

}  // namespace

template <class T>
std::unique_ptr<FactoredBackendPlan<T>> make_cuda_factored_hybrid_plan(
    const Problem& p, const Options& o, const FactorTable<T>& table, const FactoredMatrix<T>& m) {
  return std::make_unique<CudaFactoredHybridPlan<T>>(p, o, table, m);
}
template std::unique_ptr<FactoredBackendPlan<float>> make_cuda_factored_hybrid_plan(
    const Problem&, const Options&, const FactorTable<float>&, const FactoredMatrix<float>&);
template std::unique_ptr<FactoredBackendPlan<double>> make_cuda_factored_hybrid_plan(
    const Problem&, const Options&, const FactorTable<double>&, const FactoredMatrix<double>&);

}  // namespace triax::detail
