// The host backends' (cpu, reference) unfused stencil route: B f into a host workspace laid out
// as d, one system per iteration over OpenMP threads, then the plan's ordinary solve. Memory
// speed is not the point here (the cpu backend's own stencil-fused solve would be a later
// step); the rows are the same sums as every other route's (stencil_rows.hpp).
#include <omp.h>

#include <vector>

#include "core/factored/stencil_rows.hpp"
#include "core/factored/stencil_workspace.hpp"
#include "core/omp_threads.hpp"

namespace triax::detail {
namespace {

template <class T>
class HostStencilWorkspace final : public StencilWorkspace<T> {
 public:
  HostStencilWorkspace(std::int64_t elements, int threads)
      : values_(static_cast<std::size_t>(elements)), threads_(host_threads(threads)) {}

  void apply(const Problem& p, const Stencil<T>& s, const T* f) override {
    T* out = values_.data();
    const std::int64_t n = p.n, rs = p.map[op_d].row_stride;
#pragma omp parallel for schedule(static) num_threads(threads_)
    for (std::int64_t sys = 0; sys < p.count; ++sys) {
      const std::int64_t base = p.system_offset(op_d, sys);
      const T* line_f = f + base;
      const auto line = [&](std::int64_t r) { return line_f[r * rs]; };
      for (std::int64_t i = 0; i < n; ++i) {
        out[base + i * rs] =
            stencil_row(s, i, n, [&](int k) { return line(i + k); }, line);
      }
    }
  }
  T* data() override { return values_.data(); }
  std::size_t bytes() const override { return values_.size() * sizeof(T); }

 private:
  std::vector<T> values_;
  int threads_;
};

}  // namespace

template <class T>
std::unique_ptr<StencilWorkspace<T>> make_host_stencil_workspace(std::int64_t elements,
                                                                 int threads) {
  return std::make_unique<HostStencilWorkspace<T>>(elements, threads);
}
template std::unique_ptr<StencilWorkspace<float>> make_host_stencil_workspace(std::int64_t, int);
template std::unique_ptr<StencilWorkspace<double>> make_host_stencil_workspace(std::int64_t, int);

}  // namespace triax::detail
