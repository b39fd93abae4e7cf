// The padded variable batch on the fixed batch's pipelined hybrid (var_pipelined.hpp). Which
// configuration runs is hybrid_choose's answer for the fixed batch of the longest length, so the
// NCP form uses the same kernel, blocks and staging as the CP form (triax::Solver on the padded
// layout) and differs only by the per-system length (pipelined_body's Variable).
#include "cuda/varbatch/var_pipelined.hpp"

#include <algorithm>
#include <cstdint>

#include "cuda/cuda_check.hpp"
#include "cuda/launch/launch_kernel.hpp"
#include "cuda/scalar/block/chunk_split.cuh"
#include "cuda/scalar/block/pipelined_kernel.cuh"

namespace triax::detail::cuda {
namespace {

template <class T, int S, bool Accumulate>
__global__ void __launch_bounds__(hybrid_max_threads)
    var_pipelined_kernel(Problem p, Operands<T> ops, HybridShape sh,
                         const std::int64_t* __restrict__ lengths) {
  pipelined_body<T, pipelined_rows<T>, S, Accumulate, true, false, true>(p, ops, sh, lengths);
}

// The two row runs hybrid.cu's pipelined_choose takes: 64 and 128 bytes.
template <class T>
constexpr int run64 = 64 / static_cast<int>(sizeof(T));

template <class T, bool Accumulate>
auto kernel_for(int S) {
  return S == run64<T> ? var_pipelined_kernel<T, run64<T>, Accumulate>
                       : var_pipelined_kernel<T, 2 * run64<T>, Accumulate>;
}

/// The chunks of n rows over P chunk threads, as the fixed kernel cuts them.
HybridShape shape_of(std::int64_t n, const HybridConfig& cfg) {
  return split_rows(n, cfg.P, cfg.P, cfg.S);
}

template <class T>
bool aligned16(const Operands<T>& ops) {
  const T* ptrs[4] = {ops.a, ops.b, ops.c, ops.d};
  return std::all_of(ptrs, ptrs + 4, [](const T* q) {
    return reinterpret_cast<std::uintptr_t>(q) % 16 == 0;
  });
}

}  // namespace

template <class T>
bool VarPipelined<T>::choose(const Problem& p) {
  if (p.n < 1 || p.count < 1) return false;
  HybridConfig cfg;
  if (!hybrid_choose<T>(p, HybridFamily::block, cfg)) return false;
  // Per-warp staging is hybrid.cu's rule from P = 16 chunk threads (pipelined_warp_staged); the
  // block-wide form and the clusters have no length per system.
  if (cfg.map != Mapping::system_pipelined || cfg.C != 1 || cfg.P < 16 ||
      cfg.M != pipelined_rows<T> || (cfg.S != run64<T> && cfg.S != 2 * run64<T>)) {
    return false;
  }
  cfg_ = cfg;
  n_ = p.n;
  smem_ = PipelinedSmem<T>::make(true, static_cast<int>(p.n), cfg.M, cfg.P, cfg.S, 1).bytes();
  const int threads = cfg.S * cfg.P;
  int per_sm = 0, sms = 0, device = 0;
  for (const auto kernel : {kernel_for<T, false>(cfg.S), kernel_for<T, true>(cfg.S)})
    allow_shared_memory(kernel, smem_);
  TRIAX_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, kernel_for<T, false>(cfg.S), threads, smem_));
  TRIAX_CUDA_CHECK(cudaGetDevice(&device));
  TRIAX_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  per_sm = std::max(per_sm, 1);
  const std::int64_t groups = p.count / cfg.S;
  // Persistent blocks, as many as the fixed kernel launches (hybrid.cu, launch_pipelined_kernel).
  blocks_ = static_cast<unsigned>(
      std::min<std::int64_t>(balanced_launch(groups, std::int64_t(per_sm) * sms, per_sm),
                             std::int64_t(1) << 30));
  return true;
}

template <class T>
bool VarPipelined<T>::run(const Problem& p, const Operands<T>& ops, const std::int64_t* lengths,
                          cudaStream_t stream) const {
  if (!aligned16(ops)) return false;
  Problem q = p;
  q.n = n_;  // the longest length: rows beyond it are never touched
  const HybridShape sh = shape_of(n_, cfg_);
  const auto go = [&](auto kernel) {
    launch_kernel(kernel, dim3(blocks_), dim3(cfg_.S * cfg_.P), smem_, stream, q, ops, sh,
                  lengths);
  };
  ops.accumulate ? go(kernel_for<T, true>(cfg_.S)) : go(kernel_for<T, false>(cfg_.S));
  return true;
}

template class VarPipelined<float>;
template class VarPipelined<double>;

}  // namespace triax::detail::cuda
