// The chunk table kernel of cuda_hybrid plans (src/cuda/factored/chunk_table_kernel.cuh, branch
// factcoef) against the reference backend: every matrix of support/factored_cases.hpp whose
// interior rows are dominant (fast, fast non-symmetric, slow, Pade with closures, varying),
// every axis of 2-D..4-D grids with ghost layers and offsets, in place / separate / increment,
// outputs poisoned with NaN, padding untouched, backward error <= 64 eps; n = 1..70 (every size
// with TRIAX_FULL_RANGE_TESTS=1, else a sample that keeps every chunk count and last-chunk
// length: table_short_size_sampled), then sampled up to 1024 (the kernel's longest) and past it
// (the plan falls back to the hybrid). Contiguous rows (axis 0) run the warp kernel, other strides the strided one; the
// automatic plan and TRIAX_CUDA_FACTORED_ROUTE=table both take them, =hybrid keeps the general
// hybrid. Which kernel a plan holds is read from workspace_bytes() (the table's size). SKIPPED
// without a device.
#include <type_traits>

#include <gtest/gtest.h>

#include "core/factored/chunk_table.hpp"
#include "support/device_runner.hpp"
#include "support/factored_cases.hpp"
#include "support/factored_device.hpp"
#include "support/scoped_env.hpp"

