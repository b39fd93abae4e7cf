// What a plan does with the calls users get wrong, and with the interleaved layouts they get
// right: operands that share a buffer without sharing elements are solved; outputs that alias
// themselves, info arrays over operands, misaligned info, concurrent use of one plan, moved-from
// plans and absurd thread counts are refused with a triax::error naming what is wrong.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "support/problems.hpp"

namespace triax {
namespace {

template <class E, class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("wrong exception: ") + e.what();
  }
  return "no exception";
}

#define TRIAX_EXPECT_REJECTED(call, needle)                                  \
  do {                                                                       \
    const std::string what = message_of<invalid_argument>([&] { call; });    \
    EXPECT_NE(what.find(needle), std::string::npos) << "message: " << what; \
  } while (0)

class PlanMisuse : public ::testing::TestWithParam<Backend> {
 protected:
  Backend backend() const { return GetParam(); }
};

INSTANTIATE_TEST_SUITE_P(HostBackends, PlanMisuse,
                         ::testing::Values(Backend::reference, Backend::cpu),
                         [](const auto& info) { return std::string(to_string(info.param)); });

// Diagonally dominant coefficients for row i of system s, and a right-hand side.
double coeff(int which, std::int64_t s, std::int64_t i) {
  const double t = static_cast<double>((s * 7 + i * 3 + which) % 11) / 11.0;
  return which == 1 ? 4.0 + t : which == 3 ? 1.0 + t : -1.0 + 0.5 * t;
}

// Paper 002's Unified-Vector layout: a, b, c and d of one row side by side in one buffer (four
// values a row), solved in place; the answer must match the same systems in separate arrays.
TEST_P(PlanMisuse, UnifiedVectorSolvedInPlace) {
  const std::int64_t nx = 37, ny = 19;
  for (int axis : {0, 1}) {
    const auto field = [&](std::int64_t which) {
      return Layout::strided({nx, ny}, {4, 4 * nx}, which);
    };
    const OperandLayouts unified(field(0), field(1), field(2), field(3), field(3));
    std::vector<double> buf(4 * nx * ny);
    const auto packed = Layout::packed({nx, ny});
    std::vector<double> a(nx * ny), b(nx * ny), c(nx * ny), d(nx * ny), x(nx * ny, NAN);
    for (std::int64_t j = 0; j < ny; ++j) {
      for (std::int64_t i = 0; i < nx; ++i) {
        const std::int64_t s = axis == 0 ? j : i, row = axis == 0 ? i : j;
        for (int w = 0; w < 4; ++w) buf[4 * (i + nx * j) + w] = coeff(w, s, row);
        a[i + nx * j] = coeff(0, s, row);
        b[i + nx * j] = coeff(1, s, row);
        c[i + nx * j] = coeff(2, s, row);
        d[i + nx * j] = coeff(3, s, row);
      }
    }
    Solver<double>(backend(), packed, axis).solve(a.data(), b.data(), c.data(), d.data(),
                                                 x.data());
    Solver<double> s(backend(), unified, axis);
    s.solve_in_place(buf.data(), buf.data(), buf.data(), buf.data());
    for (std::int64_t k = 0; k < nx * ny; ++k) {
      ASSERT_EQ(buf[4 * k + 3], x[k]) << "axis " << axis << " element " << k;
      for (int w = 0; w < 3; ++w) ASSERT_EQ(buf[4 * k + w], coeff(w, axis == 0 ? k / nx : k % nx,
                                                                  axis == 0 ? k % nx : k / nx));
    }
  }
}

