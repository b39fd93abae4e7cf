// The reference block tridiagonal solver, the oracle of the block tests: block Thomas (paper
// 000, Algorithm 12) one system at a time in long double, each pivot block B[i] - A[i] C*[i-1]
// factored by LU with partial pivoting inside the block (no explicit inverse), any M.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/block_problem.hpp"
#include "core/omp_threads.hpp"
#include "triax/errors.hpp"

namespace triax::detail {
namespace {

using Wide = long double;

inline bool usable_pivot(Wide v) { return std::isfinite(v) && v != 0; }

// Where one system's operands start, and the strides inside it.
template <class T>
struct BlockSystem {
  const T *a, *b, *c, *d;
  T* x;
  std::int64_t row[operand_count], er[operand_count], ec[operand_count];

  BlockSystem(const BlockProblem& p, const Operands<T>& ops, std::int64_t s)
      : a(ops.a + p.grid.system_offset(op_a, s)),
        b(ops.b + p.grid.system_offset(op_b, s)),
        c(ops.c + p.grid.system_offset(op_c, s)),
        d(ops.d + p.grid.system_offset(op_d, s)),
        x(ops.x + p.grid.system_offset(op_x, s)) {
    for (int op = 0; op < operand_count; ++op) {
      row[op] = p.grid.map[op].row_stride;
      er[op] = p.entry_row[op];
      ec[op] = p.entry_col[op];
    }
  }
  Wide block(int op, const T* base, std::int64_t i, int r, int col) const {
    return static_cast<Wide>(base[i * row[op] + r * er[op] + col * ec[op]]);
  }
};

// Per-thread scratch: C* and d* of every block row, the pivot block and its right-hand sides
// (the columns of C[i], then d[i] - A[i] d*[i-1]).
struct Scratch {
  Wide *cs, *ds, *piv, *rhs;
};

std::size_t scratch_elements(std::int64_t n, int m) {
  const std::size_t mm = static_cast<std::size_t>(m) * m;
  return static_cast<std::size_t>(n) * (mm + m) + mm + static_cast<std::size_t>(m) * (m + 1);
}

// Solves piv * X = rhs (m x m, rhs m x k, both row-major) by LU with partial pivoting; X
// replaces rhs. Returns false if a pivot is zero or not finite.
bool lu_solve(Wide* piv, Wide* rhs, int m, int k) {
  bool ok = true;
  for (int col = 0; col < m; ++col) {
    int p = col;
    for (int r = col + 1; r < m; ++r) {
      if (std::fabs(piv[r * m + col]) > std::fabs(piv[p * m + col])) p = r;
    }
    if (!usable_pivot(piv[p * m + col])) {
      ok = false;
      continue;  // carry on: the outputs become inf/NaN, as without checked mode
    }
    if (p != col) {
      for (int j = 0; j < m; ++j) std::swap(piv[col * m + j], piv[p * m + j]);
      for (int j = 0; j < k; ++j) std::swap(rhs[col * k + j], rhs[p * k + j]);
    }
    for (int r = col + 1; r < m; ++r) {
      const Wide f = piv[r * m + col] / piv[col * m + col];
      for (int j = col + 1; j < m; ++j) piv[r * m + j] -= f * piv[col * m + j];
      for (int j = 0; j < k; ++j) rhs[r * k + j] -= f * rhs[col * k + j];
    }
  }
  for (int r = m - 1; r >= 0; --r) {
    for (int j = 0; j < k; ++j) {
      Wide s = rhs[r * k + j];
      for (int q = r + 1; q < m; ++q) s -= piv[r * m + q] * rhs[q * k + j];
      rhs[r * k + j] = s / piv[r * m + r];
    }
  }
  return ok;
}

template <class T>
int block_thomas(const BlockSystem<T>& v, std::int64_t n, int m, const Scratch& w,
                 bool accumulate) {
  const int k = m + 1;  // right-hand sides: m columns of C[i], then d
  const std::size_t mm = static_cast<std::size_t>(m) * m;
  int info = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    Wide* cs = w.cs + i * mm;
    Wide* ds = w.ds + i * m;
    const Wide* prev_cs = i > 0 ? cs - mm : nullptr;
    const Wide* prev_ds = i > 0 ? ds - m : nullptr;
    for (int r = 0; r < m; ++r) {
      for (int col = 0; col < m; ++col) {
        Wide s = v.block(op_b, v.b, i, r, col);
        if (i > 0) {  // B[i] - A[i] C*[i-1]
          for (int q = 0; q < m; ++q) s -= v.block(op_a, v.a, i, r, q) * prev_cs[q * m + col];
        }
        w.piv[r * m + col] = s;
        w.rhs[r * k + col] = i + 1 < n ? v.block(op_c, v.c, i, r, col) : 0;
      }
      Wide s = v.block(op_d, v.d, i, r, 0);
      if (i > 0) {  // d[i] - A[i] d*[i-1]
        for (int q = 0; q < m; ++q) s -= v.block(op_a, v.a, i, r, q) * prev_ds[q];
      }
      w.rhs[r * k + m] = s;
    }
    bool ok = lu_solve(w.piv, w.rhs, m, k);
    for (int r = 0; r < m; ++r) {
      for (int col = 0; col < m; ++col) cs[r * m + col] = w.rhs[r * k + col];
      ds[r] = w.rhs[r * k + m];
      ok = ok && std::isfinite(ds[r]);
    }
    if (info == 0 && !ok) info = static_cast<int>(i + 1);
  }
  // Backward pass: u[i] = d*[i] - C*[i] u[i+1], in place of d*.
  for (std::int64_t i = n - 2; i >= 0; --i) {
    Wide* ds = w.ds + i * m;
    const Wide* cs = w.cs + i * mm;
    for (int r = 0; r < m; ++r) {
      for (int q = 0; q < m; ++q) ds[r] -= cs[r * m + q] * ds[m + q];
    }
  }
  int bad = 0;
  for (std::int64_t i = n - 1; i >= 0; --i) {
    for (int r = 0; r < m; ++r) {
      T& out = v.x[i * v.row[op_x] + r * v.er[op_x]];
      const Wide value = accumulate ? static_cast<Wide>(out) + w.ds[i * m + r] : w.ds[i * m + r];
      out = static_cast<T>(value);
      if (bad == 0 && !std::isfinite(out)) bad = static_cast<int>(i + 1);
    }
  }
  return info != 0 ? info : bad;
}

template <class T>
class ReferenceBlockPlan final : public BlockBackendPlan<T> {
 public:
  ReferenceBlockPlan(const BlockProblem& p, const Options& o)
      : threads_(host_threads(o.num_threads)), per_thread_(scratch_elements(p.grid.n, p.m)) {
    work_.resize(per_thread_ * threads_);
  }

