// Every rejected argument throws triax::invalid_argument (or not_compiled) with a message naming
// the argument and its value, and nothing is written. The checks live in core, so every host
// backend must reject alike: the solve-time tests run on each.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "support/problems.hpp"

namespace triax {
namespace {

// Runs f, expects exception E whose message contains every needle.
template <class E, class F>
void expect_rejected(F&& f, std::initializer_list<const char*> needles) {
  try {
    f();
    ADD_FAILURE() << "no exception";
  } catch (const E& e) {
    const std::string what = e.what();
    for (const char* n : needles) EXPECT_NE(what.find(n), std::string::npos) << what;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception: " << e.what();
  }
}

constexpr std::int64_t big = std::int64_t(1) << 62;

TEST(BadLayout, RankZeroAndNine) {
  const std::vector<std::int64_t> none, nine(9, 2), ones(9, 1);
  expect_rejected<invalid_argument>([&] { Layout::packed(none); }, {"extents", "rank 0"});
  expect_rejected<invalid_argument>([&] { Layout::packed(nine); }, {"extents", "rank 9"});
  expect_rejected<invalid_argument>([&] { Layout::padded(nine, nine); }, {"rank 9"});
  expect_rejected<invalid_argument>([&] { Layout::padded(none, none); }, {"rank 0"});
  expect_rejected<invalid_argument>([&] { Layout::strided(nine, ones); }, {"rank 9"});
  expect_rejected<invalid_argument>([&] { Layout::strided(none, none); }, {"rank 0"});
  // Rank 8, the largest, is fine.
  EXPECT_EQ(Layout::packed(std::vector<std::int64_t>(8, 2)).rank(), 8);
}

TEST(BadLayout, NegativeExtentsStridesOffsetAndBadPadding) {
  expect_rejected<invalid_argument>([] { Layout::packed({4, -3}); }, {"extents[1]", "-3"});
  expect_rejected<invalid_argument>([] { Layout::padded({-1, 3}, {4, 3}); },
                                    {"extents[0]", "-1"});
  expect_rejected<invalid_argument>([] { Layout::strided({4, 3}, {1, -4}); },
                                    {"strides[1]", "-4"});
  expect_rejected<invalid_argument>([] { Layout::strided({4, 3}, {1, 4}, -1); },
                                    {"offset", "-1"});
  expect_rejected<invalid_argument>([] { Layout::strided({4, 3}, {1}); },
                                    {"strides has 1", "extents has 2"});
  expect_rejected<invalid_argument>([] { Layout::padded({4, 3}, {4, 2}); },
                                    {"allocated[1]", "2"});
  expect_rejected<invalid_argument>([] { Layout::padded({4, 3}, {6, 3}, {3, 0}); },
                                    {"begin[0]", "7", "allocated[0] = 6"});
  expect_rejected<invalid_argument>([] { Layout::padded({4, 3}, {6, 3}, {0, -1}); },
                                    {"begin[1]", "-1"});
}

class BadInput : public ::testing::TestWithParam<Backend> {
 protected:
  Backend backend() const { return GetParam(); }
  const Layout layout = Layout::packed({8, 6, 4});
  std::vector<double> a = std::vector<double>(192, 0.5), b = std::vector<double>(192, 4.0),
                      c = std::vector<double>(192, 0.5), d = std::vector<double>(192, 1.0),
                      x = std::vector<double>(192, -7.0);
  std::vector<int> info = std::vector<int>(24, -9);
  // Nothing may change after a rejected call: not the output, not d, not info.
  void expect_unwritten() {
    for (double v : x) ASSERT_EQ(v, -7.0);
    for (double v : d) ASSERT_EQ(v, 1.0);
    for (int v : info) ASSERT_EQ(v, -9);
  }
};

INSTANTIATE_TEST_SUITE_P(HostBackends, BadInput,
                         ::testing::Values(Backend::reference, Backend::cpu),
                         [](const auto& info) { return std::string(to_string(info.param)); });

TEST_P(BadInput, AxisOutOfRange) {
  for (int axis : {3, 4, 100}) {
    expect_rejected<invalid_argument>([&] { Solver<double>(backend(), layout, axis); },
                                      {("axis = " + std::to_string(axis)).c_str(), "rank 3"});
  }
  expect_rejected<invalid_argument>([&] { Solver<double>(backend(), layout, -1); },
                                    {"axis = -1"});
}

TEST_P(BadInput, NullPointers) {
  Solver<double> s(backend(), layout, 1);
  double* p[] = {a.data(), b.data(), c.data(), d.data(), x.data()};
  const char* names[] = {"pointer a is null", "pointer b is null", "pointer c is null",
                         "pointer d is null", "pointer x is null"};
  for (int k = 0; k < 5; ++k) {
    double* q[5] = {p[0], p[1], p[2], p[3], p[4]};
    q[k] = nullptr;
    expect_rejected<invalid_argument>([&] { s.solve(q[0], q[1], q[2], q[3], q[4], info.data()); },
                                      {names[k]});
    // The output of solve_increment is called u.
    expect_rejected<invalid_argument>(
        [&] { s.solve_increment(q[0], q[1], q[2], q[3], q[4], info.data()); },
        {k == 4 ? "pointer u is null" : names[k]});
    if (k < 4) {
      expect_rejected<invalid_argument>(
          [&] { s.solve_in_place(q[0], q[1], q[2], q[3], info.data()); }, {names[k]});
    }
  }
  expect_unwritten();
}

TEST_P(BadInput, OutputOverlapsAnInput) {
  Solver<double> s(backend(), layout, 0);
  expect_rejected<invalid_argument>([&] { s.solve(a.data(), b.data(), c.data(), d.data(), a.data()); }, {"overlaps input a"});
  expect_rejected<invalid_argument>([&] { s.solve(a.data(), b.data(), c.data(), d.data(), b.data() + 191); }, {"overlaps input b"});
  expect_rejected<invalid_argument>([&] { s.solve(a.data(), b.data(), c.data(), d.data(), c.data() + 5); }, {"overlaps input c"});
  // In place, d must not overlap a, b or c either.
  expect_rejected<invalid_argument>([&] { s.solve_in_place(a.data(), b.data(), c.data(), const_cast<double*>(b.data()) + 3); }, {"overlaps input b"});
  // u == d in increment mode: d would be read and written as two different things.
  expect_rejected<invalid_argument>([&] { s.solve_increment(a.data(), b.data(), c.data(), d.data(), d.data()); }, {"overlaps input d"});
  // x shifted by one element against d.
  std::vector<double> shared(400, 1.0);
  expect_rejected<invalid_argument>([&] { s.solve(a.data(), b.data(), c.data(), shared.data(), shared.data() + 1); }, {"overlaps input d"});
  expect_unwritten();
}

TEST_P(BadInput, OutputIsDWithAnotherLayout) {
  // x == d but laid out differently: not an in-place solve, and the ranges overlap.
  const auto transposed = Layout::strided({8, 6, 4}, {24, 4, 1});
  const OperandLayouts l(layout, layout, layout, layout, transposed);
  Solver<double> s(backend(), l, 1);
  expect_rejected<invalid_argument>([&] { s.solve(a.data(), b.data(), c.data(), d.data(), d.data()); }, {"overlaps input d"});
  expect_unwritten();
  // With d's own layout, solve(d, x = d) is an in-place solve and is allowed.
  Solver<double> same(backend(), layout, 1);
  std::vector<double> d2 = d, d3 = d;
  same.solve(a.data(), b.data(), c.data(), d2.data(), d2.data());
  same.solve_in_place(a.data(), b.data(), c.data(), d3.data());
  EXPECT_EQ(d2, d3);
  EXPECT_NE(d2, d);
}

TEST_P(BadInput, MisalignedPointers) {
  Solver<double> s(backend(), layout, 2);
  std::vector<char> raw(193 * sizeof(double));
  auto* bad = reinterpret_cast<double*>(raw.data() + 1);
  const double* p[] = {a.data(), b.data(), c.data(), d.data(), x.data()};
  const char* names[] = {"pointer a", "pointer b", "pointer c", "pointer d", "pointer x"};
  for (int k = 0; k < 5; ++k) {
    const double* q[5] = {p[0], p[1], p[2], p[3], p[4]};
    q[k] = bad;
    expect_rejected<invalid_argument>(
        [&] { s.solve(q[0], q[1], q[2], q[3], const_cast<double*>(q[4])); },
        {names[k], "not aligned to 8 bytes"});
  }
  // float needs 4 bytes.
  Solver<float> f(backend(), layout, 0);
  std::vector<float> ff(200, 1.0f);
  auto* badf = reinterpret_cast<float*>(reinterpret_cast<char*>(ff.data()) + 2);
  expect_rejected<invalid_argument>([&] { f.solve_in_place(ff.data(), ff.data(), ff.data(), badf); },
                                    {"pointer d", "not aligned to 4 bytes"});
  expect_unwritten();
}

TEST_P(BadInput, OverflowingLayouts) {
  const auto huge = Layout::strided({1 << 20, 1 << 20}, {1, std::int64_t(1) << 50});
  expect_rejected<invalid_argument>([&] { Solver<double>(backend(), huge, 0); },
                                    {"layout of a", "overflows 64 bits"});
  // Only b overflows.
  const OperandLayouts only_b(layout, Layout::strided({8, 6, 4}, {1, 8, big}), layout, layout,
                              layout);
  expect_rejected<invalid_argument>([&] { Solver<double>(backend(), only_b, 0); },
                                    {"layout of b", "overflows 64 bits"});
  // Eight terms of about 2^126 each: the sum overflows even 128 bits.
  constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
  const std::vector<std::int64_t> e8(8, 3), s8(8, max / 4);
  expect_rejected<invalid_argument>([&] { Solver<double>(backend(), Layout::strided(e8, s8), 0); },
                                    {"layout of a", "overflows 64 bits"});
}

// A layout whose element count does not fit 64 bits is refused where it is made: size() could
// not return it. Zero extents do not hide the overflow of the others (the plan's system count
// is their product).
TEST(BadLayout, ElementCountOverflows) {
  constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
  const std::vector<std::int64_t> e8(8, max), s8(8, max);
  expect_rejected<invalid_argument>([&] { Layout::strided(e8, s8); },
                                    {"extents {9223372036854775807", "overflows 64 bits"});
  expect_rejected<invalid_argument>([] { Layout::strided({big, 4, 4}, {0, 0, 0}); },
                                    {"extents {4611686018427387904, 4, 4}", "overflows 64 bits"});
  constexpr std::int64_t two32 = std::int64_t(1) << 32;
  expect_rejected<invalid_argument>([] { Layout::packed({0, two32, two32 + 1}); },
                                    {"extents {0, 4294967296, 4294967297}", "overflows 64 bits"});
  expect_rejected<invalid_argument>([] { Layout::padded({0, two32, two32 + 1}, {1, two32, two32 + 1}); },
                                    {"overflows 64 bits"});
  // 2^62 elements fit; as many with a zero extent too.
  EXPECT_EQ(Layout::strided({big, 1}, {0, 0}).size(), big);
  EXPECT_EQ(Layout::packed({0, two32, two32 / 4}).size(), 0);
}

// Padding arithmetic in 128 bits: begin + extent and the offset of the first interior point
// must not wrap to small values.
TEST(BadLayout, PaddingOverflows) {
  constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
  expect_rejected<invalid_argument>([] { Layout::padded({4}, {8}, {max}); },
                                    {"begin[0] + extents[0]", "more than 2^63 - 1", "allocated[0] = 8"});
  // begin[1] x stride 2^31 = 2^64 + 2^33 would wrap to 2^33.
  constexpr std::int64_t two31 = std::int64_t(1) << 31;
  const std::int64_t b1 = (std::int64_t(1) << 33) + 4;
  expect_rejected<invalid_argument>(
      [&] { Layout::padded({1, 1}, {two31, b1 + 1}, {0, b1}); },
      {"offset of the first interior point", "begin[1] = 8589934596", "overflows 64 bits"});
  // Just below the limit is accepted, with the exact offset.
  const auto ok = Layout::padded({1, 1}, {two31, two31}, {0, two31 - 1});
  EXPECT_EQ(ok.offset(), (two31 - 1) * two31);
}

TEST_P(BadInput, LayoutsOfDifferentExtentsOrRank) {
  const OperandLayouts l(layout, layout, Layout::packed({8, 6, 5}), layout, layout);
  expect_rejected<invalid_argument>([&] { Solver<double>(backend(), l, 0); },
                                    {"layout of c", "extent[2] = 5", "d has 4"});
  const OperandLayouts r(layout, Layout::packed({8, 24}), layout, layout, layout);
  expect_rejected<invalid_argument>([&] { Solver<double>(backend(), r, 0); },
                                    {"layout of b", "rank 2"});
  const OperandLayouts xs(layout, layout, layout, layout, Layout::packed({9, 6, 4}));
  expect_rejected<invalid_argument>([&] { Solver<double>(backend(), xs, 2); },
                                    {"layout of x", "extent[0] = 9", "d has 8"});
  const OperandLayouts as(Layout::packed({8, 6, 4, 1}), layout, layout, layout, layout);
  expect_rejected<invalid_argument>([&] { Solver<double>(backend(), as, 2); },
                                    {"layout of a", "rank 4"});
}

TEST_P(BadInput, BroadcastOutput) {
  const auto bcast = Layout::strided({8, 6, 4}, {1, 0, 8});
  const OperandLayouts l(layout, layout, layout, layout, bcast);
  expect_rejected<invalid_argument>([&] { Solver<double>(backend(), l, 0); },
                                    {"layout of x", "stride[1] = 0"});
  // Broadcast d cannot be solved in place either.
  const OperandLayouts m(layout, layout, layout, bcast, layout);
  Solver<double> s(backend(), m, 0);
  expect_rejected<invalid_argument>([&] { s.solve_in_place(a.data(), b.data(), c.data(), d.data()); },
                                    {"in place", "d", "stride[1] = 0"});
  expect_unwritten();
  // Stride 0 on an extent of 1 writes nothing twice: allowed.
  const OperandLayouts one(Layout::packed({8, 1, 4}));
  const OperandLayouts ok(one.a, one.b, one.c, one.d, Layout::strided({8, 1, 4}, {1, 0, 8}));
  EXPECT_NO_THROW(Solver<double>(backend(), ok, 0));
}

TEST_P(BadInput, CheckedModeNeedsInfo) {
  Solver<double> s(backend(), layout, 0, {.checked = true});
  expect_rejected<invalid_argument>([&] { s.solve(a.data(), b.data(), c.data(), d.data(), x.data()); },
                                    {"info is null"});
  expect_rejected<invalid_argument>([&] { s.solve_in_place(a.data(), b.data(), c.data(), d.data()); },
                                    {"info is null"});
  expect_unwritten();
}

TEST_P(BadInput, AlgorithmOfAnotherBackend) {
  const Backend other = backend() == Backend::cpu ? Backend::reference : Backend::cpu;
  for (Algorithm alg : {Algorithm::reference_thomas, Algorithm::reference_dense_lu,
                        Algorithm::cpu_thomas, Algorithm::cpu_thomas_transpose,
                        Algorithm::cuda_thread_thomas, Algorithm::cuda_block_thomas_pcr}) {
    bool belongs = false;
    try {
      Solver<double> s(backend(), layout, 0, {.algorithm = alg});
      belongs = true;
      EXPECT_EQ(s.algorithm(), alg);
    } catch (const invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(to_string(alg)), std::string::npos) << what;
      EXPECT_NE(what.find(std::string(to_string(backend())) + " backend"), std::string::npos)
          << what;
    }
    // Each host algorithm belongs to exactly one of the two host backends.
    if (belongs) EXPECT_THROW(Solver<double>(other, layout, 0, {.algorithm = alg}), invalid_argument);
  }
  expect_rejected<invalid_argument>(
      [&] { Solver<double>(backend(), layout, 0, {.num_threads = -2}); }, {"num_threads = -2"});
}

TEST_P(BadInput, EmptyBatchIsANoOp) {
  // No systems: even null pointers are fine, nothing is read or written.
  for (const auto& empty : {Layout::packed({8, 0, 4}), Layout::packed({0, 0})}) {
    Solver<double> s(backend(), empty, 0, {.checked = true});
    EXPECT_EQ(s.system_count(), 0);
    s.solve(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
    s.solve_increment(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
    s.solve_in_place(nullptr, nullptr, nullptr, nullptr, nullptr);
  }
  // Systems of no rows: nothing to write but the info of each system.
  Solver<double> r(backend(), Layout::packed({0, 3}), 0, {.checked = true});
  EXPECT_EQ(r.system_count(), 3);
  EXPECT_EQ(r.system_length(), 0);
  r.solve(a.data(), b.data(), c.data(), d.data(), x.data(), info.data());
  for (int k = 0; k < 3; ++k) EXPECT_EQ(info[k], 0) << "system " << k;
  std::fill(info.begin(), info.end(), -9);
  r.solve_in_place(a.data(), b.data(), c.data(), d.data(), info.data());
  std::fill(info.begin(), info.end(), -9);
  expect_unwritten();
}

TEST(BadBackend, CudaNotCompiled) {
  if (backend_compiled(Backend::cuda)) GTEST_SKIP() << "this build has the CUDA backend";
  expect_rejected<not_compiled>([] { Solver<double>(Backend::cuda, Layout::packed({8}), 0); },
                                {"cuda backend was not compiled"});
  expect_rejected<not_compiled>([] { Solver<float>(Backend::cuda, Layout::packed({8}), 0); },
                                {"cuda"});
}

TEST(BadBackend, NotABackend) {
  expect_rejected<invalid_argument>(
      [] { Solver<double>(static_cast<Backend>(7), Layout::packed({8}), 0); }, {"backend = 7"});
}

}  // namespace
}  // namespace triax
