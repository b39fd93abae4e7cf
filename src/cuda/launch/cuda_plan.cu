// The CUDA backend's plan: picks an algorithm, allocates its workspace once, and launches it on
// the caller's stream at every solve (no allocation, no synchronisation).
#include <cuda_runtime.h>

#include <string>

#include "core/backend_plan.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/launch/kernels.hpp"
#include "triax/errors.hpp"

namespace triax::detail {
namespace {

template <class T>
struct CudaAlgorithm {
  Algorithm name;
  bool checks;  // fills info in checked mode
  bool (*supports)(const Problem&);
  std::size_t (*workspace)(const Problem&);
  void (*run)(const Problem&, const Operands<T>&, void*, cudaStream_t);
};

// The algorithms built into this version, in the order `automatic` prefers them.
template <class T>
const CudaAlgorithm<T> cuda_algorithms[] = {
    // Axes >= 1, n <= 512 (float) / 256 (double): the register hybrid, read once, write once.
    {Algorithm::cuda_block_thomas_pcr, false, cuda::block_thomas_pcr_supports<T>,
     cuda::block_thomas_pcr_workspace<T>, cuda::block_thomas_pcr<T>},
    // Axis 0: reads through a shared-memory transpose (coalesced), 5x the plain kernel there.
    {Algorithm::cuda_thread_thomas_shared_transpose, true,
     cuda::thread_thomas_shared_transpose_supports<T>,
     cuda::thread_thomas_shared_transpose_workspace<T>, cuda::thread_thomas_shared_transpose<T>},
    {Algorithm::cuda_thread_thomas, true, cuda::thread_thomas_supports<T>,
     cuda::thread_thomas_workspace<T>, cuda::thread_thomas<T>},
};

template <class T>
class CudaPlan final : public BackendPlan<T> {
 public:
  CudaPlan(const Problem& p, const Options& o) : stream_(static_cast<cudaStream_t>(o.stream)) {
    const CudaAlgorithm<T>* chosen = nullptr;
    for (const auto& candidate : cuda_algorithms<T>) {
      // H100 (bench/results/gpu-h100.json): the shared-memory transpose needs many systems to
      // keep enough warps in flight; below 65536 the plain kernel was faster (n = 512, 32768
      // systems: 15.9% against 9.5% of the copy).
      if (o.algorithm == Algorithm::automatic &&
          candidate.name == Algorithm::cuda_thread_thomas_shared_transpose && p.count < 65536) {
        continue;
      }
      const bool wanted = o.algorithm == Algorithm::automatic || o.algorithm == candidate.name;
      if (wanted && candidate.supports(p) && (candidate.checks || !o.checked)) {
        chosen = &candidate;
        break;
      }
    }
    if (chosen == nullptr) {
      bool built = o.algorithm == Algorithm::automatic;
      for (const auto& candidate : cuda_algorithms<T>) built |= candidate.name == o.algorithm;
      throw invalid_argument(
          "triax::Solver: algorithm " + std::string(to_string(o.algorithm)) +
          (built ? " does not support this layout or mode (n = " + std::to_string(p.n) +
                       ", row stride of d = " + std::to_string(p.map[op_d].row_stride) +
                       (o.checked ? ", checked mode" : "") + ")"
                 : " is not built into the cuda backend of this version"));
    }
    algorithm_ = *chosen;
    workspace_bytes_ = algorithm_.workspace(p);
    if (workspace_bytes_ > 0) TRIAX_CUDA_CHECK(cudaMalloc(&workspace_, workspace_bytes_));
  }

  ~CudaPlan() override {
    if (workspace_ != nullptr) TRIAX_CUDA_CHECK_NOTHROW(cudaFree(workspace_));
  }

  void solve(const Problem& p, const Operands<T>& ops) override {
    algorithm_.run(p, ops, workspace_, stream_);
  }

  Algorithm algorithm() const override { return algorithm_.name; }
  std::size_t workspace_bytes() const override { return workspace_bytes_; }

 private:
  cudaStream_t stream_;
  CudaAlgorithm<T> algorithm_{};
  void* workspace_ = nullptr;
  std::size_t workspace_bytes_ = 0;
};

}  // namespace

template <class T>
std::unique_ptr<BackendPlan<T>> make_cuda_plan(const Problem& p, const Options& o) {
  return std::make_unique<CudaPlan<T>>(p, o);
}
template std::unique_ptr<BackendPlan<float>> make_cuda_plan(const Problem&, const Options&);
template std::unique_ptr<BackendPlan<double>> make_cuda_plan(const Problem&, const Options&);

MemorySpace memory_space_of(const void* pointer) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
    // No device, no driver, or a pointer CUDA does not know: host memory for our purposes.
    (void)cudaGetLastError();
    return MemorySpace::host;
  }
  switch (attributes.type) {
    case cudaMemoryTypeDevice: return MemorySpace::device;
    case cudaMemoryTypeManaged: return MemorySpace::unknown;  // reachable from both sides
    default: return MemorySpace::host;
  }
}

bool cuda_compiled() { return true; }

}  // namespace triax::detail