namespace triax::test {
namespace {

template <class T>
class FactoredTableCuda : public NeedsDevice<> {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FactoredTableCuda, Precisions);

/// Whether the default run takes n of the every-size sweep n = 1..70 (TRIAX_FULL_RANGE_TESTS=1
/// takes them all). Up to 256 rows the table has M = 8 rows a chunk, P = ceil(n / 8) chunks and
/// W = the power of two >= P lanes a system (chunk_table.cpp): what changes with n is P (W and
/// the reduced system's PCR levels; whether interior chunks compress to one table) and the last
/// chunk's length n - 8 (P - 1), i.e. n mod 8. The sample keeps n <= 17 (one and two chunks,
/// every last-chunk length; the first three-chunk size); every chunk boundary
/// 8P - 1, 8P, 8P + 1 (last chunk one short, full, a single row: these hold the powers of two
/// +-1 and every step of W, at n = 9, 17, 33, 65); a diagonal n = 9k that walks n mod 8 through
/// 2..7 at P = 3..8; and 66..70 (W = 16, every last-chunk length). 45 of the 70 sizes.
bool table_short_size_sampled(std::int64_t n) {
  const std::int64_t r = n % 8;
  return n <= 17 || r == 7 || r == 0 || r == 1 || n % 9 == 0 || n >= 66;
}

std::vector<std::int64_t> table_test_sizes() {
  std::vector<std::int64_t> sizes;
  if (quick_mode()) return {1, 9, 64, 257, 512};
  for (std::int64_t n = 1; n <= 70; ++n) {
    if (full_range_tests() || table_short_size_sampled(n)) sizes.push_back(n);
  }
  for (std::int64_t n = 77; n <= 300; n += 17) sizes.push_back(n);
  for (std::int64_t n : {127, 128, 129, 255, 256, 257, 300, 383, 384, 385, 511, 512, 513, 777, 1000,
                         1023, 1024}) {
    sizes.push_back(n);
  }
  return sizes;
}

/// The n^2 systems of an n^3 cube along `axis`, one matrix with Pade closures, against the
/// reference: the outputs, and a backward error of at most 64 eps.
template <class T>
void check_cube_axis(std::int64_t n, int axis) {
  const auto m = pade<T>(n);
  const auto l = Layout::packed({n, n, n});
  FactoredGrid g{"cube", {n, n, n}, axis, FactoredLayouts(l)};
  std::vector<T> d(l.size()), x(l.size(), std::numeric_limits<T>::quiet_NaN());
  std::mt19937_64 gen(n + axis);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& v : d) v = T(u(gen));
  std::vector<T> dr = d, xr = x;
  run_factored_host(Backend::reference, m, g, Mode::separate, dr, xr);
  run_factored_cuda(m, g, Mode::separate, d, x);
  ASSERT_TRUE(outputs_match(l, x, xr, m.condition));
  ASSERT_LE(backward_error_eps(m, l, d, l, x, axis), 64.0);
}

TYPED_TEST(FactoredTableCuda, MatchesReferenceEveryStride) {
  using T = TypeParam;
  const ScopedEnv env("TRIAX_CUDA_FACTORED_ROUTE", "table");
  const auto hybrid = cuda_factored_runner<T>(FactoredAlgorithm::cuda_hybrid);
  for (std::int64_t n : table_test_sizes()) check_factored_against_reference<T>(n, hybrid, true);
  // Past the table's 1024 rows an automatic plan keeps the factored kernels (route.hpp: the
  // general hybrid's backward error on the slow matrix at n = 1025 was 121 eps, past the 64 here;
  // an explicit cuda_hybrid plan still runs the hybrid there, as the caller asked).
  const auto automatic = cuda_factored_runner<T>(FactoredAlgorithm::automatic);
  check_factored_against_reference<T>(1025, automatic, true);
  if (!quick_mode()) check_factored_against_reference<T>(4096, automatic, true);
}

TYPED_TEST(FactoredTableCuda, AutomaticMatchesReference) {
  // The automatic plan (no switch): the table kernels or the general hybrid (route.hpp).
  using T = TypeParam;
  const ScopedEnv env("TRIAX_CUDA_FACTORED_ROUTE", nullptr);
  const std::vector<std::int64_t> sizes =
      quick_mode() ? std::vector<std::int64_t>{64, 300}
                   : std::vector<std::int64_t>{64, 65, 128, 200, 256, 300, 512, 700, 1024};
  const auto run = cuda_factored_runner<T>(FactoredAlgorithm::automatic);
  for (std::int64_t n : sizes) check_factored_against_reference<T>(n, run, true);
}

TYPED_TEST(FactoredTableCuda, ManyRightHandSides) {
  // n^2 systems of a cube's axis-0 rows and a long batch of one matrix with Pade closures.
  using T = TypeParam;
  const ScopedEnv env("TRIAX_CUDA_FACTORED_ROUTE", nullptr);
  for (std::int64_t n : {128, 200}) {
    for (int axis = 0; axis < 3; ++axis) {
      SCOPED_TRACE("n=" + std::to_string(n) + " axis=" + std::to_string(axis));
      check_cube_axis<T>(n, axis);
    }
  }
}

TYPED_TEST(FactoredTableCuda, PipelinedStridedKernelMatchesReference) {
  // TRIAX_CUDA_TABLE_PIPELINED=1: the strided kernel's blocks loop over groups of systems with
  // the next group's rows in flight (chunks of up to 16 rows; 32-row chunks keep the one-pass
  // kernel): every size of the sweep, then the cube's strided axes, where every block solves
  // many groups.
  using T = TypeParam;
  const ScopedEnv env("TRIAX_CUDA_FACTORED_ROUTE", "table");
  const ScopedEnv pipelined("TRIAX_CUDA_TABLE_PIPELINED", "1");
  const auto hybrid = cuda_factored_runner<T>(FactoredAlgorithm::cuda_hybrid);
  for (std::int64_t n : table_test_sizes()) check_factored_against_reference<T>(n, hybrid, true);
  for (std::int64_t n : {128, 200}) {
    for (int axis = 1; axis < 3; ++axis) {
      SCOPED_TRACE("n=" + std::to_string(n) + " axis=" + std::to_string(axis));
      check_cube_axis<T>(n, axis);
    }
  }
}

template <class T>
std::size_t table_bytes(const FactoredMatrixCase<T>& m) {
  std::vector<T> a = m.a, c = m.c;
  const std::int64_t n = static_cast<std::int64_t>(m.b.size());
  a[0] = 0;
  c[n - 1] = 0;
  const auto t = detail::chunk_matrix(a.data(), m.b.data(), c.data(), n);
  return t.ok ? t.values.size() * sizeof(T) : 0;
}

template <class T>
std::size_t plan_bytes(const FactoredMatrixCase<T>& m, int axis, bool checked = false) {
  const std::int64_t n = static_cast<std::int64_t>(m.b.size());
  const auto l = axis == 0 ? Layout::packed({n, 9}) : Layout::packed({9, n});
  FactoredSolver<T> s(Backend::cuda, m.a.data(), m.b.data(), m.c.data(), n, l, axis,
                      {.checked = checked});
  return s.workspace_bytes();
}

TYPED_TEST(FactoredTableCuda, RouteTakesTheTable) {
  using T = TypeParam;
  const auto fast = [](std::int64_t n) { return toeplitz<T>("fast", n, 0.25, 1.0, 0.25, 3); };
  ASSERT_GT(table_bytes(fast(512)), 0u);
  {
    const ScopedEnv env("TRIAX_CUDA_FACTORED_ROUTE", nullptr);
    // Double takes the table on every axis; float only along strided axes past 256 rows
    // (route.hpp, table_applies: where it measured faster than the general hybrid).
    const bool dbl = std::is_same_v<T, double>;
    EXPECT_EQ(plan_bytes(fast(512), 0) == table_bytes(fast(512)), dbl);
    EXPECT_EQ(plan_bytes(pade<T>(300), 0) == table_bytes(pade<T>(300)), dbl);
    EXPECT_EQ(plan_bytes(varying<T>(200, 3), 0) == table_bytes(varying<T>(200, 3)), dbl);
    EXPECT_EQ(plan_bytes(fast(200), 1) == table_bytes(fast(200)), dbl);
    EXPECT_EQ(plan_bytes(fast(512), 1), table_bytes(fast(512)));  // strided kernel, both
    EXPECT_NE(plan_bytes(fast(512), 0, true), table_bytes(fast(512)));  // checked: Thomas
    auto weak = fast(300);
    weak.c[100] = T(0.9);  // an interior row that is not dominant: Thomas factors
    EXPECT_NE(plan_bytes(weak, 0), table_bytes(fast(300)));
  }
  {
    const ScopedEnv env("TRIAX_CUDA_FACTORED_ROUTE", "table");
    EXPECT_EQ(plan_bytes(fast(512), 1), table_bytes(fast(512)));
    EXPECT_EQ(plan_bytes(fast(5), 0), table_bytes(fast(5)));
  }
  {
    const ScopedEnv env("TRIAX_CUDA_FACTORED_ROUTE", "hybrid");
    EXPECT_NE(plan_bytes(fast(512), 0), table_bytes(fast(512)));
  }
}

TYPED_TEST(FactoredTableCuda, GeneralHybridStillMatchesReference) {
  // The table now takes the automatic route: keep the general hybrid route tested.
  using T = TypeParam;
  const ScopedEnv env("TRIAX_CUDA_FACTORED_ROUTE", "hybrid");
  const auto run = cuda_factored_runner<T>(FactoredAlgorithm::cuda_hybrid);
  for (std::int64_t n : {64, 257, 512}) check_factored_against_reference<T>(n, run, true);
}

}  // namespace
}  // namespace triax::test