// x and d interleaved in one buffer (x at even, d at odd elements): a separate-output solve.
TEST_P(PlanMisuse, OutputInterleavedWithD) {
  const std::int64_t n = 50, m = 6;
  const auto packed = Layout::packed({n, m});
  const auto even = Layout::strided({n, m}, {2, 2 * n}, 0);
  const auto odd = Layout::strided({n, m}, {2, 2 * n}, 1);
  std::vector<double> a(n * m, -1.0), b(n * m, 4.0), c(n * m, -1.0), xd(2 * n * m), x(n * m);
  std::vector<double> d(n * m);
  for (std::int64_t k = 0; k < n * m; ++k) d[k] = xd[2 * k + 1] = std::sin(0.1 * k);
  Solver<double>(backend(), packed, 0).solve(a.data(), b.data(), c.data(), d.data(), x.data());
  Solver<double> s(backend(), OperandLayouts(packed, packed, packed, odd, even), 0);
  s.solve(a.data(), b.data(), c.data(), xd.data(), xd.data());
  for (std::int64_t k = 0; k < n * m; ++k) {
    ASSERT_EQ(xd[2 * k], x[k]);
    ASSERT_EQ(xd[2 * k + 1], d[k]);
  }
  // Shifted by one element, x would be d: refused.
  const auto odd_x = Layout::strided({n, m}, {2, 2 * n}, 1);
  Solver<double> bad(backend(), OperandLayouts(packed, packed, packed, odd, odd_x), 0);
  std::vector<double> before = xd;
  TRIAX_EXPECT_REJECTED(bad.solve(a.data(), b.data(), c.data(), xd.data() + 2, xd.data()),
                        "overlaps input d");
  EXPECT_EQ(xd, before);
}

TEST_P(PlanMisuse, OutputThatAliasesItself) {
  // Strides {1, 1}: element (i, j) and (i + 1, j - 1) are one element.
  const auto alias = Layout::strided({8, 8}, {1, 1});
  const auto packed = Layout::packed({8, 8});
  TRIAX_EXPECT_REJECTED(
      (Solver<double>(backend(), OperandLayouts(packed, packed, packed, packed, alias), 0)),
      "layout of x: strides {1, 1} map two indices to one element");
  // d may alias itself for a separate output, not in place.
  Solver<double> s(backend(), OperandLayouts(packed, packed, packed, alias, packed), 1);
  std::vector<double> a(64, -1), b(64, 4), c(64, -1), d(64, 1), x(64, NAN);
  TRIAX_EXPECT_REJECTED(s.solve_in_place(a.data(), b.data(), c.data(), d.data()),
                        "strides {1, 1} map two indices");
  for (double v : d) ASSERT_EQ(v, 1.0);
  s.solve(a.data(), b.data(), c.data(), d.data(), x.data());
  for (double v : x) ASSERT_TRUE(std::isfinite(v));
}

TEST_P(PlanMisuse, InfoOverOperandsOrMisaligned) {
  const auto layout = Layout::packed({16, 4});
  Solver<double> s(backend(), layout, 0, {.checked = true});
  std::vector<double> a(64, -1), b(64, 4), c(64, -1), d(64, 1), x(64, 7);
  // info inside x, inside d, inside a.
  TRIAX_EXPECT_REJECTED(s.solve(a.data(), b.data(), c.data(), d.data(), x.data(),
                                reinterpret_cast<int*>(x.data() + 10)),
                        "overlaps x");
  TRIAX_EXPECT_REJECTED(s.solve_in_place(a.data(), b.data(), c.data(), d.data(),
                                         reinterpret_cast<int*>(d.data() + 63)),
                        "overlaps d");
  TRIAX_EXPECT_REJECTED(s.solve_increment(a.data(), b.data(), c.data(), d.data(), x.data(),
                                          reinterpret_cast<int*>(a.data())),
                        "overlaps a");
  // Misaligned: two bytes into an int array.
  std::vector<int> info(8, -9);
  TRIAX_EXPECT_REJECTED(
      s.solve(a.data(), b.data(), c.data(), d.data(), x.data(),
              reinterpret_cast<int*>(reinterpret_cast<char*>(info.data()) + 2)),
      "pointer info");
  for (double v : x) ASSERT_EQ(v, 7.0);
  for (double v : d) ASSERT_EQ(v, 1.0);
  for (int v : info) ASSERT_EQ(v, -9);
  // The same info between x's elements (x every other element) is fine: it shares no byte.
  const auto sparse = Layout::strided({16, 4}, {2, 32});
  Solver<float> f(backend(), OperandLayouts(Layout::packed({16, 4}), Layout::packed({16, 4}),
                                            Layout::packed({16, 4}), Layout::packed({16, 4}),
                                            sparse),
                  0, {.checked = true});
  std::vector<float> af(64, -1), bf(64, 4), cf(64, -1), df(64, 1), xf(128, 0);
  // floats and ints are both 4 bytes: info at the odd floats.
  static_assert(sizeof(float) == sizeof(int));
  TRIAX_EXPECT_REJECTED(f.solve(af.data(), bf.data(), cf.data(), df.data(), xf.data(),
                                reinterpret_cast<int*>(xf.data() + 1)),
                        "overlaps x");  // 4 consecutive ints cover x's elements 2 and 4
}

