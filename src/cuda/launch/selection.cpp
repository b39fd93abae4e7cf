// The automatic choice of a CUDA algorithm, from measurements on the H100
// (bench/results/gpu-h100.json, docs/algorithms.md), and the checks on a forced one.
#include "cuda/launch/selection.hpp"

#include <string>

#include "cuda/launch/kernels.hpp"
#include "triax/errors.hpp"

namespace triax::detail::cuda {
namespace {

// Automatic takes the first entry that supports the problem and whose condition holds.
template <class T>
struct Entry {
  CudaAlgorithm<T> algorithm;
  bool (*automatic_when)(const Problem&);  // nullptr: whenever supported
};

// Measured on the H100 (axis 0, n = 256..2048, 8192..131072 systems): the shuffle transpose
// was the fastest one-thread-per-system kernel at every size (11-42% of the copy against 2-27% for
// the shared-memory transpose and 4-16% for the plain kernel), and ahead of the float register
// hybrid along axis 0 (33% against 20% at n = 512). The shared-memory transpose is kept for
// forcing and comparison only.
bool never(const Problem&) { return false; }

#define TRIAX_CUDA_ENTRY(algo, checks) \
  CudaAlgorithm<T> { Algorithm::cuda_##algo, checks, algo##_supports<T>, algo##_workspace<T>, algo<T> }

// The algorithms built into this version, in the order `automatic` prefers them.
// (warp_thomas_pcr, paper 000's Algorithm 10, joins here when src/cuda/warp/ has it.)
template <class T>
const Entry<T> table[] = {
    // Axis 0 (d and x with contiguous rows): a transpose through register shuffles.
    {TRIAX_CUDA_ENTRY(thread_thomas_shuffle_transpose, true), nullptr},
    // Axes >= 1, n <= 512 (float) / 256 (double): the register hybrid, read once, write once.
    {TRIAX_CUDA_ENTRY(block_thomas_pcr, false), nullptr},
    // Axis 0 through shared memory (Algorithm 8).
    {TRIAX_CUDA_ENTRY(thread_thomas_shared_transpose, true), never},
    // Anything: one thread per system at the row stride.
    {TRIAX_CUDA_ENTRY(thread_thomas, true), nullptr},
};

#undef TRIAX_CUDA_ENTRY

}  // namespace

template <class T>
CudaAlgorithm<T> choose_cuda_algorithm(const Problem& p, const Options& o) {
  const bool automatic = o.algorithm == Algorithm::automatic;
  bool built = automatic;
  for (const Entry<T>& e : table<T>) {
    const CudaAlgorithm<T>& candidate = e.algorithm;
    built |= candidate.name == o.algorithm;
    if (!automatic && candidate.name != o.algorithm) continue;
    if (automatic && e.automatic_when != nullptr && !e.automatic_when(p)) continue;
    if (candidate.supports(p) && (candidate.checks || !o.checked)) return candidate;
  }
  throw invalid_argument(
      "triax::Solver: algorithm " + std::string(to_string(o.algorithm)) +
      (built ? " does not support this layout or mode (n = " + std::to_string(p.n) +
                   ", row stride of d = " + std::to_string(p.map[op_d].row_stride) +
                   ", row stride of x = " + std::to_string(p.map[op_x].row_stride) +
                   (o.checked ? ", checked mode" : "") + ")"
             : " is not built into the cuda backend of this version"));
}

template CudaAlgorithm<float> choose_cuda_algorithm<float>(const Problem&, const Options&);
template CudaAlgorithm<double> choose_cuda_algorithm<double>(const Problem&, const Options&);

}  // namespace triax::detail::cuda
