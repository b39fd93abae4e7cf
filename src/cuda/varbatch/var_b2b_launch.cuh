#pragma once
// The launches of var_b2b_launch.hpp for one variant; included by var_b2b_launch_<variant>.cu,
// which instantiates them for float and double.
#include "cuda/cuda_check.hpp"
#include "cuda/launch/launch_kernel.hpp"
#include "cuda/varbatch/var_b2b_kernel.cuh"
#include "cuda/varbatch/var_b2b_launch.hpp"

namespace triax::detail::cuda {

/// f(std::integral_constant<int, P>) for the class sizes of B2BPlan (8 .. 256).
template <class F>
void with_b2b_P(int P, F&& f) {
  switch (P) {
    case 8:
      f(std::integral_constant<int, 8>{});
      break;
    case 16:
      f(std::integral_constant<int, 16>{});
      break;
    case 32:
      f(std::integral_constant<int, 32>{});
      break;
    case 64:
      f(std::integral_constant<int, 64>{});
      break;
    case 128:
      f(std::integral_constant<int, 128>{});
      break;
    default:
      f(std::integral_constant<int, 256>{});
      break;
  }
}

template <class T, B2BVariant V>
std::int64_t prepare_b2b_class(int P, bool bound) {
  std::int64_t resident = 1;
  with_b2b_P(P, [&](auto p) {
    constexpr int Pc = decltype(p)::value;
    constexpr int M = B2BPlan::M;
    constexpr std::size_t smem = B2BSmem<T, M, Pc>::bytes;
    const void* kernels[] = {
        reinterpret_cast<const void*>(var_b2b_kernel<T, M, Pc, false, V, true>),
        reinterpret_cast<const void*>(var_b2b_kernel<T, M, Pc, true, V, true>),
        reinterpret_cast<const void*>(var_b2b_kernel<T, M, Pc, false, V, false>)};
    for (int k = 0; k < (bound ? 3 : 2); ++k) allow_shared_memory(kernels[k], smem);
    int per_sm = 0, sms = 0, device = 0;
    TRIAX_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernels[0], b2b_threads, smem));
    TRIAX_CUDA_CHECK(cudaGetDevice(&device));
    TRIAX_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    resident = std::max<std::int64_t>(1, std::int64_t(per_sm) * sms);
  });
  return resident;
}

template <class T, B2BVariant V>
void launch_b2b_class(const Operands<T>& ops, const B2BEntry* entries, const B2BClass& c,
                      const B2BLaunch& how, cudaStream_t stream) {
  if (c.count <= 0) return;
  with_b2b_P(c.P, [&](auto p) {
    constexpr int Pc = decltype(p)::value;
    constexpr int M = B2BPlan::M;
    constexpr int S = b2b_threads / Pc;
    const auto grid =
        static_cast<unsigned>(std::min<std::int64_t>((c.count + S - 1) / S, std::int64_t(1) << 30));
    const auto go = [&](auto kernel) {
      launch_kernel(kernel, grid, b2b_threads, B2BSmem<T, M, Pc>::bytes, stream, ops,
                    entries + c.first, c.count, c.longest, how.wave);
    };
    if (ops.accumulate) {
      go(var_b2b_kernel<T, M, Pc, true, V, true>);
    } else if (how.bound) {
      go(var_b2b_kernel<T, M, Pc, false, V, false>);
    } else {
      go(var_b2b_kernel<T, M, Pc, false, V, true>);
    }
  });
}

}  // namespace triax::detail::cuda

/// Instantiates the launches of variant V for float and double (one file per variant).
#define TRIAX_B2B_LAUNCH_VARIANT(V)                                                           \
  namespace triax::detail::cuda {                                                             \
  template std::int64_t prepare_b2b_class<float, V>(int, bool);                               \
  template std::int64_t prepare_b2b_class<double, V>(int, bool);                              \
  template void launch_b2b_class<float, V>(const Operands<float>&, const B2BEntry*,           \
                                           const B2BClass&, const B2BLaunch&, cudaStream_t);  \
  template void launch_b2b_class<double, V>(const Operands<double>&, const B2BEntry*,         \
                                            const B2BClass&, const B2BLaunch&, cudaStream_t); \
  }
