// Every rejected argument throws triax::invalid_argument (or not_compiled) with a message naming
// the argument and its value, and nothing is written.
#include <gtest/gtest.h>

#include <cmath>
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

class BadInput : public ::testing::Test {
 protected:
  const Layout layout = Layout::packed({8, 6, 4});
  std::vector<double> a = std::vector<double>(192, 0.5), b = std::vector<double>(192, 4.0),
                      c = std::vector<double>(192, 0.5), d = std::vector<double>(192, 1.0),
                      x = std::vector<double>(192, -7.0);
  // The output must be untouched after a rejected call.
  void expect_unwritten() {
    for (double v : x) ASSERT_EQ(v, -7.0);
    for (double v : d) ASSERT_EQ(v, 1.0);
  }
};

TEST_F(BadInput, LayoutRank) {
  expect_rejected<invalid_argument>([] { Layout::packed(std::span<const std::int64_t>{}); },
                                    {"rank 0"});
  const std::vector<std::int64_t> nine(9, 2);
  expect_rejected<invalid_argument>([&] { Layout::packed(nine); }, {"rank 9"});
}

TEST_F(BadInput, NegativeExtentsStridesOffset) {
  expect_rejected<invalid_argument>([] { Layout::packed({4, -3}); }, {"extents[1]", "-3"});
  expect_rejected<invalid_argument>([] { Layout::strided({4, 3}, {1, -4}); },
                                    {"strides[1]", "-4"});
  expect_rejected<invalid_argument>([] { Layout::strided({4, 3}, {1, 4}, -1); },
                                    {"offset", "-1"});
  expect_rejected<invalid_argument>([] { Layout::padded({4, 3}, {4, 2}); },
                                    {"allocated[1]", "2"});
}

TEST_F(BadInput, AxisOutOfRange) {
  expect_rejected<invalid_argument>([&] { Solver<double>(Backend::cpu, layout, 3); },
                                    {"axis = 3", "rank 3"});
  expect_rejected<invalid_argument>([&] { Solver<double>(Backend::cpu, layout, -1); },
                                    {"axis = -1"});
}

TEST_F(BadInput, NullPointers) {
  Solver<double> s(Backend::cpu, layout, 1);
  expect_rejected<invalid_argument>([&] { s.solve(nullptr, b.data(), c.data(), d.data(), x.data()); }, {"pointer a is null"});
  expect_rejected<invalid_argument>([&] { s.solve(a.data(), nullptr, c.data(), d.data(), x.data()); }, {"pointer b is null"});
  expect_rejected<invalid_argument>([&] { s.solve(a.data(), b.data(), nullptr, d.data(), x.data()); }, {"pointer c is null"});
  expect_rejected<invalid_argument>([&] { s.solve(a.data(), b.data(), c.data(), nullptr, x.data()); }, {"pointer d is null"});
  expect_rejected<invalid_argument>([&] { s.solve(a.data(), b.data(), c.data(), d.data(), nullptr); }, {"pointer x is null"});
  expect_unwritten();
}

TEST_F(BadInput, OverlappingOutputs) {
  Solver<double> s(Backend::cpu, layout, 0);
  expect_rejected<invalid_argument>([&] { s.solve(a.data(), b.data(), c.data(), d.data(), a.data()); }, {"overlaps input a"});
  expect_rejected<invalid_argument>([&] { s.solve(a.data(), b.data(), c.data(), d.data(), c.data() + 5); }, {"overlaps input c"});
  // u == d in increment mode: d would be read and written as two different things.
  expect_rejected<invalid_argument>([&] { s.solve_increment(a.data(), b.data(), c.data(), d.data(), d.data()); }, {"overlaps input d"});
  // x shifted by one element against d.
  std::vector<double> big(400, 1.0);
  expect_rejected<invalid_argument>([&] { s.solve(a.data(), b.data(), c.data(), big.data(), big.data() + 1); }, {"overlaps input d"});
  expect_unwritten();
}

