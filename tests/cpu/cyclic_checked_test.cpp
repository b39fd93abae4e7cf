// Checked mode of the CPU cyclic family (the checks in support/cyclic_checks.hpp): a zero pivot
// at a known row reported at that row by CR, PCR and CR+PCR, only in its own system; CR taking
// a zero diagonal at an even row; RD's overflow reported per system, never returned as a finite
// answer; a NaN input reported; healthy systems get 0 and the unchecked x.
#include <gtest/gtest.h>

#include <vector>

#include "support/cyclic_checks.hpp"

namespace triax::test {
namespace {

template <class T>
class CpuCyclicChecked : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CpuCyclicChecked, ValueTypes);

TYPED_TEST(CpuCyclicChecked, ZeroPivotAtAKnownRow) {
  expect_zero_pivot_reported<TypeParam>(Backend::cpu, cpu_checked_solve<TypeParam>);
}

TYPED_TEST(CpuCyclicChecked, CrTakesAZeroDiagonalAtAnEvenRow) {
  expect_cr_takes_a_zero_diagonal_at_an_even_row<TypeParam>(Backend::cpu,
                                                            cpu_checked_solve<TypeParam>);
}

TYPED_TEST(CpuCyclicChecked, RdOverflowIsReportedPerSystem) {
  expect_rd_overflow_reported<TypeParam>(Backend::cpu, cpu_checked_solve<TypeParam>);
}

TYPED_TEST(CpuCyclicChecked, NonFiniteInputIsReported) {
  expect_non_finite_input_reported<TypeParam>(Backend::cpu, cpu_checked_solve<TypeParam>);
}

TYPED_TEST(CpuCyclicChecked, HealthySystemsGetZero) {
  expect_healthy_systems_get_zero<TypeParam>(Backend::cpu, cpu_checked_solve<TypeParam>);
}

// Every mode reports the same info (the zero pivot of a planted row).
TYPED_TEST(CpuCyclicChecked, EveryModeReportsTheSameRow) {
  using T = TypeParam;
  const Layout layout = Layout::packed({200, 3});
  for (Mode mode : all_modes) {
    Batch<T> batch{OperandLayouts(layout)};
    batch.fill_random(test_seed());
    batch.fill_x(T(0));
    batch.b[system_row_offset(layout, 0, 1, 101)] = 0;
    Solver<T> s(Backend::cpu, layout, 0, {.algorithm = Algorithm::cpu_pcr, .checked = true});
    std::vector<int> info(3, -1);
    run_mode(s, batch, mode, info.data());
    EXPECT_EQ(info, (std::vector<int>{0, 102, 0})) << to_string(mode);
  }
}

}  // namespace
}  // namespace triax::test
