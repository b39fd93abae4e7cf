// triax::VarSolver on the CPU backend against the reference backend: back-to-back and padded
// storage (paper 002's three layouts), every mode, checked mode, and what is rejected.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "core/var_problem.hpp"
#include "support/var_batches.hpp"

namespace triax::test {
namespace {

template <class T>
class CpuVarBatch : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CpuVarBatch, Types);

TYPED_TEST(CpuVarBatch, BackToBackMixedLengthsEveryMode) {
  using T = TypeParam;
  const auto lengths = mixed_lengths(test_seed(), 150, 700);
  const VarBatch<T> v0 = [&] {
    VarBatch<T> v(VarLayout::back_to_back(lengths));
    v.fill(test_seed(1));
    return v;
  }();
  for (const int threads : {1, 3}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    for (const Mode m : all_modes)
      expect_var_matches_reference(v0, m, var_host_runner<T>(Backend::cpu, threads));
  }
}

TYPED_TEST(CpuVarBatch, BackToBackGapsAndAnyOrder) {
  using T = TypeParam;
  // Systems listed in reverse memory order, with gaps of 0..5 elements between them: the gaps
  // must come back untouched.
  const std::vector<std::int64_t> lengths = {5, 0, 1, 2, 3, 40, 17, 0, 129};
  std::vector<std::int64_t> offsets(lengths.size());
  std::int64_t next = 3;
  for (std::size_t k = lengths.size(); k-- > 0;) {
    offsets[k] = next;
    next += lengths[k] + static_cast<std::int64_t>(k % 6);
  }
  VarBatch<T> v(VarLayout::back_to_back(lengths, offsets));
  v.fill(test_seed());
  for (const Mode m : all_modes)
    expect_var_matches_reference(v, m, var_host_runner<T>(Backend::cpu, 2));
}

TYPED_TEST(CpuVarBatch, HeavyTail) {
  using T = TypeParam;
  std::vector<std::int64_t> lengths = {65536, 8, 9, 20000, 8, 300};
  for (int k = 0; k < 50; ++k) lengths.push_back(8 + (k * 37) % 500);
  VarBatch<T> v(VarLayout::back_to_back(lengths));
  v.fill(test_seed());
  expect_var_matches_reference(v, Mode::separate, var_host_runner<T>(Backend::cpu, 3));
}

// Paper 002's three layouts, padded to the longest system: Flat (each system contiguous),
// Full-Interleaved (row i of every system side by side) and Unified-Vector (a, b, c, d of one
// interleaved row side by side; here each operand in its own buffer).
TYPED_TEST(CpuVarBatch, PaddedLayoutsEveryMode) {
  using T = TypeParam;
  const std::int64_t n = 37, count = 45;
  const auto lengths = mixed_lengths(test_seed(), count, n);
  const Layout flat = Layout::strided({n, count}, {1, n});
  const Layout interleaved = Layout::strided({n, count}, {count, 1});
  const auto component = [&](std::int64_t k) {
    return Layout::strided({n, count}, {4 * count, 4}, k);
  };
  const OperandLayouts unified(component(0), component(1), component(2), component(3),
                               component(3));
  const std::pair<const char*, OperandLayouts> cases[] = {
      {"flat", OperandLayouts(flat)},
      {"interleaved", OperandLayouts(interleaved)},
      {"unified", unified}};
  for (const auto& [name, layouts] : cases) {
    SCOPED_TRACE(name);
    VarBatch<T> v(VarLayout::padded(layouts, 0, lengths), layouts, 0);
    v.fill(test_seed(1));
    for (const Mode m : all_modes)
      expect_var_matches_reference(v, m, var_host_runner<T>(Backend::cpu, 2));
  }
}

TYPED_TEST(CpuVarBatch, PaddedAlongAMiddleAxis) {
  using T = TypeParam;
  const Layout l = Layout::padded({6, 30, 5}, {7, 33, 5}, {1, 2, 0});
  const auto lengths = mixed_lengths(test_seed(), 30, 30);
  VarBatch<T> v(VarLayout::padded(l, 1, lengths), OperandLayouts(l), 1);
  v.fill(test_seed(1));
  for (const Mode m : all_modes)
    expect_var_matches_reference(v, m, var_host_runner<T>(Backend::cpu, 2));
}

TYPED_TEST(CpuVarBatch, CheckedModeReportsBreakdownPerSystem) {
  using T = TypeParam;
  const std::vector<std::int64_t> lengths = {4, 0, 1, 6, 3, 9, 2};
  VarBatch<T> v(VarLayout::back_to_back(lengths));
  v.fill(test_seed());
  // System 0: zero pivot at row 0; system 3: at row 2 (b - a c' = 0); system 2 (one row): b = 0.
  v.b[v.rows(1, 0)[0]] = 0;
  {
    const auto ra = v.rows(0, 3), rb = v.rows(1, 3), rc = v.rows(2, 3);
    v.a[ra[1]] = 0;
    v.a[ra[2]] = 1;
    v.c[rc[1]] = 1;
    v.b[rb[1]] = 1;  // c'_1 = 1
    v.b[rb[2]] = 1;  // m_2 = 1 - 1 * 1 = 0
  }
  v.b[v.rows(1, 2)[0]] = 0;
  for (const Mode m : all_modes) {
    expect_var_matches_reference(v, m, var_host_runner<T>(Backend::cpu, 2), /*checked=*/true);
  }
  std::vector<int> info(lengths.size(), -1);
  VarSolver<T> s(Backend::cpu, v.layout, {.checked = true});
  VarBatch<T> w = v;
  s.solve(w.a.data(), w.b.data(), w.c.data(), w.d.data(), w.x.data(), info.data());
  EXPECT_EQ(info, (std::vector<int>{1, 0, 1, 3, 0, 0, 0}));
}

TEST(CpuVarBatchChecks, RejectsBadLayouts) {
  const std::vector<std::int64_t> lengths = {3, -1};
  EXPECT_THROW(
      {
        try {
          VarLayout::back_to_back(lengths);
        } catch (const invalid_argument& e) {
          EXPECT_NE(std::string(e.what()).find("lengths[1] = -1"), std::string::npos) << e.what();
          throw;
        }
      },
      invalid_argument);
  const std::vector<std::int64_t> ok = {3, 4, 0};
  const std::vector<std::int64_t> overlapping = {0, 2, 1};
  try {
    VarLayout::back_to_back(ok, overlapping);
    ADD_FAILURE() << "overlapping offsets accepted";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("offsets[1] = 2"), std::string::npos) << e.what();
  }
  // A system of no rows may sit anywhere, even inside another.
  const std::vector<std::int64_t> empty_inside = {0, 3, 1};
  EXPECT_NO_THROW(VarLayout::back_to_back(ok, empty_inside));
  EXPECT_THROW(VarLayout::back_to_back(ok, std::vector<std::int64_t>{0, 3}), invalid_argument);
  EXPECT_THROW(VarLayout::back_to_back(ok, std::vector<std::int64_t>{0, -3, 9}), invalid_argument);
  const Layout l = Layout::packed({8, 3});
  EXPECT_THROW(VarLayout::padded(l, 0, std::vector<std::int64_t>{8, 9, 1}), invalid_argument);
  EXPECT_THROW(VarLayout::padded(l, 0, std::vector<std::int64_t>{8, 1}), invalid_argument);
  EXPECT_THROW(VarLayout::padded(l, 2, std::vector<std::int64_t>{8, 1, 1}), invalid_argument);
  EXPECT_THROW(VarSolver<double>(Backend::cpu, VarLayout::back_to_back(ok),
                                 {.algorithm = Algorithm::cpu_thomas}),
               invalid_argument);
}