TEST_F(BadInput, MisalignedPointer) {
  Solver<double> s(Backend::cpu, layout, 2);
  std::vector<char> raw(193 * sizeof(double));
  auto* bad = reinterpret_cast<double*>(raw.data() + 1);
  expect_rejected<invalid_argument>([&] { s.solve(a.data(), b.data(), c.data(), d.data(), bad); },
                                    {"pointer x", "not aligned to 8 bytes"});
  expect_unwritten();
}

TEST_F(BadInput, OverflowingLayout) {
  const auto huge = Layout::strided({1 << 20, 1 << 20}, {1, std::int64_t(1) << 50});
  expect_rejected<invalid_argument>([&] { Solver<double>(Backend::cpu, huge, 0); },
                                    {"layout of a", "overflows 64 bits"});
}

TEST_F(BadInput, DifferentExtents) {
  const OperandLayouts l(layout, layout, Layout::packed({8, 6, 5}), layout, layout);
  expect_rejected<invalid_argument>([&] { Solver<double>(Backend::cpu, l, 0); },
                                    {"layout of c", "extent[2] = 5", "d has 4"});
  const OperandLayouts r(layout, Layout::packed({8, 24}), layout, layout, layout);
  expect_rejected<invalid_argument>([&] { Solver<double>(Backend::cpu, r, 0); },
                                    {"layout of b", "rank 2"});
}

TEST_F(BadInput, BroadcastOutput) {
  const auto bcast = Layout::strided({8, 6, 4}, {1, 0, 8});
  const OperandLayouts l(layout, layout, layout, layout, bcast);
  expect_rejected<invalid_argument>([&] { Solver<double>(Backend::cpu, l, 0); },
                                    {"layout of x", "stride[1] = 0"});
  // Broadcast d cannot be solved in place either.
  const OperandLayouts m(layout, layout, layout, bcast, layout);
  Solver<double> s(Backend::cpu, m, 0);
  expect_rejected<invalid_argument>([&] { s.solve_in_place(a.data(), b.data(), c.data(), d.data()); },
                                    {"in place", "stride[1] = 0"});
  expect_unwritten();
}

TEST_F(BadInput, CheckedModeNeedsInfo) {
  Solver<double> s(Backend::cpu, layout, 0, {.checked = true});
  expect_rejected<invalid_argument>([&] { s.solve(a.data(), b.data(), c.data(), d.data(), x.data()); },
                                    {"info is null"});
  expect_unwritten();
}

TEST_F(BadInput, AlgorithmOfAnotherBackend) {
  expect_rejected<invalid_argument>(
      [&] { Solver<double>(Backend::cpu, layout, 0, {.algorithm = Algorithm::reference_thomas}); },
      {"reference_thomas", "cpu backend"});
  expect_rejected<invalid_argument>(
      [&] { Solver<float>(Backend::reference, layout, 0, {.algorithm = Algorithm::cpu_thomas}); },
      {"cpu_thomas", "reference backend"});
  expect_rejected<invalid_argument>(
      [&] { Solver<double>(Backend::cpu, layout, 0, {.num_threads = -2}); },
      {"num_threads = -2"});
}

TEST_F(BadInput, CudaBackendNotCompiled) {
  if (backend_compiled(Backend::cuda)) GTEST_SKIP() << "this build has the CUDA backend";
  expect_rejected<not_compiled>([&] { Solver<double>(Backend::cuda, layout, 0); },
                                {"cuda backend was not compiled"});
}

TEST_F(BadInput, EmptyBatchIsANoOp) {
  const auto empty = Layout::packed({8, 0, 4});
  Solver<double> s(Backend::cpu, empty, 0);
  EXPECT_EQ(s.system_count(), 0);
  // Even null pointers are fine: nothing is read or written.
  s.solve(nullptr, nullptr, nullptr, nullptr, nullptr);
  Solver<double> r(Backend::reference, Layout::packed({0, 3}), 0);
  r.solve_in_place(a.data(), b.data(), c.data(), d.data());
  expect_unwritten();
}

}  // namespace
}  // namespace triax
