// Padded variable batches on the fixed batch's pipelined hybrid (src/cuda/varbatch/
// var_pipelined.hpp): Full-Interleaved storage whose count is a multiple of the kernel's group
// (16 systems in float, 8 in double) and whose longest length is 129..512 rows runs the same
// kernel as triax::Solver on that storage, each system stopping at its own length. Against the
// reference backend: lengths 0, 1, 2, 3, n - 1 and n among random ones, a whole group of
// systems shorter than 4 rows (whole 16-byte pieces never read), a system scaled by 2^60 beside
// unscaled neighbours, padding NaN (a neighbour's padding is read with its piece and must not
// leak), outputs poisoned; every mode; lengths passed per solve from host and device memory
// (device ones beyond the bound clamped); pointers off 16-byte alignment (the tile kernel takes
// over). Every test reports SKIPPED without a device; TRIAX_TEST_QUICK=1 keeps the batches small.
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

/// Solves on the device from pointers `shift` elements past a cudaMalloc'ed (256-byte aligned)
/// base, with the plan's own lengths or (when `per_solve`) the batch's passed per solve from host
/// or device memory; `raise_first_to` >= 0 passes system 0's length as that (device only:
/// clamped to the plan's longest).
template <class T>
VarRunner<T> pipelined_runner(const VarLayout& plan, int shift, bool per_solve,
                              bool lengths_on_device, std::int64_t raise_first_to = -1) {
  return [=](VarBatch<T>& v, Mode mode, int*) {
    const DeviceOperands<T> o(v.a, v.b, v.c, v.d, v.x, shift);
    std::vector<std::int64_t> lengths(static_cast<std::size_t>(v.layout.count()));
    for (std::size_t s = 0; s < lengths.size(); ++s) lengths[s] = v.layout.length(s);
    if (raise_first_to >= 0) lengths[0] = raise_first_to;
    DeviceBuffer<std::int64_t> dl(lengths);
    ASSERT_TRUE(o.allocated() && dl.get());
    T *pa = o.a(), *pb = o.b(), *pc = o.c(), *pd = o.d(), *px = o.x();
    VarSolver<T> s(Backend::cuda, plan);
    if (per_solve) {
      const std::span<const std::int64_t> l =
          lengths_on_device ? std::span<const std::int64_t>(dl.get(), lengths.size())
                            : std::span<const std::int64_t>(lengths);
      solve_in_mode(s, mode, std::tuple(pa, pb, pc), pd, px, l);
    } else {
      solve_in_mode(s, mode, std::tuple(pa, pb, pc), pd, px);
    }
    TRIAX_TEST_CUDA_OK(cudaDeviceSynchronize());
    TRIAX_TEST_CUDA_OK(cudaGetLastError());
    o.download(v.d, v.x);
  };
}

/// Lengths for `count` systems of at most n rows: 0, 1, 2, 3, n - 1 and n among random ones, and
/// systems group .. group + G - 1 (one group of the kernel) all shorter than 4 rows.
std::vector<std::int64_t> pipelined_lengths(std::uint64_t seed, std::int64_t count, std::int64_t n,
                                            int group) {
  auto l = mixed_lengths(seed, static_cast<std::size_t>(count), n);
  l[5] = n - 1;
  l[60] = n - 2;  // the test scales this one by 2^60
  for (int k = 0; k < 16; ++k) l[static_cast<std::size_t>(group + k)] = k % 4;
  return l;
}

template <class T>
class CudaVarPipelined : public NeedsDevice<> {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CudaVarPipelined, Types);

TYPED_TEST(CudaVarPipelined, PaddedInterleavedEveryModeAgainstTheReference) {
  using T = TypeParam;
  const std::int64_t count = quick_mode() ? 64 : 1024;
  const std::vector<std::int64_t> sizes = quick_mode()
                                              ? std::vector<std::int64_t>{512, 129}
                                              : std::vector<std::int64_t>{512, 300, 257, 129};
  for (const std::int64_t n : sizes) {
    SCOPED_TRACE(n);
    const OperandLayouts l(layouts::interleaved(n, count));
    const auto lengths = pipelined_lengths(test_seed(11), count, n, 32);
    VarBatch<T> v(VarLayout::padded(l, 0, lengths), l, 0);
    v.fill(test_seed(12));
    // System 60 scaled by 2^60: its chunks' power-of-two scaling must hold beside neighbours
    // that share its pieces unscaled.
    const T big = std::ldexp(T(1), 60);
    std::vector<T>* arrays[] = {&v.a, &v.b, &v.c, &v.d};
    for (int op = 0; op < 4; ++op) {
      for (const std::int64_t r : v.rows(op, 60)) (*arrays[op])[r] *= big;
    }
    for (const Mode m : all_modes) {
      expect_var_matches_reference(v, m, pipelined_runner<T>(v.layout, 0, false, false));
    }
    // Checked mode keeps the per-thread kernel (row-by-row info), on the same storage.
    expect_var_matches_reference(
        v, Mode::in_place,
        VarRunner<T>([](VarBatch<T>& w, Mode mode, int* info) {
          DeviceBuffer<T> a(w.a), b(w.b), c(w.c), d(w.d);
          DeviceBuffer<int> di(std::vector<int>(static_cast<std::size_t>(w.layout.count()), -7));
          ASSERT_TRUE(a.get() && b.get() && c.get() && d.get() && di.get());
          ASSERT_EQ(mode, Mode::in_place);
          VarSolver<T> s(Backend::cuda, w.layout, {.checked = true});
          s.solve_in_place(a.get(), b.get(), c.get(), d.get(), di.get());
          TRIAX_TEST_CUDA_OK(cudaDeviceSynchronize());
          d.download(w.d);
          std::vector<int> got(static_cast<std::size_t>(w.layout.count()));
          di.download(got);
          std::copy(got.begin(), got.end(), info);
        }),
        /*checked=*/true);
  }
}

TYPED_TEST(CudaVarPipelined, LengthsPassedPerSolveAndMisalignedPointers) {
  using T = TypeParam;
  const std::int64_t n = 512, count = quick_mode() ? 64 : 2048;
  const OperandLayouts l(layouts::interleaved(n, count));
  auto plan_lengths = pipelined_lengths(test_seed(13), count, n, 16);
  plan_lengths[1] = n;  // the plan's bound is n
  const VarLayout plan = VarLayout::padded(l, 0, plan_lengths);
  auto lengths = pipelined_lengths(test_seed(14), count, n, 48);
  lengths[0] = n;
  VarBatch<T> v(VarLayout::padded(l, 0, lengths), l, 0);
  v.fill(test_seed(15));
  for (const Mode m : all_modes) {
    SCOPED_TRACE("per solve");
    expect_var_matches_reference(v, m, pipelined_runner<T>(plan, 0, true, false));
    expect_var_matches_reference(v, m, pipelined_runner<T>(plan, 0, true, true));
  }
  // System 0 has the bound and is passed on the device as more: clamped.
  expect_var_matches_reference(v, Mode::in_place, pipelined_runner<T>(plan, 0, true, true, n + 9));
  // One element off 16-byte alignment: the tile kernel solves it instead.
  for (const Mode m : all_modes) {
    SCOPED_TRACE("misaligned");
    expect_var_matches_reference(v, m, pipelined_runner<T>(v.layout, 1, false, false));
    expect_var_matches_reference(v, m, pipelined_runner<T>(plan, 1, true, true));
  }
}

}  // namespace
}  // namespace triax::test