TEST(CpuVarBatchChecks, RejectsOverlapsBeforeWriting) {
  const std::vector<std::int64_t> lengths = {4, 4, 4};
  const VarLayout layout = VarLayout::back_to_back(lengths);
  VarBatch<double> v(layout);
  v.fill(test_seed());
  const VarBatch<double> v0 = v;
  VarSolver<double> s(Backend::cpu, layout);
  // x over a, over d shifted by one system, and u over d (increment) are refused.
  EXPECT_THROW(s.solve(v.a.data(), v.b.data(), v.c.data(), v.d.data(), v.a.data()),
               invalid_argument);
  std::vector<double> big(40, 0.0);
  EXPECT_THROW(s.solve(v.a.data(), v.b.data(), v.c.data(), big.data(), big.data() + 4),
               invalid_argument);
  EXPECT_THROW(s.solve_increment(v.a.data(), v.b.data(), v.c.data(), v.d.data(), v.d.data()),
               invalid_argument);
  EXPECT_THROW(s.solve(v.a.data(), nullptr, v.c.data(), v.d.data(), v.x.data()),
               invalid_argument);
  EXPECT_TRUE(same_bits(v.a, v0.a));
  EXPECT_TRUE(same_bits(v.d, v0.d));
  EXPECT_TRUE(same_bits(v.x, v0.x));
  // Checked mode without info, and info over an operand.
  VarSolver<double> checked(Backend::cpu, layout, {.checked = true});
  EXPECT_THROW(checked.solve(v.a.data(), v.b.data(), v.c.data(), v.d.data(), v.x.data()),
               invalid_argument);
  EXPECT_THROW(checked.solve(v.a.data(), v.b.data(), v.c.data(), v.d.data(), v.x.data(),
                             reinterpret_cast<int*>(v.b.data())),
               invalid_argument);
}

