// Checked mode of the CUDA cyclic family, info in device memory (the checks in
// support/cyclic_checks.hpp): a zero pivot at a known row reported at that row by CR, PCR and
// CR+PCR, only in its own system; CR taking a zero diagonal at an even row; RD's overflow
// reported per system as the CPU references report it, never returned as a finite answer; a NaN
// input reported; healthy systems get 0 and the unchecked x.
#include <gtest/gtest.h>

#include <vector>

#include "support/cyclic_checks.hpp"
#include "support/device_runner.hpp"

namespace triax::test {
namespace {

template <class T>
class CudaCyclicChecked : public NeedsDevice<> {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CudaCyclicChecked, ValueTypes);

template <class T>
std::vector<int> cuda_solve(Algorithm algorithm, const Layout& layout, int axis, Batch<T>& batch,
                            bool checked) {
  DeviceBuffer<T> a(batch.a), b(batch.b), c(batch.c), d(batch.d), x(batch.x);
  Solver<T> s(Backend::cuda, layout, axis, {.algorithm = algorithm, .checked = checked});
  std::vector<int> info(s.system_count(), -1);
  int* device_info = nullptr;
  EXPECT_EQ(cudaMalloc(&device_info, info.size() * sizeof(int)), cudaSuccess);
  EXPECT_EQ(cudaMemset(device_info, 0xff, info.size() * sizeof(int)), cudaSuccess);
  s.solve(a.get(), b.get(), c.get(), d.get(), x.get(), checked ? device_info : nullptr);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(info.data(), device_info, info.size() * sizeof(int), cudaMemcpyDeviceToHost),
            cudaSuccess);
  cudaFree(device_info);
  x.download(batch.x);
  return info;
}

TYPED_TEST(CudaCyclicChecked, ZeroPivotAtAKnownRow) {
  expect_zero_pivot_reported<TypeParam>(Backend::cuda, cuda_solve<TypeParam>);
}

TYPED_TEST(CudaCyclicChecked, CrTakesAZeroDiagonalAtAnEvenRow) {
  expect_cr_takes_a_zero_diagonal_at_an_even_row<TypeParam>(Backend::cuda, cuda_solve<TypeParam>);
}

TYPED_TEST(CudaCyclicChecked, RdOverflowIsReportedPerSystem) {
  expect_rd_overflow_reported<TypeParam>(Backend::cuda, cuda_solve<TypeParam>,
                                         cpu_checked_solve<TypeParam>);
}

TYPED_TEST(CudaCyclicChecked, NonFiniteInputIsReported) {
  expect_non_finite_input_reported<TypeParam>(Backend::cuda, cuda_solve<TypeParam>);
}

TYPED_TEST(CudaCyclicChecked, HealthySystemsGetZero) {
  expect_healthy_systems_get_zero<TypeParam>(Backend::cuda, cuda_solve<TypeParam>);
}

}  // namespace
}  // namespace triax::test
