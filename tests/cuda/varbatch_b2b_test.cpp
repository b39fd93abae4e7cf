// Back-to-back variable batches on the back-to-back hybrid (src/cuda/varbatch/var_b2b_kernel.cuh,
// length classes of core/var_b2b_classes.hpp; varb2b, issue 31). Against the reference backend:
// uniform lengths 256..512 and heavy-tailed ones (log-uniform 8..65536) with 0, 1, 2, 3 and
// systems above 4096 rows (those beyond the largest class, 2048, run the kernel's tiles: two
// passes around a reduced batch) mixed in, the tiles' edges, and one system beyond them (131073
// rows: the old routing); every class edge (64 P rows and one more) with each class launched apart and merged; gaps
// between systems (which must come back untouched) and pointers 1..3 elements off 16-byte
// alignment, so that every system's rows start anywhere in a vector; a system scaled by 2^60
// beside unscaled ones; float and double, in place, separate (outputs poisoned with NaN) and
// increment; checked mode (which keeps the per-thread kernel) with a singular system in the
// middle; and the old paths through TRIAX_CUDA_VAR_B2B=0 and TRIAX_CUDA_VAR_B2B_LONG=0 on the
// same batches; each variant of the class kernel (TRIAX_CUDA_VAR_B2B_VARIANT, var31) on the same
// kinds of batches, and the bench's bound (TRIAX_CUDA_VAR_B2B_BOUND=1) moving exactly each
// system's rows. Every test reports
// SKIPPED without a device; TRIAX_TEST_QUICK=1 keeps the batches small.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>

#include "support/device_runner.hpp"
#include "support/quick_mode.hpp"
#include "support/scoped_env.hpp"
#include "support/var_batches.hpp"