TEST_P(PlanMisuse, IncrementIntoD) {
  const auto layout = Layout::packed({16, 4});
  Solver<double> s(backend(), layout, 0);
  std::vector<double> a(64, -1), b(64, 4), c(64, -1), d(64, 1);
  TRIAX_EXPECT_REJECTED(s.solve_increment(a.data(), b.data(), c.data(), d.data(), d.data()),
                        "u must not share elements with d");
  for (double v : d) ASSERT_EQ(v, 1.0);
}

TEST_P(PlanMisuse, SystemsOfNoRows) {
  // 5 systems of 0 rows: nothing to read or write, null pointers welcome; checked mode says
  // every system is fine.
  const auto layout = Layout::packed({0, 5});
  Solver<double> s(backend(), layout, 0, {.checked = true});
  std::vector<int> info(5, -9);
  s.solve(nullptr, nullptr, nullptr, nullptr, nullptr, info.data());
  for (int v : info) EXPECT_EQ(v, 0);
  TRIAX_EXPECT_REJECTED(s.solve_in_place(nullptr, nullptr, nullptr, nullptr), "info is null");
  Solver<float> u(backend(), layout, 0);
  u.solve_in_place(nullptr, nullptr, nullptr, nullptr);
  u.solve_increment(nullptr, nullptr, nullptr, nullptr, nullptr);
  // Broadcast coefficients over systems of no rows: still nothing to read.
  const auto bcast = Layout::strided({0, 5}, {1, 0});
  Solver<float> v(backend(), OperandLayouts(bcast, bcast, bcast, layout, layout), 0);
  v.solve(nullptr, nullptr, nullptr, nullptr, nullptr);
}

// An empty array's strides may be anything (no offset is ever formed): planning it must not
// overflow (the fuzzer found stride x extent products past 64 bits in the batch merge; the
// sanitizer build of this suite is what sees it).
TEST_P(PlanMisuse, EmptyArrayWithHugeStrides) {
  const auto empty = Layout::strided({std::int64_t(1) << 23, 2, 0},
                                     {std::int64_t(1) << 41, 1, 1});
  Solver<float> s(backend(), empty, 2);
  EXPECT_EQ(s.system_count(), std::int64_t(1) << 24);
  EXPECT_EQ(s.system_length(), 0);
  s.solve_in_place(nullptr, nullptr, nullptr, nullptr);
}

TEST_P(PlanMisuse, MovedFromPlan) {
  const auto layout = Layout::packed({8, 2});
  Solver<double> s(backend(), layout, 0);
  Solver<double> t(std::move(s));
  std::vector<double> a(16, -1), b(16, 4), c(16, -1), d(16, 1);
  TRIAX_EXPECT_REJECTED(s.solve_in_place(a.data(), b.data(), c.data(), d.data()), "moved from");
  TRIAX_EXPECT_REJECTED(s.system_count(), "moved from");
  TRIAX_EXPECT_REJECTED(s.algorithm(), "moved from");
  for (double v : d) ASSERT_EQ(v, 1.0);
  t.solve_in_place(a.data(), b.data(), c.data(), d.data());
  EXPECT_NE(d[0], 1.0);
  // Assigning a plan to it makes it usable again.
  s = Solver<double>(backend(), layout, 0);
  EXPECT_EQ(s.system_count(), 2);
}

