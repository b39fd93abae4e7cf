// TRIAX_CPU_ISA and the run-time pick of the CPU kernels' compiled copy (cpu/isa.hpp): the widest
// copy the processor runs by default, a named copy when forced, a refusal for a name it does not
// know or a copy the processor lacks; and every copy this machine runs against the reference
// backend. (The whole CPU suite also runs once per copy: tests/CMakeLists.txt.)
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "cpu/batch.hpp"
#include "cpu/isa.hpp"
#include "support/compare.hpp"
#include "support/scoped_env.hpp"
#include "triax/errors.hpp"

namespace triax::test {
namespace {

using detail::cpu::Isa;

struct Copy {
  const char* name;
  Isa isa;
  bool usable;
};

std::vector<Copy> copies() {
  return {{"baseline", Isa::baseline, true},
          {"avx2", Isa::avx2, detail::cpu::avx2_kernels_usable()},
          {"avx512", Isa::avx512, detail::cpu::avx512_kernels_usable()}};
}

TEST(CpuKernelIsa, DefaultIsTheWidestUsableCopy) {
  const ScopedEnv none("TRIAX_CPU_ISA", nullptr);
  const Isa expected = detail::cpu::avx512_kernels_usable() ? Isa::avx512
                       : detail::cpu::avx2_kernels_usable() ? Isa::avx2
                                                            : Isa::baseline;
  EXPECT_EQ(detail::cpu::kernel_isa(), expected);
  // An empty value is no choice either.
  const ScopedEnv empty("TRIAX_CPU_ISA", "");
  EXPECT_EQ(detail::cpu::kernel_isa(), expected);
}

TEST(CpuKernelIsa, ForcedCopyIsTheOneNamedOrRefused) {
  for (const Copy& c : copies()) {
    SCOPED_TRACE(c.name);
    const ScopedEnv forced("TRIAX_CPU_ISA", c.name);
    if (c.usable) {
      EXPECT_EQ(detail::cpu::kernel_isa(), c.isa);
    } else {
      EXPECT_THROW(detail::cpu::kernel_isa(), invalid_argument);
    }
  }
}

TEST(CpuKernelIsa, UnknownNameIsRefusedBeforeAnySolve) {
  const ScopedEnv forced("TRIAX_CPU_ISA", "sse9");
  try {
    Solver<double> solver(Backend::cpu, OperandLayouts(Layout::packed({8, 4})), 0);
    ADD_FAILURE() << "a cpu solver was built with TRIAX_CPU_ISA=sse9";
  } catch (const invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("TRIAX_CPU_ISA"), std::string::npos) << what;
    EXPECT_NE(what.find("sse9"), std::string::npos) << what;
  }
}

template <class T>
class CpuKernelIsaCopies : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CpuKernelIsaCopies, ValueTypes);

// Each copy this processor runs, every kernel, against the reference: odd lengths and counts
// (vector and tile tails), every axis of a 3-D array, padded rows, each output mode.
TYPED_TEST(CpuKernelIsaCopies, EveryUsableCopyMatchesReference) {
  using T = TypeParam;
  const Algorithm algorithms[] = {Algorithm::automatic, Algorithm::cpu_thomas,
                                  Algorithm::cpu_thomas_transpose,
                                  Algorithm::cpu_thomas_partitioned};
  int k = 0;
  for (const Copy& c : copies()) {
    if (!c.usable) continue;
    const ScopedEnv forced("TRIAX_CPU_ISA", c.name);
    for (const auto& shape :
         std::vector<std::vector<std::int64_t>>{{67, 35, 3}, {33, 9, 17}, {257, 41, 2}}) {
      for (int axis = 0; axis < 3; ++axis) {
        for (Algorithm alg : algorithms) {
          SCOPED_TRACE(std::string(c.name) + ", axis " + std::to_string(axis) + ", " +
                       std::string(to_string(alg)));
          ++k;
          expect_matches_reference<T>(OperandLayouts(Layout::packed(shape)), axis, all_modes[k % 3],
                                      test_seed(k), host_runner<T>(Backend::cpu, alg));
        }
      }
    }
  }
}

}  // namespace
}  // namespace triax::test