  void solve(const BlockProblem& p, const Operands<T>& ops) override {
    const std::int64_t n = p.grid.n;
    const int m = p.m;
    const std::size_t mm = static_cast<std::size_t>(m) * m;
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t s = 0; s < p.grid.count; ++s) {
      Wide* base = work_.data() + per_thread_ * omp_get_thread_num();
      const Scratch w{base, base + n * mm, base + n * (mm + m), base + n * (mm + m) + mm};
      const int info = block_thomas(BlockSystem<T>(p, ops, s), n, m, w, ops.accumulate);
      if (ops.info != nullptr) ops.info[s] = info;
    }
  }

  BlockAlgorithm algorithm() const override { return BlockAlgorithm::reference_block_thomas; }
  std::size_t workspace_bytes() const override { return work_.size() * sizeof(Wide); }

 private:
  int threads_;
  std::size_t per_thread_;
  std::vector<Wide> work_;
};

}  // namespace

template <class T>
std::unique_ptr<BlockBackendPlan<T>> make_reference_block_plan(const BlockProblem& p,
                                                               const Options& o) {
  return std::make_unique<ReferenceBlockPlan<T>>(p, o);
}
template std::unique_ptr<BlockBackendPlan<float>> make_reference_block_plan(const BlockProblem&,
                                                                            const Options&);
template std::unique_ptr<BlockBackendPlan<double>> make_reference_block_plan(const BlockProblem&,
                                                                             const Options&);

}  // namespace triax::detail
