// triax::VarSolver on the CUDA backend against the reference backend, and paper 002's layouts
// through the fixed-size CUDA plan: back to back (systems ordered by length into warps, the long
// ones through the fixed-size hybrid), padded Flat / Full-Interleaved / Unified-Vector, every
// mode, checked mode. Every test reports SKIPPED without a device. TRIAX_TEST_QUICK=1
// (compute-sanitizer) keeps the batches small.
#include <gtest/gtest.h>

#include <cstdlib>

#include "support/device_runner.hpp"
#include "support/var_batches.hpp"
#include "triax/layouts.hpp"

namespace triax::test {
namespace {

bool quick() {
  const char* q = std::getenv("TRIAX_TEST_QUICK");
  return q != nullptr && q[0] == '1';
}

#define TRIAX_NEED_DEVICE() \
  if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device"

/// Copies the batch to the device, solves on a stream of its own, copies back.
template <class T>
VarRunner<T> var_cuda_runner() {
  return [](VarBatch<T>& v, Mode mode, int* info) {
    cudaStream_t stream;
    TRIAX_TEST_CUDA_OK(cudaStreamCreate(&stream));
    DeviceBuffer<T> a(v.a), b(v.b), c(v.c), d(v.d), x(v.x);
    std::vector<int> info_host(static_cast<std::size_t>(v.layout.count()) + 1, -7);
    DeviceBuffer<int> di(info_host);
    ASSERT_TRUE(a.get() && b.get() && c.get() && d.get() && x.get() && di.get());
    VarSolver<T> s(Backend::cuda, v.layout, {.checked = info != nullptr, .stream = stream});
    int* dinfo = info != nullptr ? di.get() : nullptr;
    switch (mode) {
      case Mode::in_place: s.solve_in_place(a.get(), b.get(), c.get(), d.get(), dinfo); break;
      case Mode::separate: s.solve(a.get(), b.get(), c.get(), d.get(), x.get(), dinfo); break;
      case Mode::increment:
        s.solve_increment(a.get(), b.get(), c.get(), d.get(), x.get(), dinfo);
        break;
    }
    TRIAX_TEST_CUDA_OK(cudaStreamSynchronize(stream));
    TRIAX_TEST_CUDA_OK(cudaGetLastError());
    d.download(v.d);
    x.download(v.x);
    if (info != nullptr) {
      di.download(info_host);
      std::copy(info_host.begin(), info_host.end(), info);
    }
    TRIAX_TEST_CUDA_OK(cudaStreamDestroy(stream));
  };
}

template <class T>
class CudaVarBatch : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CudaVarBatch, Types);

constexpr Mode modes[] = {Mode::in_place, Mode::separate, Mode::increment};

TYPED_TEST(CudaVarBatch, BackToBackMixedLengthsEveryMode) {
  TRIAX_NEED_DEVICE();
  using T = TypeParam;
  const auto lengths = mixed_lengths(test_seed(), quick() ? 70 : 1000, quick() ? 200 : 1500);
  VarBatch<T> v(VarLayout::back_to_back(lengths));
  v.fill(test_seed(1));
  for (const Mode m : modes) expect_var_matches_reference(v, m, var_cuda_runner<T>());
}

TYPED_TEST(CudaVarBatch, BackToBackGapsAndLongSystems) {
  TRIAX_NEED_DEVICE();
  using T = TypeParam;
  // Two systems above VarSolver::long_system_rows go through the fixed-size hybrid, the rest
  // through the per-thread kernel; gaps between systems must come back untouched.
  std::vector<std::int64_t> lengths = {VarSolver<T>::long_system_rows + 1, 0, 1, 2, 3,
                                       quick() ? 9000 : 40000};
  for (int k = 0; k < 100; ++k) lengths.push_back(8 + (k * 53) % 600);
  std::vector<std::int64_t> offsets(lengths.size());
  std::int64_t next = 1;
  for (std::size_t k = lengths.size(); k-- > 0;) {
    offsets[k] = next;
    next += lengths[k] + static_cast<std::int64_t>(k % 5);
  }
  VarBatch<T> v(VarLayout::back_to_back(lengths, offsets));
  v.fill(test_seed());
  for (const Mode m : modes) expect_var_matches_reference(v, m, var_cuda_runner<T>());
  expect_var_matches_reference(v, Mode::separate, var_cuda_runner<T>(), /*checked=*/true);
}

TYPED_TEST(CudaVarBatch, PaddedPaperLayoutsEveryMode) {
  TRIAX_NEED_DEVICE();
  using T = TypeParam;
  const std::int64_t n = quick() ? 33 : 300, count = quick() ? 70 : 2000;
  const auto lengths = mixed_lengths(test_seed(), count, n);
  const std::pair<const char*, OperandLayouts> cases[] = {
      {"flat", OperandLayouts(layouts::flat(n, count))},
      {"interleaved", OperandLayouts(layouts::interleaved(n, count))},
      {"unified", layouts::unified_vector(n, count)}};
  for (const auto& [name, l] : cases) {
    SCOPED_TRACE(name);
    VarBatch<T> v(VarLayout::padded(l, 0, lengths), l, 0);
    v.fill(test_seed(1));
    for (const Mode m : modes) expect_var_matches_reference(v, m, var_cuda_runner<T>());
  }
}

TYPED_TEST(CudaVarBatch, CheckedModeReportsBreakdownPerSystem) {
  TRIAX_NEED_DEVICE();
  using T = TypeParam;
  const std::vector<std::int64_t> lengths = {4, 0, 1, 6, 3, 9, 2};
  VarBatch<T> v(VarLayout::back_to_back(lengths));
  v.fill(test_seed());
  v.b[v.rows(1, 0)[0]] = 0;
  v.b[v.rows(1, 2)[0]] = 0;
  for (const Mode m : modes) {
    expect_var_matches_reference(v, m, var_cuda_runner<T>(), /*checked=*/true);
  }
}

// Lengths and offsets in device memory: the layout copies them once; the solve matches the
// layout made from host arrays.
TYPED_TEST(CudaVarBatch, LengthsAndOffsetsInDeviceMemory) {
  TRIAX_NEED_DEVICE();
  using T = TypeParam;
  const auto lengths = mixed_lengths(test_seed(), 90, 300);
  std::vector<std::int64_t> offsets(lengths.size());
  std::int64_t next = 0;
  for (std::size_t k = 0; k < lengths.size(); ++k) {
    offsets[k] = next;
    next += lengths[k] + 2;  // gaps of 2
  }
  DeviceBuffer<std::int64_t> dl(lengths), doff(offsets);
  ASSERT_TRUE(dl.get() && doff.get());
  const VarLayout from_device = VarLayout::back_to_back(
      std::span<const std::int64_t>(dl.get(), lengths.size()),
      std::span<const std::int64_t>(doff.get(), offsets.size()));
  ASSERT_EQ(from_device.count(), static_cast<std::int64_t>(lengths.size()));
  for (std::size_t k = 0; k < lengths.size(); ++k) {
    ASSERT_EQ(from_device.length(k), lengths[k]);
    ASSERT_EQ(from_device.offset(k), offsets[k]);
  }
  VarBatch<T> v(from_device);
  v.fill(test_seed(1));
  expect_var_matches_reference(v, Mode::in_place, var_cuda_runner<T>());
  const OperandLayouts il(layouts::interleaved(300, 90));
  const VarLayout padded =
      VarLayout::padded(il, 0, std::span<const std::int64_t>(dl.get(), lengths.size()));
  EXPECT_EQ(padded.total_rows(), VarLayout::back_to_back(lengths).total_rows());
}

TEST(CudaVarBatchChecks, HostPointersRejected) {
  TRIAX_NEED_DEVICE();
  const std::vector<std::int64_t> lengths = {3, 4};
  VarBatch<float> v(VarLayout::back_to_back(lengths));
  VarSolver<float> s(Backend::cuda, v.layout);
  EXPECT_THROW(s.solve(v.a.data(), v.b.data(), v.c.data(), v.d.data(), v.x.data()),
               invalid_argument);
}

// Paper 002's layouts through the fixed-size CUDA plan, against the reference; Unified-Vector
// also in place in one device buffer.
template <class T>
class CudaLayouts : public ::testing::Test {};
TYPED_TEST_SUITE(CudaLayouts, Types);

TYPED_TEST(CudaLayouts, PaperLayoutsMatchTheReference) {
  TRIAX_NEED_DEVICE();
  using T = TypeParam;
  const std::int64_t n = quick() ? 64 : 256, count = quick() ? 256 : 2560;
  const std::pair<const char*, OperandLayouts> cases[] = {
      {"flat", OperandLayouts(layouts::flat(n, count))},
      {"interleaved", OperandLayouts(layouts::interleaved(n, count))},
      {"unified", layouts::unified_vector(n, count)}};
  for (const auto& [name, l] : cases) {
    SCOPED_TRACE(name);
    for (const Mode m : modes) {
      expect_matches_reference<T>(l, 0, m, test_seed(), cuda_runner<T>(Algorithm::automatic));
    }
  }
}

TYPED_TEST(CudaLayouts, UnifiedVectorInPlaceInOneDeviceBuffer) {
  TRIAX_NEED_DEVICE();
  using T = TypeParam;
  const OperandLayouts u = layouts::unified_vector(quick() ? 40 : 200, quick() ? 100 : 3000);
  Batch<T> split(u);
  split.fill_random(test_seed());
  std::vector<T> one(buffer_size(u.d), Batch<T>::poison());
  for_each_offset(u.a, [&](std::int64_t o) { one[o] = split.a[o]; });
  for_each_offset(u.b, [&](std::int64_t o) { one[o] = split.b[o]; });
  for_each_offset(u.c, [&](std::int64_t o) { one[o] = split.c[o]; });
  for_each_offset(u.d, [&](std::int64_t o) { one[o] = split.d[o]; });
  DeviceBuffer<T> dev(one);
  ASSERT_TRUE(dev.get());
  Solver<T> gpu(Backend::cuda, u, 0);
  gpu.solve_in_place(dev.get(), dev.get(), dev.get(), dev.get());
  TRIAX_TEST_CUDA_OK(cudaDeviceSynchronize());
  dev.download(one);
  Solver<T> ref(Backend::reference, u, 0);
  ref.solve_in_place(split.a.data(), split.b.data(), split.c.data(), split.d.data());
  std::vector<T> got(split.d.size(), Batch<T>::poison());
  for_each_offset(u.d, [&](std::int64_t o) { got[o] = one[o]; });
  EXPECT_TRUE(outputs_match(u.d, got, split.d, split.condition));
  for_each_offset(u.b, [&](std::int64_t o) { ASSERT_EQ(one[o], split.b[o]); });
}

}  // namespace
}  // namespace triax::test
