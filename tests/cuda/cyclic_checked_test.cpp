// Checked mode of the CUDA cyclic family, info in device memory: a zero pivot at a known row is
// reported at that row by CR, PCR and CR+PCR, only in its own system; RD's overflow is reported
// per system and never returned as a finite answer; healthy systems get 0; the reports agree
// with the CPU references'.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "support/cyclic_problems.hpp"
#include "support/device_runner.hpp"

namespace triax::test {
namespace {

template <class T>
class CudaCyclicChecked : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  }
};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CudaCyclicChecked, ValueTypes);

/// Solves a batch on the GPU (separate output), checked or not; returns info (-1 where unwritten
/// or unchecked) and leaves x in batch.x.
template <class T>
std::vector<int> device_solve(Algorithm algorithm, const Layout& layout, int axis, Batch<T>& batch,
                              bool checked) {
  DeviceBuffer<T> a(batch.a), b(batch.b), c(batch.c), d(batch.d), x(batch.x);
  Solver<T> s(Backend::cuda, layout, axis, {.algorithm = algorithm, .checked = checked});
  std::vector<int> info(s.system_count(), -1);
  int* dinfo = nullptr;
  EXPECT_EQ(cudaMalloc(&dinfo, info.size() * sizeof(int)), cudaSuccess);
  EXPECT_EQ(cudaMemset(dinfo, 0xff, info.size() * sizeof(int)), cudaSuccess);
  s.solve(a.get(), b.get(), c.get(), d.get(), x.get(), checked ? dinfo : nullptr);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(info.data(), dinfo, info.size() * sizeof(int), cudaMemcpyDeviceToHost),
            cudaSuccess);
  cudaFree(dinfo);
  x.download(batch.x);
  return info;
}

/// The CPU reference algorithm of a CUDA one (cuda_cr -> cpu_cr, ...).
Algorithm cpu_twin(Algorithm cuda) {
  const auto cpu = cyclic_cases<double>(Backend::cpu);
  const auto gpu = cyclic_cases<double>(Backend::cuda);
  for (std::size_t k = 0; k < gpu.size(); ++k) {
    if (gpu[k].algorithm == cuda) return cpu[k].algorithm;
  }
  return Algorithm::automatic;
}

// b = 0 at an odd row: CR's and PCR's first step divides by it before anything else.
TYPED_TEST(CudaCyclicChecked, ZeroPivotAtAKnownRow) {
  using T = TypeParam;
  constexpr std::int64_t n = 300, systems = 5;
  int k = 0;
  for (Algorithm alg : {Algorithm::cuda_cr, Algorithm::cuda_pcr, Algorithm::cuda_cr_pcr}) {
    for (std::int64_t row : {1, 77, 255, 299}) {
      SCOPED_TRACE(std::string(to_string(alg)) + ", row " + std::to_string(row));
      const int axis = ++k % 2;
      const Layout layout =
          axis == 0 ? Layout::packed({n, systems}) : Layout::packed({systems, n});
      Batch<T> batch{OperandLayouts(layout)};
      batch.fill_random(test_seed(k));
      batch.fill_x(T(0));
      batch.b[system_row_offset(layout, axis, 3, row)] = 0;
      const std::vector<int> info = device_solve(alg, layout, axis, batch, true);
      for (std::int64_t s = 0; s < systems; ++s) {
        EXPECT_EQ(info[s], s == 3 ? row + 1 : 0) << "system " << s;
      }
    }
  }
}

// Systems 1 and 3 strongly dominant (RD's products overflow), 0 and 2 close-valued: RD and CR+RD
// report 1 and 3 only, at the row the CPU reference reports, and unchecked their x is not finite.
TYPED_TEST(CudaCyclicChecked, RdOverflowIsReportedPerSystem) {
  using T = TypeParam;
  constexpr std::int64_t n = 300, systems = 4;
  const Layout layout = Layout::packed({n, systems});
  for (Algorithm alg : {Algorithm::cuda_rd, Algorithm::cuda_cr_rd}) {
    SCOPED_TRACE(std::string(to_string(alg)));
    Batch<T> batch{OperandLayouts(layout)};
    fill_close_values(batch, 0, test_seed(1));
    make_rd_overflow(batch, 0, 1, test_seed(2));
    make_rd_overflow(batch, 0, 3, test_seed(3));
    batch.fill_x(T(0));
    Batch<T> host = batch;
    Batch<T> unchecked = batch;
    const std::vector<int> info = device_solve(alg, layout, 0, batch, true);
    EXPECT_EQ(info[0], 0);
    EXPECT_EQ(info[2], 0);
    EXPECT_GT(info[1], 0);
    EXPECT_GT(info[3], 0);
    Solver<T> cpu(Backend::cpu, layout, 0, {.algorithm = cpu_twin(alg), .checked = true});
    std::vector<int> cpu_info(systems, -1);
    cpu.solve(host.a.data(), host.b.data(), host.c.data(), host.d.data(), host.x.data(),
              cpu_info.data());
    EXPECT_EQ(info, cpu_info);
    device_solve(alg, layout, 0, unchecked, false);
    for (std::int64_t s : {1, 3}) {
      bool any_non_finite = false;
      for (std::int64_t i = 0; i < n; ++i) {
        any_non_finite |= !std::isfinite(unchecked.x[system_row_offset(layout, 0, s, i)]);
      }
      EXPECT_TRUE(any_non_finite) << "system " << s << " came out finite";
    }
  }
}

// Healthy batches: info 0 everywhere, and the same x as unchecked.
TYPED_TEST(CudaCyclicChecked, HealthySystemsGetZero) {
  using T = TypeParam;
  for (std::int64_t n : {1, 2, 3, 129, 257, 1000}) {
    const Layout layout = Layout::packed({n, 4});
    for (const CyclicCase<T>& c : cyclic_cases<T>(Backend::cuda)) {
      Batch<T> batch{OperandLayouts(layout)};
      if (c.close_values) {
        fill_close_values(batch, 0, test_seed(n));
      } else {
        batch.fill_random(test_seed(n));
      }
      batch.fill_x(T(0));
      Batch<T> plain = batch;
      const std::vector<int> info = device_solve(c.algorithm, layout, 0, batch, true);
      EXPECT_EQ(info, std::vector<int>(4, 0)) << to_string(c.algorithm) << ", n " << n;
      device_solve(c.algorithm, layout, 0, plain, false);
      EXPECT_TRUE(same_bits(plain.x, batch.x)) << to_string(c.algorithm) << ", n " << n;
    }
  }
}

// A NaN in d: the system is reported, its neighbours are not.
TYPED_TEST(CudaCyclicChecked, NonFiniteInputIsReported) {
  using T = TypeParam;
  const Layout layout = Layout::packed({50, 3});
  for (const CyclicCase<T>& c : cyclic_cases<T>(Backend::cuda)) {
    Batch<T> batch{OperandLayouts(layout)};
    fill_close_values(batch, 0, test_seed());
    batch.fill_x(T(0));
    batch.d[system_row_offset(layout, 0, 2, 20)] = std::numeric_limits<T>::quiet_NaN();
    const std::vector<int> info = device_solve(c.algorithm, layout, 0, batch, true);
    EXPECT_EQ(info[0], 0) << to_string(c.algorithm);
    EXPECT_EQ(info[1], 0) << to_string(c.algorithm);
    EXPECT_GT(info[2], 0) << to_string(c.algorithm);
  }
}

}  // namespace
}  // namespace triax::test
