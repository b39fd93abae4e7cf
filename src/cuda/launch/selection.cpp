// The automatic choice of a CUDA algorithm, from measurements on the H100
// (bench/results/gpu-h100.json, docs/algorithms.md), and the checks on a forced one.
#include "cuda/launch/selection.hpp"

#include <string>

#include "cuda/cyclic/shared_layout.hpp"
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

// Measured on the H100 (bench/results/gpu-h100.json, n = 64..2048, 2^24 points, 512^3): the
// Thomas-PCR hybrid (block_thomas_pcr) is the fastest kernel on every axis, size and precision:
// along x 74-103% of the copy against 13-43% for the shuffle transpose; along y and z 42-101%
// against 4-54% for one thread per system. warp_thomas_pcr (at most 32 chunk threads) is never
// faster where it applies, so it is never picked automatically; the transposes are kept for
// forcing and comparison.
bool never(const Problem&) { return false; }

#define TRIAX_CUDA_ENTRY(algo, checks) \
  CudaAlgorithm<T> { Algorithm::cuda_##algo, checks, algo##_supports<T>, algo##_workspace<T>, algo<T> }
// The cyclic family: Algorithm::cuda_<name> runs block_<name>, a block per system in shared
// memory, up to cyclic::max_rows<T> rows.
#define TRIAX_CUDA_CYCLIC_ENTRY(name)                                                          \
  CudaAlgorithm<T> {                                                                          \
    Algorithm::cuda_##name, true, block_##name##_supports<T>, block_##name##_workspace<T>,    \
        block_##name<T>, cyclic::max_rows<T>                                                  \
  }

// The algorithms built into this version, in the order `automatic` prefers them.
template <class T>
const Entry<T> table[] = {
    // The register hybrid, read once, write once: up to 256 chunk threads per system in a
    // block, the long path beyond.
    {TRIAX_CUDA_ENTRY(block_thomas_pcr, true), nullptr},
    // The same with at most 32 chunk threads per system (Algorithms 10 and 11 as published).
    {TRIAX_CUDA_ENTRY(warp_thomas_pcr, true), never},
    // Axis 0: one thread per system through register shuffles (Algorithm 9)...
    {TRIAX_CUDA_ENTRY(thread_thomas_shuffle_transpose, true), never},
    // ...or shared memory (Algorithm 8).
    {TRIAX_CUDA_ENTRY(thread_thomas_shared_transpose, true), never},
    // Anything: one thread per system at the row stride.
    {TRIAX_CUDA_ENTRY(thread_thomas, true), nullptr},
    // The cyclic family (paper 001): forced only until measurements say where it wins.
    {TRIAX_CUDA_CYCLIC_ENTRY(cr), never},
    {TRIAX_CUDA_CYCLIC_ENTRY(pcr), never},
    {TRIAX_CUDA_CYCLIC_ENTRY(rd), never},
    {TRIAX_CUDA_CYCLIC_ENTRY(cr_pcr), never},
    {TRIAX_CUDA_CYCLIC_ENTRY(cr_rd), never},
};

#undef TRIAX_CUDA_ENTRY
#undef TRIAX_CUDA_CYCLIC_ENTRY

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
    if (!automatic && candidate.max_rows > 0 && p.n > candidate.max_rows) {
      throw invalid_argument("triax::Solver: algorithm " + std::string(to_string(o.algorithm)) +
                             " solves systems of at most " + std::to_string(candidate.max_rows) +
                             " rows in " + (sizeof(T) == 4 ? "float" : "double") + ", but n = " +
                             std::to_string(p.n));
    }
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
