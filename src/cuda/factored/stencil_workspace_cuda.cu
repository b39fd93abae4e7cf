// The cuda backend's unfused stencil route (every factored route but the chunk table, which
// fuses B f into its solve): B f into a device workspace laid out as d, one thread per row,
// then the plan's ordinary solve on the same stream. Consecutive threads take consecutive rows
// where rows are contiguous (axis 0), else consecutive systems (neighbours along x for the
// other axes), so that loads and stores coalesce in both cases.
#include <cuda_runtime.h>

#include <algorithm>

#include "core/factored/stencil_rows.hpp"
#include "core/factored/stencil_workspace.hpp"
#include "cuda/device_workspace.hpp"
#include "cuda/launch/launch_kernel.hpp"

namespace triax::detail {
namespace {

template <class T>
__global__ void apply_stencil_kernel(Problem p, Stencil<T> s, const T* __restrict__ f,
                                     T* __restrict__ out, bool rows_fastest) {
  const std::int64_t n = p.n, total = p.count * p.n, rs = p.map[op_d].row_stride;
  for (std::int64_t e = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t sys = rows_fastest ? e / n : e % p.count;
    const std::int64_t i = rows_fastest ? e % n : e / p.count;
    const std::int64_t base = p.system_offset(op_d, sys);
    const auto line = [&](std::int64_t r) { return f[base + r * rs]; };
    out[base + i * rs] = stencil_row(s, i, n, [&](int k) { return line(i + k); }, line);
  }
}

template <class T>
class CudaStencilWorkspace final : public StencilWorkspace<T> {
 public:
  CudaStencilWorkspace(std::int64_t elements, void* stream)
      : values_(static_cast<std::size_t>(elements) * sizeof(T)),
        stream_(static_cast<cudaStream_t>(stream)) {}

  void apply(const Problem& p, const Stencil<T>& s, const T* f) override {
    const std::int64_t total = p.count * p.n;
    if (total <= 0) return;
    constexpr int threads = 256;
    const std::int64_t blocks = std::min<std::int64_t>((total + threads - 1) / threads, 1 << 20);
    cuda::launch_kernel(apply_stencil_kernel<T>, dim3(static_cast<unsigned>(blocks)),
                        dim3(threads), 0, stream_, p, s, f, data(),
                        p.map[op_d].row_stride == 1);
  }
  T* data() override { return static_cast<T*>(values_.get()); }
  std::size_t bytes() const override { return values_.bytes(); }

 private:
  cuda::DeviceWorkspace values_;
  cudaStream_t stream_;
};

}  // namespace

template <class T>
std::unique_ptr<StencilWorkspace<T>> make_cuda_stencil_workspace(std::int64_t elements,
                                                                 void* stream) {
  return std::make_unique<CudaStencilWorkspace<T>>(elements, stream);
}
template std::unique_ptr<StencilWorkspace<float>> make_cuda_stencil_workspace(std::int64_t, void*);
template std::unique_ptr<StencilWorkspace<double>> make_cuda_stencil_workspace(std::int64_t,
                                                                               void*);

}  // namespace triax::detail
