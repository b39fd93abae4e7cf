// Built where lanes_avx2.cpp and lanes_avx512.cpp are not: their entries are the baseline copy
// (never picked there, since cpu::kernel_isa() reports neither as usable).
#include "dist/cpu_lanes/lane_passes.hpp"

namespace triax::detail::dist_lanes {
#define TRIAX_DIST_LANES_FORWARD(isa)                                               \
  namespace isa {                                                                   \
  template <class T>                                                                \
  void reduce(const LaneJob<T>& job, std::int64_t first, std::int64_t size) {       \
    baseline::reduce<T>(job, first, size);                                          \
  }                                                                                 \
  template <class T>                                                                \
  void finish(const LaneJob<T>& job, std::int64_t first, std::int64_t size) {       \
    baseline::finish<T>(job, first, size);                                          \
  }                                                                                 \
  template <class T>                                                                \
  int width() {                                                                     \
    return baseline::width<T>();                                                    \
  }                                                                                 \
  template void reduce<float>(const LaneJob<float>&, std::int64_t, std::int64_t);   \
  template void reduce<double>(const LaneJob<double>&, std::int64_t, std::int64_t); \
  template void finish<float>(const LaneJob<float>&, std::int64_t, std::int64_t);   \
  template void finish<double>(const LaneJob<double>&, std::int64_t, std::int64_t); \
  template int width<float>();                                                      \
  template int width<double>();                                                     \
  }
TRIAX_DIST_LANES_FORWARD(avx2)
TRIAX_DIST_LANES_FORWARD(avx512)
#undef TRIAX_DIST_LANES_FORWARD
}  // namespace triax::detail::dist_lanes
