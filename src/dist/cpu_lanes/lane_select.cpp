// The CPU ranks' local passes: the compiled copy of the lanes that cpu::kernel_isa() picks.
#include <cstdlib>
#include <cstring>

#include "cpu/isa.hpp"
#include "dist/cpu_lanes/lane_passes.hpp"

namespace triax::detail::dist_lanes {

template <class T>
LanePasses<T> lane_passes() {
  switch (cpu::kernel_isa()) {
    case cpu::Isa::avx512:
      return {&avx512::reduce<T>, &avx512::finish<T>, avx512::width<T>()};
    case cpu::Isa::avx2:
      return {&avx2::reduce<T>, &avx2::finish<T>, avx2::width<T>()};
    default:
      return {&baseline::reduce<T>, &baseline::finish<T>, baseline::width<T>()};
  }
}
bool strips_from_environment() {
  const char* v = std::getenv("TRIAX_DIST_STRIPS");
  return !(v && std::strcmp(v, "0") == 0);
}

bool recompute_from_environment() {
  const char* v = std::getenv("TRIAX_DIST_RECOMPUTE");
  return v && std::strcmp(v, "1") == 0;
}

template LanePasses<float> lane_passes<float>();
template LanePasses<double> lane_passes<double>();

}  // namespace triax::detail::dist_lanes
