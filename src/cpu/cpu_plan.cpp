// The CPU backend's plan: picks the strip or the transpose kernel, sizes the per-thread
// workspace once, and runs the systems in parallel with OpenMP.
#include <algorithm>
#include <string>
#include <vector>

#include "core/backend_plan.hpp"
#include "core/omp_threads.hpp"
#include "cpu/strip_thomas.hpp"
#include "cpu/transpose_thomas.hpp"
#include "triax/errors.hpp"

namespace triax::detail {
namespace {

// Bytes of L2 a strip may fill with its rows, c' and d' (half of the 512 KiB per core seen on
// the development machine, leaving room for the streams passing through).
constexpr std::int64_t strip_cache_budget = 256 * 1024;
constexpr int min_strip = 8;
constexpr int max_strip = 256;

template <class T>
int strip_width(const Problem& p) {
  // Per lane and row: a, b, c, d read and c', d' written.
  const std::int64_t per_lane = std::max<std::int64_t>(p.n, 1) * 6 * sizeof(T);
  std::int64_t w = std::clamp<std::int64_t>(strip_cache_budget / per_lane, min_strip, max_strip);
  const std::int64_t e0 = p.batch_rank > 0 ? p.batch_extents[0] : 1;
  w = std::min(w, e0);
  // Split the line evenly rather than leave a thin last strip.
  const std::int64_t strips = (e0 + w - 1) / w;
  return static_cast<int>((e0 + strips - 1) / strips);
}

template <class T>
class CpuPlan final : public BackendPlan<T> {
 public:
  CpuPlan(const Problem& p, const Options& o) : threads_(host_threads(o.num_threads)) {
    algorithm_ = o.algorithm;
    if (algorithm_ == Algorithm::automatic) {
      // Rows contiguous and enough systems to fill a tile: the local transpose; otherwise
      // neighbouring systems are side by side, and the strip kernel reads them directly.
      const bool rows_contiguous = p.map[op_d].row_stride == 1 && p.map[op_x].row_stride == 1;
      algorithm_ = rows_contiguous && p.n > 1 && p.count >= cpu::TileShape<T>::lanes
                       ? Algorithm::cpu_thomas_transpose
                       : Algorithm::cpu_thomas;
    }
    if (algorithm_ == Algorithm::cpu_thomas) {
      width_ = strip_width<T>(p);
      per_thread_ = cpu::StripScratch<T>::elements(p.n, width_);
    } else if (algorithm_ == Algorithm::cpu_thomas_transpose) {
      per_thread_ = cpu::TileScratch<T>::elements(p.n);
    } else {
      throw invalid_argument("triax::Solver: algorithm " + std::string(to_string(algorithm_)) +
                             " does not belong to the cpu backend");
    }
    work_.resize(per_thread_ * threads_);
    info_.resize(2 * std::max<std::size_t>(width_, cpu::TileShape<T>::lanes) * threads_);
  }

  void solve(const Problem& p, const Operands<T>& ops) override {
    if (ops.accumulate) {
      ops.info ? run<true, true>(p, ops) : run<true, false>(p, ops);
    } else {
      ops.info ? run<false, true>(p, ops) : run<false, false>(p, ops);
    }
  }

  Algorithm algorithm() const override { return algorithm_; }
  std::size_t workspace_bytes() const override {
    return work_.size() * sizeof(T) + info_.size() * sizeof(int);
  }

 private:
  template <bool Accumulate, bool Checked>
  void run(const Problem& p, const Operands<T>& ops) {
    if (algorithm_ == Algorithm::cpu_thomas) {
      const std::int64_t e0 = p.batch_rank > 0 ? p.batch_extents[0] : 1;
      const std::int64_t per_line = (e0 + width_ - 1) / width_;
      const std::int64_t items = (p.count / e0) * per_line;
#pragma omp parallel for num_threads(threads_) schedule(static)
      for (std::int64_t item = 0; item < items; ++item) {
        const int t = omp_get_thread_num();
        const std::int64_t line = item / per_line;
        const std::int64_t j0 = (item % per_line) * width_;
        const cpu::Strip strip{line * e0 + j0,
                               static_cast<int>(std::min<std::int64_t>(width_, e0 - j0))};
        cpu::strip_thomas<Accumulate, Checked>(p, ops, strip, strip_scratch(t, p.n), width_);
      }
    } else {
      constexpr int W = cpu::TileShape<T>::lanes;
      const std::int64_t groups = (p.count + W - 1) / W;
#pragma omp parallel for num_threads(threads_) schedule(static)
      for (std::int64_t g = 0; g < groups; ++g) {
        const int t = omp_get_thread_num();
        const int w = static_cast<int>(std::min<std::int64_t>(W, p.count - g * W));
        cpu::transpose_thomas<Accumulate, Checked>(p, ops, g * W, w, tile_scratch(t, p.n));
      }
    }
  }

  cpu::StripScratch<T> strip_scratch(int t, std::int64_t n) {
    T* w = work_.data() + per_thread_ * t;
    cpu::StripScratch<T> s{w, w + n * width_, {}, info_.data() + 2 * width_ * t};
    for (int op = 0; op < operand_count; ++op) s.rows[op] = w + (2 * n + op) * width_;
    return s;
  }

  cpu::TileScratch<T> tile_scratch(int t, std::int64_t n) {
    constexpr int W = cpu::TileShape<T>::lanes;
    constexpr int R = cpu::TileShape<T>::rows;
    T* w = work_.data() + per_thread_ * t;
    cpu::TileScratch<T> s{w, w + n * W, {}, info_.data() + 2 * W * t};
    for (int op = 0; op < op_x; ++op) s.tile[op] = w + 2 * n * W + op * R * W;
    return s;
  }

  int threads_;
  Algorithm algorithm_;
  int width_ = 0;
  std::size_t per_thread_ = 0;
  std::vector<T> work_;
  std::vector<int> info_;
};

}  // namespace

template <class T>
std::unique_ptr<BackendPlan<T>> make_cpu_plan(const Problem& p, const Options& o) {
  return std::make_unique<CpuPlan<T>>(p, o);
}
template std::unique_ptr<BackendPlan<float>> make_cpu_plan(const Problem&, const Options&);
template std::unique_ptr<BackendPlan<double>> make_cpu_plan(const Problem&, const Options&);

}  // namespace triax::detail
