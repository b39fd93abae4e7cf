// triax::layouts (paper 002's Flat, Full-Interleaved, Unified-Vector and their N-D forms): the
// addresses they give, the CPU kernels they reach, solves against the reference (Unified-Vector
// in place in one buffer), and triax::convert between them.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "support/compare.hpp"
#include "support/var_batches.hpp"
#include "triax/block.hpp"
#include "triax/layouts.hpp"

namespace triax::test {
namespace {

TEST(Layouts, PaperLayoutsAddresses) {
  const std::int64_t n = 5, count = 3;
  const Layout f = layouts::flat(n, count), i = layouts::interleaved(n, count);
  const OperandLayouts u = layouts::unified_vector(n, count);
  for (std::int64_t r = 0; r < n; ++r) {
    for (std::int64_t s = 0; s < count; ++s) {
      const std::int64_t idx[] = {r, s};
      EXPECT_EQ(f.offset_of(idx), s * n + r);
      EXPECT_EQ(i.offset_of(idx), r * count + s);
      EXPECT_EQ(u.a.offset_of(idx), 4 * (r * count + s) + 0);
      EXPECT_EQ(u.b.offset_of(idx), 4 * (r * count + s) + 1);
      EXPECT_EQ(u.c.offset_of(idx), 4 * (r * count + s) + 2);
      EXPECT_EQ(u.d.offset_of(idx), 4 * (r * count + s) + 3);
    }
  }
  EXPECT_EQ(u.x, u.d);
}

// Every component of a random N-D arrangement against the address written out by hand: the
// components together cover the buffer exactly once.
TEST(Layouts, ComponentsCoverThePackedArrayOnce) {
  std::mt19937_64 g(test_seed());
  for (int trial = 0; trial < 40; ++trial) {
    const int rank = 1 + static_cast<int>(g() % 4);
    std::vector<std::int64_t> extents(rank);
    for (auto& e : extents) e = 1 + static_cast<std::int64_t>(g() % 4);
    std::vector<int> order(rank);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), g);
    const std::int64_t components = 1 + static_cast<std::int64_t>(g() % 4);
    const int where = static_cast<int>(g() % (rank + 1));
    std::int64_t total = components;
    for (auto e : extents) total *= e;
    std::vector<int> hits(static_cast<std::size_t>(total), 0);
    for (std::int64_t k = 0; k < components; ++k) {
      const Layout l = layouts::component(extents, order, components, where, k);
      for_each_offset(l, [&](std::int64_t o) {
        ASSERT_LT(o, total);
        ++hits[o];
      });
    }
    EXPECT_TRUE(std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; }))
        << "trial " << trial;
  }
}

TEST(Layouts, RejectsBadArguments) {
  const std::int64_t e[] = {4, 5};
  const int dup[] = {0, 0}, ok[] = {1, 0}, shortorder[] = {0};
  EXPECT_THROW(layouts::component(e, dup, 2, 0, 0), invalid_argument);
  EXPECT_THROW(layouts::component(e, shortorder, 2, 0, 0), invalid_argument);
  EXPECT_THROW(layouts::component(e, ok, 0, 0, 0), invalid_argument);
  EXPECT_THROW(layouts::component(e, ok, 2, 3, 0), invalid_argument);
  EXPECT_THROW(layouts::component(e, ok, 2, 0, 2), invalid_argument);
  const std::int64_t huge[] = {std::int64_t(1) << 40, std::int64_t(1) << 30};
  EXPECT_THROW(layouts::component(huge, ok, 4, 2, 0), invalid_argument);
}

template <class T>
class LayoutsSolve : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(LayoutsSolve, Types);

// The CPU plan takes its fast kernels on the paper's layouts: the local transpose where rows are
// contiguous (Flat), the strip kernel across neighbouring systems otherwise.
TYPED_TEST(LayoutsSolve, PaperLayoutsReachTheFastKernelsAndMatchTheReference) {
  using T = TypeParam;
  const std::int64_t n = 96, count = 300;
  const std::tuple<const char*, OperandLayouts, Algorithm> cases[] = {
      {"flat", OperandLayouts(layouts::flat(n, count)), Algorithm::cpu_thomas_transpose},
      {"interleaved", OperandLayouts(layouts::interleaved(n, count)), Algorithm::cpu_thomas},
      {"unified", layouts::unified_vector(n, count), Algorithm::cpu_thomas}};
  for (const auto& [name, l, algorithm] : cases) {
    SCOPED_TRACE(name);
    Solver<T> s(Backend::cpu, l, 0);
    EXPECT_EQ(s.algorithm(), algorithm);
    for (const Mode m : {Mode::in_place, Mode::separate, Mode::increment}) {
      expect_matches_reference<T>(l, 0, m, test_seed(), host_runner<T>(Backend::cpu, algorithm));
    }
  }
}