namespace triax::test {
namespace {

/// Copies the batch to the device `shift` elements past a cudaMalloc'ed (256-byte aligned) base
/// in every operand, solves (checked when info is non-null), copies back.
template <class T>
VarRunner<T> b2b_runner(int shift) {
  return [=](VarBatch<T>& v, Mode mode, int* info) {
    const DeviceOperands<T> o(v.a, v.b, v.c, v.d, v.x, shift);
    std::vector<int> info_host(static_cast<std::size_t>(v.layout.count()) + 1, -7);
    DeviceBuffer<int> di(info_host);
    ASSERT_TRUE(o.allocated() && di.get());
    VarSolver<T> s(Backend::cuda, v.layout, {.checked = info != nullptr});
    solve_in_mode(s, mode, std::tuple(o.a(), o.b(), o.c()), o.d(), o.x(),
                  info != nullptr ? di.get() : nullptr);
    TRIAX_TEST_CUDA_OK(cudaDeviceSynchronize());
    TRIAX_TEST_CUDA_OK(cudaGetLastError());
    o.download(v.d, v.x);
    if (info != nullptr) {
      di.download(info_host);
      std::copy(info_host.begin(), info_host.end(), info);
    }
  };
}

/// Offsets with gaps of 0..3 elements between the systems (first at 1), in reverse order.
std::vector<std::int64_t> gapped_offsets(const std::vector<std::int64_t>& lengths) {
  std::vector<std::int64_t> offsets(lengths.size());
  std::int64_t next = 1;
  for (std::size_t k = lengths.size(); k-- > 0;) {
    offsets[k] = next;
    next += lengths[k] + static_cast<std::int64_t>(k % 4);
  }
  return offsets;
}

/// 0, 1, 2, 3 and above 4096 rows at fixed places among the others.
void add_edges(std::vector<std::int64_t>& l) {
  l[3] = 0;
  l[10] = 1;
  l[17] = 2;
  l[24] = 3;
  l[31] = 4097 + 10;
  l[l.size() / 2] = 5000;
}

/// Every mode, on pointers 0..3 elements off alignment (each mode a different shift).
template <class T>
void expect_every_mode(const VarBatch<T>& v) {
  int shift = 0;
  for (const Mode m : all_modes) {
    SCOPED_TRACE("shift " + std::to_string(shift));
    expect_var_matches_reference(v, m, b2b_runner<T>(shift));
    shift = (shift + 1) % 4;
  }
  SCOPED_TRACE("shift 3");
  expect_var_matches_reference(v, Mode::in_place, b2b_runner<T>(3));
}

template <class T>
class CudaVarB2B : public NeedsDevice<> {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CudaVarB2B, Types);

TYPED_TEST(CudaVarB2B, UniformLengthsEveryModeMisaligned) {
  using T = TypeParam;
  std::mt19937_64 g(test_seed(21));
  std::uniform_int_distribution<std::int64_t> u(256, 512);
  std::vector<std::int64_t> lengths(quick_mode() ? 96 : 3000);
  for (auto& l : lengths) l = u(g);
  add_edges(lengths);
  VarBatch<T> v(VarLayout::back_to_back(lengths, gapped_offsets(lengths)));
  v.fill(test_seed(22));
  // System 40 scaled by 2^60: its chunks' power-of-two scaling holds beside unscaled neighbours.
  const T big = std::ldexp(T(1), 60);
  std::vector<T>* arrays[] = {&v.a, &v.b, &v.c, &v.d};
  for (int op = 0; op < 4; ++op) {
    for (const std::int64_t r : v.rows(op, 40)) (*arrays[op])[r] *= big;
  }
  expect_every_mode(v);
  SCOPED_TRACE("old path (TRIAX_CUDA_VAR_B2B=0)");
  const ScopedEnv off("TRIAX_CUDA_VAR_B2B", "0");
  expect_var_matches_reference(v, Mode::separate, b2b_runner<T>(1));
}

TYPED_TEST(CudaVarB2B, HeavyTailEveryModeMisaligned) {
  using T = TypeParam;
  std::mt19937_64 g(test_seed(23));
  std::uniform_real_distribution<double> logu(std::log(8.0),
                                              std::log(quick_mode() ? 8192.0 : 65536.0));
  std::vector<std::int64_t> lengths(quick_mode() ? 60 : 400);
  for (auto& l : lengths) l = std::llround(std::exp(logu(g)));
  add_edges(lengths);
  // The tiles' edges (B2BTiles: 9 tiles of 227 rows at 2049, 256 rows at 2304, 2305 the first
  // with 10) and, in the full run, one beyond the segment kernels' reach (131073).
  lengths[40] = 2049;
  lengths[41] = 2304;
  lengths[42] = 2305;
  if (!quick_mode()) lengths[43] = 131073;
  VarBatch<T> v(VarLayout::back_to_back(lengths, gapped_offsets(lengths)));
  v.fill(test_seed(24));
  // A long system scaled by 2^60: the same solution (the tiles' scaling must hold).
  const T big = std::ldexp(T(1), 60);
  std::vector<T>* arrays[] = {&v.a, &v.b, &v.c, &v.d};
  for (int op = 0; op < 4; ++op) {
    for (const std::int64_t r : v.rows(op, 42)) (*arrays[op])[r] *= big;
  }
  expect_every_mode(v);
  {
    SCOPED_TRACE("long ones on the segments (TRIAX_CUDA_VAR_B2B_LONG=0)");
    const ScopedEnv segments("TRIAX_CUDA_VAR_B2B_LONG", "0");
    expect_var_matches_reference(v, Mode::increment, b2b_runner<T>(2));
  }
  {
    SCOPED_TRACE("old path (TRIAX_CUDA_VAR_B2B=0)");
    const ScopedEnv off("TRIAX_CUDA_VAR_B2B", "0");
    expect_var_matches_reference(v, Mode::separate, b2b_runner<T>(1));
  }
  // Every class launched apart (no merging of small classes).
  SCOPED_TRACE("classes apart");
  const ScopedEnv apart("TRIAX_CUDA_VAR_B2B_MIN_CLASS", "1");
  expect_every_mode(v);
}

// Each class's edges, 64 P rows and one more (the next class), and the rows where a system first
// fills all P chunk threads (2P), with every class launched apart and with them merged.
TYPED_TEST(CudaVarB2B, EveryClassEdge) {
  using T = TypeParam;
  std::vector<std::int64_t> lengths = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17};
  for (const std::int64_t P : {8, 16, 32, 64, 128, 256}) {
    for (const std::int64_t n : {2 * P - 1, 2 * P, 2 * P + 1, 8 * P - 1, 8 * P, 8 * P + 1}) {
      lengths.push_back(n);
    }
  }
  std::mt19937_64 g(test_seed(25));
  std::uniform_int_distribution<std::int64_t> u(1, 2100);
  while (lengths.size() < (quick_mode() ? 64u : 600u)) lengths.push_back(u(g));
  std::shuffle(lengths.begin(), lengths.end(), g);
  VarBatch<T> v(VarLayout::back_to_back(lengths, gapped_offsets(lengths)));
  v.fill(test_seed(26));
  for (const char* min_class : {"1", "2048"}) {
    SCOPED_TRACE(std::string("min class ") + min_class);
    const ScopedEnv env("TRIAX_CUDA_VAR_B2B_MIN_CLASS", min_class);
    expect_every_mode(v);
  }
}

// Checked mode keeps the per-thread kernel (row-by-row info): a singular system in the middle of
// a back-to-back batch reports its row, its neighbours 0.
TYPED_TEST(CudaVarB2B, CheckedModeSingularSystemInTheMiddle) {
  using T = TypeParam;
  std::mt19937_64 g(test_seed(27));
  std::uniform_int_distribution<std::int64_t> u(256, 512);
  std::vector<std::int64_t> lengths(quick_mode() ? 40 : 400);
  for (auto& l : lengths) l = u(g);
  add_edges(lengths);
  const std::size_t mid = lengths.size() / 2 + 1;
  VarBatch<T> v(VarLayout::back_to_back(lengths, gapped_offsets(lengths)));
  v.fill(test_seed(28));
  // A zero first pivot in the middle system: info 1 there (the reference's), 0 elsewhere.
  const auto rb = v.rows(1, static_cast<std::int64_t>(mid));
  ASSERT_FALSE(rb.empty());
  v.b[rb[0]] = 0;
  for (const Mode m : all_modes) {
    expect_var_matches_reference(v, m, b2b_runner<T>(m == Mode::separate ? 2 : 0),
                                 /*checked=*/true);
  }
  // Unchecked, the same storage with the pivot restored runs the new path.
  v.b[rb[0]] = T(4);
  expect_var_matches_reference(v, Mode::in_place, b2b_runner<T>(1));
}

/// The class kernel's variants (B2BVariant); "" the default.
constexpr const char* variants[] = {"base", "ahead", "prefetch"};

/// Uniform 256..512 and heavy-tailed lengths with the edges mixed in, and every class edge.
std::vector<std::int64_t> mixed_lengths(std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_int_distribution<std::int64_t> u(256, 512);
  std::uniform_real_distribution<double> logu(std::log(8.0), std::log(8192.0));
  std::vector<std::int64_t> lengths;
  for (int k = 0; k < (quick_mode() ? 80 : 1200); ++k) lengths.push_back(u(g));
  for (int k = 0; k < (quick_mode() ? 40 : 200); ++k) {
    lengths.push_back(std::llround(std::exp(logu(g))));
  }
  for (const std::int64_t P : {8, 16, 32, 64, 128, 256}) {
    for (const std::int64_t n : {2 * P - 1, 2 * P, 8 * P, 8 * P + 1}) lengths.push_back(n);
  }
  for (const std::int64_t n : {2049, 2304, 2305}) lengths.push_back(n);
  std::shuffle(lengths.begin(), lengths.end(), g);
  add_edges(lengths);
  return lengths;
}

// Every variant of the class kernel against the reference: every mode, misaligned, with the
// classes merged (the default) and apart (small launches of every P too, whose blocks' look-ahead
// of a wave reaches past their last system).
TYPED_TEST(CudaVarB2B, EveryVariantEveryMode) {
  using T = TypeParam;
  const std::vector<std::int64_t> lengths = mixed_lengths(test_seed(29));
  VarBatch<T> v(VarLayout::back_to_back(lengths, gapped_offsets(lengths)));
  v.fill(test_seed(30));
  for (const char* variant : variants) {
    SCOPED_TRACE(std::string("variant ") + variant);
    const ScopedEnv env("TRIAX_CUDA_VAR_B2B_VARIANT", variant);
    expect_every_mode(v);
    const ScopedEnv apart("TRIAX_CUDA_VAR_B2B_MIN_CLASS", "1");
    expect_var_matches_reference(v, Mode::separate, b2b_runner<T>(3));
  }
}

// The bench's bound (TRIAX_CUDA_VAR_B2B_BOUND=1), every variant: in place, each system's rows
// become a + b + c + d (a of row 0 and c of the last row dropped, as the solve drops them), the
// gaps between systems untouched; increment mode still solves.
TYPED_TEST(CudaVarB2B, BoundMovesEachSystemsRowsOnly) {
  using T = TypeParam;
  const std::vector<std::int64_t> lengths = mixed_lengths(test_seed(31));
  VarBatch<T> v(VarLayout::back_to_back(lengths, gapped_offsets(lengths)));
  v.fill(test_seed(32));
  const ScopedEnv bound("TRIAX_CUDA_VAR_B2B_BOUND", "1");
  for (const char* variant : variants) {
    SCOPED_TRACE(std::string("variant ") + variant);
    const ScopedEnv env("TRIAX_CUDA_VAR_B2B_VARIANT", variant);
    VarBatch<T> got = v;
    b2b_runner<T>(1)(got, Mode::in_place, nullptr);
    std::vector<T> want = v.d;
    for (std::int64_t s = 0; s < v.layout.count(); ++s) {
      const std::int64_t n = lengths[static_cast<std::size_t>(s)];
      if (n > 262144) continue;  // beyond the tiles (B2BTiles::max_long_rows): none here
      const auto rows = v.rows(3, s);
      for (std::int64_t i = 0; i < n; ++i) {
        const auto r = rows[static_cast<std::size_t>(i)];
        want[r] = v.d[r] + ((i > 0 ? v.a[r] : T(0)) + v.b[r] + (i + 1 < n ? v.c[r] : T(0)));
      }
    }
    for (std::size_t e = 0; e < want.size(); ++e) {
      if (std::isnan(want[e])) {  // a gap: its poison untouched
        ASSERT_TRUE(std::isnan(got.d[e])) << "element " << e;
        continue;
      }
      ASSERT_NEAR(double(got.d[e]), double(want[e]), 8 * std::numeric_limits<T>::epsilon() *
                                                         (1 + std::abs(double(want[e]))))
          << "element " << e;
    }
    expect_var_matches_reference(v, Mode::increment, b2b_runner<T>(2));
  }
}

}  // namespace
}  // namespace triax::test
