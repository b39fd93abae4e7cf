// triax::VarSolver on the CUDA backend against the reference backend, and paper 002's layouts
// through the fixed-size CUDA plan: back to back (short systems a warp each, longer ones in
// segments of a warp each, the longest and checked mode as before), padded Flat /
// Full-Interleaved / Unified-Vector (tiles of neighbouring systems), every mode, checked mode,
// lengths passed per solve. Every test reports SKIPPED without a device. TRIAX_TEST_QUICK=1
// (compute-sanitizer) keeps the batches small.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>

#include "support/device_runner.hpp"
#include "support/quick_mode.hpp"
#include "support/var_batches.hpp"
#include "triax/layouts.hpp"

namespace triax::test {
namespace {

/// Copies the batch to the device, solves on a stream of its own, copies back.
template <class T>
VarRunner<T> var_cuda_runner() {
  return [](VarBatch<T>& v, Mode mode, int* info) {
    cudaStream_t stream;
    TRIAX_TEST_CUDA_OK(cudaStreamCreate(&stream));
    const DeviceOperands<T> o(v.a, v.b, v.c, v.d, v.x);
    std::vector<int> info_host(static_cast<std::size_t>(v.layout.count()) + 1, -7);
    DeviceBuffer<int> di(info_host);
    ASSERT_TRUE(o.allocated() && di.get());
    VarSolver<T> s(Backend::cuda, v.layout, {.checked = info != nullptr, .stream = stream});
    solve_in_mode(s, mode, std::tuple(o.a(), o.b(), o.c()), o.d(), o.x(),
                  info != nullptr ? di.get() : nullptr);
    TRIAX_TEST_CUDA_OK(cudaStreamSynchronize(stream));
    TRIAX_TEST_CUDA_OK(cudaGetLastError());
    o.download(v.d, v.x);
    if (info != nullptr) {
      di.download(info_host);
      std::copy(info_host.begin(), info_host.end(), info);
    }
    TRIAX_TEST_CUDA_OK(cudaStreamDestroy(stream));
  };
}

template <class T>
class CudaVarBatch : public NeedsDevice<> {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CudaVarBatch, Types);

TYPED_TEST(CudaVarBatch, BackToBackMixedLengthsEveryMode) {
  using T = TypeParam;
  const auto lengths =
      mixed_lengths(test_seed(), quick_mode() ? 70 : 1000, quick_mode() ? 200 : 1500);
  VarBatch<T> v(VarLayout::back_to_back(lengths));
  v.fill(test_seed(1));
  for (const Mode m : all_modes) expect_var_matches_reference(v, m, var_cuda_runner<T>());
}

TYPED_TEST(CudaVarBatch, BackToBackGapsAndLongSystems) {
  using T = TypeParam;
  // Two systems above VarSolver::long_system_rows go through the fixed-size hybrid, the rest
  // through the per-thread kernel; gaps between systems must come back untouched.
  std::vector<std::int64_t> lengths = {VarSolver<T>::long_system_rows + 1, 0, 1, 2, 3,
                                       quick_mode() ? 9000 : 40000};
  for (int k = 0; k < 100; ++k) lengths.push_back(8 + (k * 53) % 600);
  std::vector<std::int64_t> offsets(lengths.size());
  std::int64_t next = 1;
  for (std::size_t k = lengths.size(); k-- > 0;) {
    offsets[k] = next;
    next += lengths[k] + static_cast<std::int64_t>(k % 5);
  }
  VarBatch<T> v(VarLayout::back_to_back(lengths, offsets));
  v.fill(test_seed());
  for (const Mode m : all_modes) expect_var_matches_reference(v, m, var_cuda_runner<T>());
  expect_var_matches_reference(v, Mode::separate, var_cuda_runner<T>(), /*checked=*/true);
}

// The segment kernels (varbatch/var_segments.cuh) take back-to-back systems of 513 rows and up
// (segments of 257..512 rows, a reduced system of 2 rows per segment): every boundary of that
// split (511, 512, 513, 1024, 1025, a reduced system of exactly 512 rows at 131072 and the first
// system beyond at 131073, which goes to a fixed-size plan of its own) among lengths 0, 1, 2, 3
// and short ones, with gaps between the systems, every mode; one long system is scaled by 2^60
// (the same solution: the sweeps' power-of-two scaling must hold across the segments).
TYPED_TEST(CudaVarBatch, SegmentedLongSystemsAmongShortOnes) {
  using T = TypeParam;
  std::vector<std::int64_t> lengths = {513, 0, 1, 2, 3, 1024, 1025, 511, 512, 64, 65, 4097};
  if (quick_mode()) {
    lengths.push_back(20000);
  } else {
    lengths.push_back(131072);
    lengths.push_back(131073);
  }
  for (int k = 0; k < 60; ++k) lengths.push_back((k * 97) % 700);
  std::vector<std::int64_t> offsets(lengths.size());
  std::int64_t next = 3;
  for (std::size_t k = 0; k < lengths.size(); ++k) {
    offsets[k] = next;
    next += lengths[k] + static_cast<std::int64_t>(k % 3);
  }
  VarBatch<T> v(VarLayout::back_to_back(lengths, offsets));
  v.fill(test_seed(2));
  const T big = std::ldexp(T(1), 60);
  for (int op = 0; op < 4; ++op) {
    std::vector<T>* arrays[] = {&v.a, &v.b, &v.c, &v.d};
    for (const std::int64_t r : v.rows(op, 6)) (*arrays[op])[r] *= big;  // the 1025-row one
  }
  for (const Mode m : all_modes) expect_var_matches_reference(v, m, var_cuda_runner<T>());
}

// A heavy-tailed batch (lengths log-uniform, as the bench's 8..65536): most of its rows are in
// systems that the segment kernels take, the rest in the staged kernel's.
TYPED_TEST(CudaVarBatch, HeavyTailEveryMode) {
  using T = TypeParam;
  std::mt19937_64 g(test_seed(3));
  std::uniform_real_distribution<double> logu(std::log(8.0),
                                              std::log(quick_mode() ? 4096.0 : 65536.0));
  std::vector<std::int64_t> lengths(quick_mode() ? 40 : 300);
  for (auto& l : lengths) l = std::llround(std::exp(logu(g)));
  lengths[7] = 0;
  lengths[11] = 1;
  lengths[13] = 2;
  VarBatch<T> v(VarLayout::back_to_back(lengths));
  v.fill(test_seed(4));
  for (const Mode m : all_modes) expect_var_matches_reference(v, m, var_cuda_runner<T>());
}

TYPED_TEST(CudaVarBatch, PaddedPaperLayoutsEveryMode) {
  using T = TypeParam;
  const std::int64_t n = quick_mode() ? 33 : 300, count = quick_mode() ? 70 : 2000;
  const auto lengths = mixed_lengths(test_seed(), count, n);
  const std::pair<const char*, OperandLayouts> cases[] = {
      {"flat", OperandLayouts(layouts::flat(n, count))},
      {"interleaved", OperandLayouts(layouts::interleaved(n, count))},
      {"unified", layouts::unified_vector(n, count)}};
  for (const auto& [name, l] : cases) {
    SCOPED_TRACE(name);
    VarBatch<T> v(VarLayout::padded(l, 0, lengths), l, 0);
    v.fill(test_seed(1));
    for (const Mode m : all_modes) expect_var_matches_reference(v, m, var_cuda_runner<T>());
  }
}

// Padded storage with a row stride other than 1 goes to the tile kernel (G neighbouring systems
// a block, a warp each) while every length fits a stage (512 rows), and to the per-thread kernel
// beyond (513) and in checked mode: lengths 0..n with 0, 1, 2, 3 and n among them, a count that
// leaves the last tile partial, and a middle axis of a padded 3-D array (systems not adjacent).
TYPED_TEST(CudaVarBatch, PaddedTilesAtTheStageBoundary) {
  using T = TypeParam;
  const std::int64_t count = quick_mode() ? 45 : 1001;
  for (const std::int64_t n : {std::int64_t(512), std::int64_t(513)}) {
    SCOPED_TRACE(n);
    const auto lengths = mixed_lengths(test_seed(5), count, n);
    for (const OperandLayouts& l :
         {OperandLayouts(layouts::interleaved(n, count)), layouts::unified_vector(n, count)}) {
      VarBatch<T> v(VarLayout::padded(l, 0, lengths), l, 0);
      v.fill(test_seed(6));
      for (const Mode m : all_modes) expect_var_matches_reference(v, m, var_cuda_runner<T>());
      expect_var_matches_reference(v, Mode::in_place, var_cuda_runner<T>(), /*checked=*/true);
    }
  }
  const OperandLayouts nd(Layout::padded({5, 40, 7}, {6, 44, 7}, {1, 2, 0}));
  const auto lengths = mixed_lengths(test_seed(7), 35, 40);
  VarBatch<T> v(VarLayout::padded(nd, 1, lengths), nd, 1);
  v.fill(test_seed(8));
  for (const Mode m : all_modes) expect_var_matches_reference(v, m, var_cuda_runner<T>());
}

TYPED_TEST(CudaVarBatch, CheckedModeReportsBreakdownPerSystem) {
  using T = TypeParam;
  const std::vector<std::int64_t> lengths = {4, 0, 1, 6, 3, 9, 2};
  VarBatch<T> v(VarLayout::back_to_back(lengths));
  v.fill(test_seed());
  v.b[v.rows(1, 0)[0]] = 0;
  v.b[v.rows(1, 2)[0]] = 0;
  for (const Mode m : all_modes) {
    expect_var_matches_reference(v, m, var_cuda_runner<T>(), /*checked=*/true);
  }
}

// Lengths and offsets in device memory: the layout copies them once; the solve matches the
// layout made from host arrays.
TYPED_TEST(CudaVarBatch, LengthsAndOffsetsInDeviceMemory) {
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

// Lengths passed per solve, on a plan made for other lengths of the same padded storage (the
// tile kernel on Full-Interleaved and Unified-Vector, the staged kernel on Flat): from host
// memory and from device memory, and device lengths beyond the bound clamped to it.
template <class T>
VarRunner<T> var_cuda_lengths_runner(const VarLayout& plan, bool lengths_on_device,
                                     std::int64_t raise_first_to = -1) {
  return [=](VarBatch<T>& v, Mode mode, int*) {
    std::vector<std::int64_t> lengths(static_cast<std::size_t>(v.layout.count()));
    for (std::size_t s = 0; s < lengths.size(); ++s) lengths[s] = v.layout.length(s);
    // On the device an out-of-range length is clamped, not rejected: system 0 of the batch has
    // the bound, and is passed as more.
    if (raise_first_to >= 0) lengths[0] = raise_first_to;
    DeviceBuffer<T> a(v.a), b(v.b), c(v.c), d(v.d), x(v.x);
    DeviceBuffer<std::int64_t> dl(lengths);
    ASSERT_TRUE(a.get() && b.get() && c.get() && d.get() && x.get() && dl.get());
    const std::span<const std::int64_t> l =
        lengths_on_device ? std::span<const std::int64_t>(dl.get(), lengths.size())
                          : std::span<const std::int64_t>(lengths);
    VarSolver<T> s(Backend::cuda, plan);
    solve_in_mode(s, mode, std::tuple(a.get(), b.get(), c.get()), d.get(), x.get(), l);
    TRIAX_TEST_CUDA_OK(cudaDeviceSynchronize());
    d.download(v.d);
    x.download(v.x);
  };
}

TYPED_TEST(CudaVarBatch, LengthsPassedPerSolve) {
  using T = TypeParam;
  const std::int64_t n = quick_mode() ? 40 : 512, count = quick_mode() ? 37 : 1003;
  const auto plan_lengths = mixed_lengths(test_seed(), count, n);
  const std::pair<const char*, OperandLayouts> cases[] = {
      {"flat", OperandLayouts(layouts::flat(n, count))},
      {"interleaved", OperandLayouts(layouts::interleaved(n, count))},
      {"unified", layouts::unified_vector(n, count)}};
  for (const auto& [name, l] : cases) {
    SCOPED_TRACE(name);
    const VarLayout plan = VarLayout::padded(l, 0, plan_lengths);
    auto lengths = mixed_lengths(test_seed(9), count, n);
    lengths[0] = n;
    VarBatch<T> v(VarLayout::padded(l, 0, lengths), l, 0);
    v.fill(test_seed(10));
    for (const Mode m : all_modes) {
      expect_var_matches_reference(v, m, var_cuda_lengths_runner<T>(plan, false));
      expect_var_matches_reference(v, m, var_cuda_lengths_runner<T>(plan, true));
    }
    expect_var_matches_reference(v, Mode::in_place, var_cuda_lengths_runner<T>(plan, true, n + 9));
  }
}

// Plans whose kernels do not read lengths on the device reject per-solve lengths before anything
// is written: checked mode, and padded systems longer than a stage.
TEST(CudaVarBatchChecks, PerSolveLengthsRejectedWhereThePlanCannotTakeThem) {
  TRIAX_NEED_DEVICE();
  for (const std::int64_t n : {std::int64_t(40), std::int64_t(600)}) {
    const std::int64_t count = 9;  // mixed_lengths gives at least nine
    const OperandLayouts l(layouts::interleaved(n, count));
    const auto lengths = mixed_lengths(test_seed(), count, n);
    VarBatch<float> v(VarLayout::padded(l, 0, lengths), l, 0);
    v.fill(test_seed(1));
    DeviceBuffer<float> a(v.a), b(v.b), c(v.c), d(v.d);
    DeviceBuffer<int> info(std::vector<int>(count, -7));
    ASSERT_TRUE(a.get() && b.get() && c.get() && d.get() && info.get());
    VarSolver<float> checked(Backend::cuda, v.layout, {.checked = true});
    EXPECT_THROW(checked.solve_in_place(a.get(), b.get(), c.get(), d.get(),
                                        std::span<const std::int64_t>(lengths), info.get()),
                 invalid_argument);
    if (n > 512) {
      VarSolver<float> plain(Backend::cuda, v.layout);
      EXPECT_THROW(plain.solve_in_place(a.get(), b.get(), c.get(), d.get(),
                                        std::span<const std::int64_t>(lengths)),
                   invalid_argument);
    }
    std::vector<float> back(v.d.size());
    d.download(back);
    EXPECT_TRUE(same_bits(back, v.d));
  }
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
class CudaLayouts : public NeedsDevice<> {};
TYPED_TEST_SUITE(CudaLayouts, Types);

TYPED_TEST(CudaLayouts, PaperLayoutsMatchTheReference) {
  using T = TypeParam;
  const std::int64_t n = quick_mode() ? 64 : 256, count = quick_mode() ? 256 : 2560;
  const std::pair<const char*, OperandLayouts> cases[] = {
      {"flat", OperandLayouts(layouts::flat(n, count))},
      {"interleaved", OperandLayouts(layouts::interleaved(n, count))},
      {"unified", layouts::unified_vector(n, count)}};
  for (const auto& [name, l] : cases) {
    SCOPED_TRACE(name);
    for (const Mode m : all_modes) {
      expect_matches_reference<T>(l, 0, m, test_seed(), cuda_runner<T>(Algorithm::automatic));
    }
  }
}

TYPED_TEST(CudaLayouts, UnifiedVectorInPlaceInOneDeviceBuffer) {
  using T = TypeParam;
  const OperandLayouts u =
      layouts::unified_vector(quick_mode() ? 40 : 200, quick_mode() ? 100 : 3000);
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