// Unified-Vector in one buffer, solved in place (a, b, c, d one pointer): equal to the solve of
// the same systems split into four buffers.
template <class T>
void unified_in_place_matches_split(const OperandLayouts& u, int axis, std::uint64_t seed) {
  std::int64_t size = 0;
  for (const Layout* l : {&u.a, &u.b, &u.c, &u.d}) {
    size = std::max<std::int64_t>(size, static_cast<std::int64_t>(buffer_size(*l)));
  }
  Batch<T> split(u);
  split.fill_random(seed);
  std::vector<T> one(static_cast<std::size_t>(size), Batch<T>::poison());
  for_each_offset(u.a, [&](std::int64_t o) { one[o] = split.a[o]; });
  for_each_offset(u.b, [&](std::int64_t o) { one[o] = split.b[o]; });
  for_each_offset(u.c, [&](std::int64_t o) { one[o] = split.c[o]; });
  for_each_offset(u.d, [&](std::int64_t o) { one[o] = split.d[o]; });
  Solver<T> cpu(Backend::cpu, u, axis);
  cpu.solve_in_place(one.data(), one.data(), one.data(), one.data());
  Solver<T> ref(Backend::reference, u, axis);
  ref.solve_in_place(split.a.data(), split.b.data(), split.c.data(), split.d.data());
  std::vector<T> got(split.d.size(), Batch<T>::poison());
  for_each_offset(u.d, [&](std::int64_t o) { got[o] = one[o]; });
  EXPECT_TRUE(outputs_match(u.d, got, split.d, split.condition));
  // a, b, c untouched.
  for_each_offset(u.a, [&](std::int64_t o) { EXPECT_EQ(one[o], split.a[o]); });
  for_each_offset(u.c, [&](std::int64_t o) { EXPECT_EQ(one[o], split.c[o]); });
}

TYPED_TEST(LayoutsSolve, UnifiedVectorInPlaceInOneBuffer) {
  unified_in_place_matches_split<TypeParam>(layouts::unified_vector(64, 257), 0, test_seed());
}

TYPED_TEST(LayoutsSolve, NdUnifiedAnyComponentPositionAnyAxis) {
  const std::int64_t extents[] = {9, 6, 5};
  const int orders[][3] = {{0, 1, 2}, {2, 0, 1}, {1, 2, 0}};
  std::uint64_t k = 0;
  for (const auto& order : orders) {
    for (int where = 0; where <= 3; ++where) {
      for (int axis = 0; axis < 3; ++axis) {
        SCOPED_TRACE("where " + std::to_string(where) + ", axis " + std::to_string(axis));
        unified_in_place_matches_split<TypeParam>(layouts::unified(extents, order, where), axis,
                                                  test_seed(++k));
      }
    }
  }
}

// A variable batch padded in the Unified-Vector layout, in place in one buffer.
TYPED_TEST(LayoutsSolve, VariableBatchPaddedInUnifiedVector) {
  using T = TypeParam;
  const std::int64_t n = 40, count = 70;
  const auto lengths = mixed_lengths(test_seed(), count, n);
  const OperandLayouts u = layouts::unified_vector(n, count);
  VarBatch<T> split(VarLayout::padded(u, 0, lengths), u, 0);
  split.fill(test_seed(1));
  std::vector<T> one(split.a.size(), VarBatch<T>::poison());
  for (std::int64_t s = 0; s < count; ++s) {
    const std::vector<T>* src[] = {&split.a, &split.b, &split.c, &split.d};
    for (int op = 0; op < 4; ++op) {
      for (const auto o : split.rows(op, s)) one[o] = (*src[op])[o];
    }
  }
  VarSolver<T> cpu(Backend::cpu, split.layout);
  cpu.solve_in_place(one.data(), one.data(), one.data(), one.data());
  VarSolver<T> ref(Backend::reference, split.layout);
  ref.solve_in_place(split.a.data(), split.b.data(), split.c.data(), split.d.data());
  for (std::int64_t s = 0; s < count; ++s) {
    for (const auto o : split.rows(3, s)) {
      ASSERT_NEAR(one[o], split.d[o], tolerance<T>(7, 4)) << "system " << s;
    }
  }
}

