#pragma once
// The compiled copies of the CPU ranks' lane passes (src/dist/cpu_lanes) that this processor
// runs, for the tests that compare them (lane_passes_test.cpp, strips_test.cpp).
#include <vector>

#include "dist/cpu_lanes/lane_passes.hpp"

namespace triax::detail::dist_lanes::test {

struct Copy {
  const char* name;
  bool usable;
  LanePass<float> reduce_f, finish_f;
  LanePass<double> reduce_d, finish_d;
  int width_f, width_d;
};

inline std::vector<Copy> usable_copies() {
  std::vector<Copy> copies = {{"baseline", true, &baseline::reduce<float>, &baseline::finish<float>,
                               &baseline::reduce<double>, &baseline::finish<double>,
                               baseline::width<float>(), baseline::width<double>()}};
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const bool avx512 = avx2 && __builtin_cpu_supports("avx512f") &&
                      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
                      __builtin_cpu_supports("avx512bw");
  copies.push_back({"avx2", avx2, &avx2::reduce<float>, &avx2::finish<float>, &avx2::reduce<double>,
                    &avx2::finish<double>, avx2::width<float>(), avx2::width<double>()});
  copies.push_back({"avx512", avx512, &avx512::reduce<float>, &avx512::finish<float>,
                    &avx512::reduce<double>, &avx512::finish<double>, avx512::width<float>(),
                    avx512::width<double>()});
#endif
  return copies;
}

}  // namespace triax::detail::dist_lanes::test