TEST_P(PlanMisuse, ThreadCounts) {
  const auto layout = Layout::packed({40, 33});
  TRIAX_EXPECT_REJECTED((Solver<double>(backend(), layout, 0, {.num_threads = 1025})),
                        "options.num_threads = 1025 is outside 0..1024");
  TRIAX_EXPECT_REJECTED((Solver<double>(backend(), layout, 0, {.num_threads = -1})),
                        "options.num_threads = -1");
  // More threads than cores is allowed and solves alike.
  std::vector<double> a(40 * 33, -1), b(40 * 33, 4), c(40 * 33, -1), d(40 * 33), x1(40 * 33),
      x16(40 * 33);
  for (std::size_t k = 0; k < d.size(); ++k) d[k] = std::cos(0.3 * static_cast<double>(k));
  Solver<double>(backend(), layout, 0, {.num_threads = 1})
      .solve(a.data(), b.data(), c.data(), d.data(), x1.data());
  Solver<double>(backend(), layout, 0, {.num_threads = 16})
      .solve(a.data(), b.data(), c.data(), d.data(), x16.data());
  EXPECT_EQ(x1, x16);
}

TEST_P(PlanMisuse, WorkspaceTooLargeIsATriaxError) {
#if defined(__SANITIZE_ADDRESS__)
  // ASan's allocator ends the process on a request this large instead of throwing
  // std::bad_alloc; the normal build runs this test.
  GTEST_SKIP() << "SKIPPED under AddressSanitizer";
#endif
  // 2^50 rows: the layout is fine, its workspace is not to be had.
  const auto layout = Layout::packed({std::int64_t(1) << 50});
  try {
    Solver<double> s(backend(), layout, 0);
    ADD_FAILURE() << "a plan for 2^50 rows was made";
  } catch (const out_of_memory& e) {
    EXPECT_NE(std::string(e.what()).find("could not be allocated"), std::string::npos);
  } catch (const invalid_argument& e) {
    // A backend may refuse such a length outright; it must still say so as a triax::error.
    EXPECT_NE(std::string(e.what()).find("1125899906842624"), std::string::npos) << e.what();
  }
}

// One plan, two threads: the second solve is refused while the first runs, and no solve ever
// returns a wrong answer.
TEST_P(PlanMisuse, ConcurrentSolvesOnOnePlan) {
  const std::int64_t n = 64, m = 4096;
  const auto layout = Layout::packed({n, m});
  Solver<double> s(backend(), layout, 0, {.num_threads = 1});
  std::vector<double> a(n * m, -1), b(n * m, 4), c(n * m, -1), d(n * m), expect(n * m);
  for (std::int64_t k = 0; k < n * m; ++k) d[k] = std::sin(0.01 * static_cast<double>(k));
  s.solve(a.data(), b.data(), c.data(), d.data(), expect.data());
  std::atomic<int> refused{0}, wrong{0}, solved{0};
  std::atomic<bool> stop{false};
  auto worker = [&] {
    std::vector<double> x(n * m);
    while (!stop.load()) {
      std::fill(x.begin(), x.end(), NAN);
      try {
        s.solve(a.data(), b.data(), c.data(), d.data(), x.data());
        ++solved;
        if (x != expect) ++wrong;
      } catch (const invalid_argument& e) {
        if (std::string(e.what()).find("already solving") != std::string::npos) ++refused;
        else ++wrong;
      }
    }
  };
  std::thread t1(worker), t2(worker);
  // Until both outcomes were seen, for at most 20 seconds.
  for (int ms = 0; ms < 20000 && (refused.load() == 0 || solved.load() < 2); ms += 10) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  stop = true;
  t1.join();
  t2.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(refused.load(), 0);
  EXPECT_GE(solved.load(), 2);
}

}  // namespace
}  // namespace triax