// triax::convert between the three layouts (and an N-D case along every axis) against an
// element-wise loop.
TYPED_TEST(LayoutsSolve, ConvertBetweenPaperLayouts) {
  using T = TypeParam;
  const std::int64_t n = 70, count = 130;
  const OperandLayouts u = layouts::unified_vector(n, count);
  const Layout all[] = {layouts::flat(n, count), layouts::interleaved(n, count), u.a, u.c};
  for (const Layout& from : all) {
    for (const Layout& to : all) {
      std::vector<T> src(buffer_size(from)), dst(buffer_size(to), T(-1)), want(dst);
      std::iota(src.begin(), src.end(), T(0));
      for (std::int64_t r = 0; r < n; ++r) {
        for (std::int64_t s = 0; s < count; ++s) {
          const std::int64_t idx[] = {r, s};
          want[to.offset_of(idx)] = src[from.offset_of(idx)];
        }
      }
      convert(from, src.data(), to, dst.data());
      EXPECT_TRUE(same_bits(dst, want));
    }
  }
  const std::int64_t e3[] = {17, 33, 9};
  const int o1[] = {0, 1, 2}, o2[] = {2, 0, 1};
  for (int where = 0; where <= 3; ++where) {
    const Layout from = layouts::component(e3, o1, 3, where, 1);
    const Layout to = layouts::component(e3, o2, 4, 3 - where, 2);
    std::vector<T> src(buffer_size(from)), dst(buffer_size(to), T(-1)), want(dst);
    std::iota(src.begin(), src.end(), T(0));
    for (std::int64_t i = 0; i < e3[0]; ++i)
      for (std::int64_t j = 0; j < e3[1]; ++j)
        for (std::int64_t k = 0; k < e3[2]; ++k) {
          const std::int64_t idx[] = {i, j, k};
          want[to.offset_of(idx)] = src[from.offset_of(idx)];
        }
    convert(from, src.data(), to, dst.data());
    EXPECT_TRUE(same_bits(dst, want)) << "where " << where;
  }
}

}  // namespace
}  // namespace triax::test

namespace triax::test {
namespace {

TEST(LayoutsConvertBackend, HostBackendsAreTriaxConvert) {
  const Layout f = layouts::flat(50, 61), i = layouts::interleaved(50, 61);
  std::vector<double> src(buffer_size(f)), a(buffer_size(i), -1), b(buffer_size(i), -1);
  std::iota(src.begin(), src.end(), 0.0);
  layouts::convert<double>(Backend::cpu, f, src.data(), i, a.data());
  convert(f, src.data(), i, b.data());
  EXPECT_TRUE(same_bits(a, b));
  layouts::convert<double>(Backend::reference, f, src.data(), i, b.data());
  EXPECT_TRUE(same_bits(a, b));
  // Host memory on cuda: not compiled here, or not device memory there.
  EXPECT_THROW(layouts::convert<double>(Backend::cuda, f, src.data(), i, a.data()), error);
  EXPECT_THROW(layouts::convert<double>(Backend::cpu, f, src.data(), layouts::flat(50, 60),
                                        a.data()),
               invalid_argument);
}

}  // namespace
}  // namespace triax::test

namespace triax::test {
namespace {

// The examples of layouts.hpp and varbatch.hpp, as written there, with values filled in.
TEST(LayoutsDocExamples, HeaderSnippetsRun) {
  {
    const auto l = triax::layouts::unified_vector(256, 1000);
    std::vector<double> abcd(4 * 256 * 1000);
    for (std::size_t k = 0; k < abcd.size(); ++k) abcd[k] = k % 4 == 1 ? 4.0 : 1.0;
    triax::Solver<double> solver(triax::Backend::cpu, l, /*axis=*/0);
    double* p = abcd.data();
    solver.solve_in_place(p, p, p, p);  // every operand's layout carries its own offset 0..3
    for (std::size_t k = 3; k < abcd.size(); k += 4) ASSERT_TRUE(std::isfinite(abcd[k]));
    EXPECT_NEAR(abcd[3 + 4 * 1000 * 128], 1.0 / 6.0, 1e-12);  // an interior row: x = 1 / 6
  }
  {
    std::vector<std::int64_t> lengths = {300, 0, 5, 4096};
    auto layout = triax::VarLayout::back_to_back(lengths);  // offsets 0, 300, 300, 305
    EXPECT_EQ(layout.offset(3), 305);
    std::vector<double> a(layout.span(), 1.0), b(layout.span(), 4.0), c(layout.span(), 1.0),
        d(layout.span(), 6.0);
    triax::VarSolver<double> solver(triax::Backend::cpu, layout);
    solver.solve_in_place(a.data(), b.data(), c.data(), d.data());
    EXPECT_NEAR(d[305 + 2000], 1.0, 1e-12);  // interior rows of a constant system: x = 1
  }
}

}  // namespace
}  // namespace triax::test