TEST(CpuVarBatchChecks, InterleavedOperandsInOneBufferAreAccepted) {
  // Systems of 4 rows at offsets 0, 8, 16: d in the first half of each 8, x in the second half
  // (x = d's buffer + 4): no element is shared, so the solve is accepted and matches a solve
  // into a separate buffer.
  const std::vector<std::int64_t> lengths = {4, 4, 3};
  const std::vector<std::int64_t> offsets = {0, 8, 16};
  const VarLayout layout = VarLayout::back_to_back(lengths, offsets);
  VarBatch<double> v(layout);
  v.fill(test_seed());
  std::vector<double> dx(32, 0.0);
  for (int s = 0; s < 3; ++s) {
    for (int i = 0; i < lengths[s]; ++i) dx[offsets[s] + i] = v.d[offsets[s] + i];
  }
  VarSolver<double> s(Backend::cpu, layout);
  s.solve(v.a.data(), v.b.data(), v.c.data(), dx.data(), dx.data() + 4);
  s.solve(v.a.data(), v.b.data(), v.c.data(), v.d.data(), v.x.data());
  for (int k = 0; k < 3; ++k) {
    for (int i = 0; i < lengths[k]; ++i) EXPECT_EQ(dx[offsets[k] + 4 + i], v.x[offsets[k] + i]);
  }
  // Shifted by 3 instead, x's rows meet d's: refused.
  EXPECT_THROW(s.solve(v.a.data(), v.b.data(), v.c.data(), dx.data(), dx.data() + 3),
               invalid_argument);
}

TEST(CpuVarBatchChecks, EmptyBatchesNeedNoPointers) {
  const std::vector<std::int64_t> none;
  VarSolver<float> s(Backend::cpu, VarLayout::back_to_back(none), {.checked = true});
  s.solve(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
  const std::vector<std::int64_t> zeros = {0, 0, 0};
  VarSolver<float> z(Backend::cpu, VarLayout::back_to_back(zeros), {.checked = true});
  std::vector<int> info(3, -1);
  z.solve_in_place(nullptr, nullptr, nullptr, nullptr, info.data());
  EXPECT_EQ(info, (std::vector<int>{0, 0, 0}));
}

TEST(CpuVarBatchChecks, SharesOfEqualRows) {
  const std::vector<std::int64_t> lengths = {100, 1, 1, 1, 100, 50, 50, 0, 0, 97};
  const auto bounds = detail::split_by_rows(lengths, 4);
  ASSERT_EQ(bounds.size(), 5u);
  EXPECT_EQ(bounds.front(), 0);
  EXPECT_EQ(bounds.back(), 10);
  for (std::size_t t = 0; t + 1 < bounds.size(); ++t) {
    std::int64_t rows = 0;
    for (std::int64_t s = bounds[t]; s < bounds[t + 1]; ++s) rows += lengths[s] + 1;
    EXPECT_LE(rows, 2 * (410 / 4) + 1) << "share " << t;
  }
}

}  // namespace
}  // namespace triax::test
