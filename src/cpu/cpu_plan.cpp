// The CPU backend's plan: picks the strip or the transpose kernel and the instruction set, sizes
// the per-thread workspace once, and hands each solve to the kernels (cpu/solve_batch.inc).
#include <algorithm>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "core/backend_plan.hpp"
#include "core/omp_threads.hpp"
#include "cpu/batch.hpp"
#include "cpu/cyclic/cyclic_plan.hpp"
#include "triax/errors.hpp"

namespace triax::detail {
namespace {

// How wide a strip of neighbouring systems is. Rows of a strip lie a whole row stride apart, so
// each row is one short run in memory: the wider the strip, the longer the run and the better the
// hardware streams it (on the development machine, 256^3 solves along y and z slowed sharply
// below ~128 lanes). The strip's c' and d' (2 * n * width values; in place d' goes into x's own
// rows instead) should stay in the caches between the forward and the backward pass: the budget
// bounds them (256^3 along z: 1 MiB, i.e. 256 double or 512 float lanes, measured 5-15% faster
// than 2 MiB, and again with d' over d: docs/algorithms.md).
constexpr std::int64_t strip_workspace_budget = 1024 * 1024;
constexpr std::int64_t min_strip = 16;
constexpr std::int64_t max_strip = 1024;

// The largest per-thread workspace the transpose kernel may own.
constexpr std::size_t tile_workspace_limit = 32 * 1024 * 1024;

template <class T>
int strip_width(const Problem& p) {
  const std::int64_t per_lane = std::max<std::int64_t>(p.n, 1) * 2 * sizeof(T);
  // Whole cache lines per row, so that neighbouring strips never share a line.
  constexpr std::int64_t line = 64 / sizeof(T);
  std::int64_t w = std::clamp(strip_workspace_budget / per_lane, min_strip, max_strip);
  w = std::max(line, w / line * line);
  const std::int64_t e0 = p.batch_rank > 0 ? p.batch_extents[0] : 1;
  return static_cast<int>(std::min(w, e0));
}

template <class T>
class CpuPlan final : public BackendPlan<T> {
 public:
  CpuPlan(const Problem& p, const Options& o) : threads_(host_threads(o.num_threads)) {
    constexpr int tile_lanes = cpu::TileShape<T>::lanes;
    // Every workspace size below is a product of n: refuse an n for which they would wrap (n
    // near 2^62 made them a few values) before forming any. Both kernels' per-thread scratch is
    // at most 2 (n + 64) max_strip values (strip: (2n + 4) width; tile: (2n + 4R) W).
    const std::int64_t max_elements = static_cast<std::int64_t>(std::min<std::size_t>(
        std::numeric_limits<std::int64_t>::max(), std::vector<T>().max_size()));
    if (p.n > max_elements / threads_ / (2 * max_strip) - 64) {
      throw invalid_argument("triax::Solver: n = " + std::to_string(p.n) +
                             " needs a cpu workspace larger than memory can address");
    }
    algorithm_ = o.algorithm;
    if (algorithm_ == Algorithm::automatic) {
      // Rows contiguous and enough systems to fill a tile: the local transpose; otherwise
      // neighbouring systems are side by side, and the strip kernel reads them directly.
      // Very long systems would need a huge tile workspace (c', d' of every row of W systems):
      // they go to the strip kernel, whose workspace is as wide as the batch line allows.
      const bool rows_contiguous = p.map[op_d].row_stride == 1 && p.map[op_x].row_stride == 1;
      const bool tile_fits = cpu::tile_scratch_elements<T>(p.n) * sizeof(T) <= tile_workspace_limit;
      algorithm_ = rows_contiguous && tile_fits && p.n > 1 && p.count >= tile_lanes
                       ? Algorithm::cpu_thomas_transpose
                       : Algorithm::cpu_thomas;
    }
    if (algorithm_ == Algorithm::cpu_thomas) {
      width_ = strip_width<T>(p);
      per_thread_ = cpu::strip_scratch_elements(p.n, width_);
    } else if (algorithm_ == Algorithm::cpu_thomas_transpose) {
      per_thread_ = cpu::tile_scratch_elements<T>(p.n);
    } else {
      throw invalid_argument("triax::Solver: algorithm " + std::string(to_string(algorithm_)) +
                             " does not belong to the cpu backend");
    }
    work_.resize(per_thread_ * threads_);
    info_per_thread_ = 2 * std::max(width_, tile_lanes);
    info_.resize(static_cast<std::size_t>(info_per_thread_) * threads_);
    // TRIAX_CPU_ISA=baseline forces the portable kernels (the tests run both copies).
    const char* isa = std::getenv("TRIAX_CPU_ISA");
    const bool baseline_only = isa != nullptr && std::string_view(isa) == "baseline";
    entry_ = cpu::avx2_kernels_usable() && !baseline_only ? cpu::solve_batch_avx2<T>
                                                          : cpu::solve_batch_baseline<T>;
  }

  void solve(const Problem& p, const Operands<T>& ops) override {
    entry_({&p, ops, algorithm_, width_, threads_, work_.data(), per_thread_, info_.data(),
            info_per_thread_});
  }

  Algorithm algorithm() const override { return algorithm_; }
  std::size_t workspace_bytes() const override {
    return work_.size() * sizeof(T) + info_.size() * sizeof(int);
  }

 private:
  int threads_;
  Algorithm algorithm_;
  int width_ = 0;
  std::size_t per_thread_ = 0;
  int info_per_thread_ = 0;
  std::vector<T> work_;
  std::vector<int> info_;
  void (*entry_)(const cpu::Batch<T>&) = nullptr;
};

}  // namespace

template <class T>
std::unique_ptr<BackendPlan<T>> make_cpu_plan(const Problem& p, const Options& o) {
  if (is_cpu_cyclic(o.algorithm)) return make_cpu_cyclic_plan<T>(p, o);
  return std::make_unique<CpuPlan<T>>(p, o);
}
template std::unique_ptr<BackendPlan<float>> make_cpu_plan(const Problem&, const Options&);
template std::unique_ptr<BackendPlan<double>> make_cpu_plan(const Problem&, const Options&);

}  // namespace triax::detail
