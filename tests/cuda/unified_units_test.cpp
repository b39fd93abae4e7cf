// The Unified-Vector fast path of the register hybrid (HybridShape::unified): a, b, c, d as
// components 0..3 of one device buffer, read a unit per row. Against the reference backend at
// boundary sizes and the counts of paper 002's grid, float and double, in place, into a separate
// x (laid out as d in its own buffer, or Full-Interleaved), increment, checked mode; outputs
// poisoned (the expect_matches_reference rules); a system scaled by 2^60; and a base one element
// past a unit, where the recogniser must say no and the per-operand path must be right.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/normalize.hpp"
#include "core/unified_units.hpp"
#include "support/compare.hpp"
#include "support/device_runner.hpp"
#include "support/quick_mode.hpp"
#include "support/scoped_env.hpp"
#include "triax/layouts.hpp"

namespace triax::test {
namespace {

// Every test forces the path on (by default it runs in float at 256 < n <= 512 only), so that
// each length and precision below goes through it; SwitchedOffStillRight turns it off inside.
template <class T>
class UnifiedUnits : public NeedsDevice<> {
  const ScopedEnv on_{"TRIAX_CUDA_UNIFIED", "1"};
};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(UnifiedUnits, ValueTypes);

/// Runs a batch whose a, b, c, d layouts are components of one buffer: packed into one device
/// buffer `shift` elements past its (256-byte aligned) base, solved with the same pointer for all
/// four, x (separate, increment) in a buffer of its own. Asserts what the recogniser says of the
/// pointers (`units`), and in checked mode that every system's info is 0.
template <class T>
Runner<T> one_buffer_runner(int shift, bool units, bool checked = false) {
  return [=](const OperandLayouts& l, int axis, Mode mode, Batch<T>& batch) {
    std::size_t size = 0;
    for (const Layout* o : {&l.a, &l.b, &l.c, &l.d}) size = std::max(size, buffer_size(*o));
    std::vector<T> one(size + static_cast<std::size_t>(shift), Batch<T>::poison());
    std::vector<T>* ops[4] = {&batch.a, &batch.b, &batch.c, &batch.d};
    const Layout* lays[4] = {&l.a, &l.b, &l.c, &l.d};
    for (int k = 0; k < 4; ++k) {
      for_each_offset(*lays[k], [&](std::int64_t o) { one[shift + o] = (*ops[k])[o]; });
    }
    DeviceBuffer<T> dev(one), x(batch.x);
    const std::int64_t systems = static_cast<std::int64_t>(l.d.size() / l.d.extent(axis));
    DeviceBuffer<int> info(std::vector<int>(static_cast<std::size_t>(systems), -7));
    ASSERT_TRUE(dev.get() && x.get() && info.get()) << "cudaMalloc failed";
    T* p = dev.get() + shift;
    const void* const ptrs[4] = {p, p, p, p};
    ASSERT_EQ(detail::unified_units(detail::normalize(l, axis), sizeof(T), ptrs), units);
    Solver<T> s(Backend::cuda, l, axis, {.checked = checked});
    solve_in_mode(s, mode, std::tuple(p, p, p), p, x.get(), checked ? info.get() : nullptr);
    TRIAX_TEST_CUDA_OK(cudaDeviceSynchronize());
    TRIAX_TEST_CUDA_OK(cudaGetLastError());
    dev.download(one);
    for (int k = 0; k < 4; ++k) {
      for_each_offset(*lays[k], [&](std::int64_t o) { (*ops[k])[o] = one[shift + o]; });
    }
    x.download(batch.x);
    if (checked) {
      std::vector<int> got(static_cast<std::size_t>(systems));
      info.download(got);
      for (std::int64_t q = 0; q < systems; ++q) ASSERT_EQ(got[q], 0) << "system " << q;
    }
  };
}

/// The batch's random systems, every third one (rows and right-hand side) scaled by 2^60: the
/// same x, exactly.
template <class T>
void fill_scaled(Batch<T>& batch, int axis, std::uint64_t seed) {
  batch.fill_random(seed);
  const OperandLayouts& l = batch.layouts;
  const T big = std::ldexp(T(1), 60);
  const std::int64_t n = l.d.extent(axis), count = l.d.extent(1 - axis);
  for (std::int64_t s = 0; s < count; s += 3) {
    for (std::int64_t i = 0; i < n; ++i) {
      std::int64_t idx[2];
      idx[axis] = i;
      idx[1 - axis] = s;
      batch.a[l.a.offset_of(idx)] *= big;
      batch.b[l.b.offset_of(idx)] *= big;
      batch.c[l.c.offset_of(idx)] *= big;
      batch.d[l.d.offset_of(idx)] *= big;
    }
  }
}

const std::int64_t sizes[] = {1, 2, 3, 31, 64, 100, 512, 513, 1000};

// Every size at counts 1, 7 and 256, every mode, x laid out as d or Full-Interleaved.
TYPED_TEST(UnifiedUnits, MatchesTheReferenceInEveryMode) {
  using T = TypeParam;
  for (const std::int64_t n : sizes) {
    for (const std::int64_t count : {1, 7, 256}) {
      if (quick_mode() && count == 256 && n > 100) continue;
      SCOPED_TRACE("n " + std::to_string(n) + ", count " + std::to_string(count));
      OperandLayouts u = layouts::unified_vector(n, count);
      for (const Mode m : all_modes) {
        expect_matches_reference<T>(u, 0, m, test_seed(n * 31 + count),
                                    one_buffer_runner<T>(0, true));
      }
      u.x = layouts::interleaved(n, count);
      for (const Mode m : {Mode::separate, Mode::increment}) {
        expect_matches_reference<T>(u, 0, m, test_seed(n * 37 + count),
                                    one_buffer_runner<T>(0, true));
      }
    }
  }
}

// Paper 002's grid count: 25600 systems, in place, at the grid's smallest size and one row past
// a block (a cluster). (Larger n at this count cost seconds of host time per case in the
// reference and the batch copies; n = 512 and 1000 run at 256 systems above.)
TYPED_TEST(UnifiedUnits, GridCountInPlace) {
  using T = TypeParam;
  for (const std::int64_t n : {64, 513}) {
    if (quick_mode() && n > 64) continue;
    SCOPED_TRACE("n " + std::to_string(n));
    expect_matches_reference<T>(layouts::unified_vector(n, 25600), 0, Mode::in_place,
                                test_seed(n), one_buffer_runner<T>(0, true));
  }
}

// Checked mode (one block per group of systems: no clusters) on the unit loads.
TYPED_TEST(UnifiedUnits, CheckedMode) {
  using T = TypeParam;
  for (const std::int64_t n : {3, 64, 513, 1000}) {
    SCOPED_TRACE("n " + std::to_string(n));
    const OperandLayouts u = layouts::unified_vector(n, 256);
    for (const Mode m : {Mode::in_place, Mode::separate}) {
      expect_matches_reference<T>(u, 0, m, test_seed(n + 5), one_buffer_runner<T>(0, true, true));
    }
  }
}

// A system in every three scaled by 2^60.
TYPED_TEST(UnifiedUnits, ScaledSystems) {
  using T = TypeParam;
  for (const std::int64_t n : {64, 512, 1000}) {
    SCOPED_TRACE("n " + std::to_string(n));
    expect_matches_reference<T>(layouts::unified_vector(n, 256), 0, Mode::in_place, test_seed(n),
                                one_buffer_runner<T>(0, true), fill_scaled<T>);
  }
}

// One element past a unit: not recognised, solved by the per-operand path.
TYPED_TEST(UnifiedUnits, MisalignedBaseTakesThePerOperandPath) {
  using T = TypeParam;
  for (const std::int64_t n : {31, 512, 1000}) {
    SCOPED_TRACE("n " + std::to_string(n));
    const OperandLayouts u = layouts::unified_vector(n, 256);
    for (const Mode m : all_modes) {
      expect_matches_reference<T>(u, 0, m, test_seed(n + 1), one_buffer_runner<T>(1, false));
    }
  }
}

// The switch that turns the path off (TRIAX_CUDA_UNIFIED=0, for A/B runs) leaves results right.
TYPED_TEST(UnifiedUnits, SwitchedOffStillRight) {
  using T = TypeParam;
  const ScopedEnv off("TRIAX_CUDA_UNIFIED", "0");
  for (const std::int64_t n : {64, 512}) {
    SCOPED_TRACE("n " + std::to_string(n));
    expect_matches_reference<T>(layouts::unified_vector(n, 256), 0, Mode::in_place, test_seed(n),
                                one_buffer_runner<T>(0, true));
  }
}

}  // namespace
}  // namespace triax::test
