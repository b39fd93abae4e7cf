// Block layouts: the named constructors' strides, triax::convert between every pair of them (with
// ghost layers that must stay untouched), and BlockSolver's rejection of bad layouts and
// pointers, with a message naming the argument, before anything is written.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "support/block_problems.hpp"
#include "support/compare.hpp"

namespace triax::test {
namespace {

std::vector<std::int64_t> strides_of(const Layout& l) {
  std::vector<std::int64_t> s;
  for (int k = 0; k < l.rank(); ++k) s.push_back(l.stride(k));
  return s;
}

TEST(BlockLayouts, NamedLayoutsHaveTheDocumentedStrides) {
  // m = 3 on a 4 x 5 grid.
  const auto aob = BlockLayouts::array_of_blocks(3, {4, 5});
  EXPECT_EQ(strides_of(aob.a), (std::vector<std::int64_t>{3, 1, 9, 36}));
  EXPECT_EQ(strides_of(aob.d), (std::vector<std::int64_t>{1, 3, 12}));
  const auto soa = BlockLayouts::structure_of_arrays(3, {4, 5});
  EXPECT_EQ(strides_of(soa.b), (std::vector<std::int64_t>{60, 20, 1, 4}));
  EXPECT_EQ(strides_of(soa.x), (std::vector<std::int64_t>{20, 1, 4}));
  // Interleaved along grid axis 0: the other grid dimension first, the axis outermost.
  const auto il = BlockLayouts::interleaved(3, {4, 5}, 0);
  EXPECT_EQ(strides_of(il.c), (std::vector<std::int64_t>{3, 1, 45, 9}));
  EXPECT_EQ(strides_of(il.d), (std::vector<std::int64_t>{1, 15, 3}));
  // Ghost layers: a 4 x 5 interior of a 6 x 7 allocation starting at (1, 1).
  const auto g = BlockLayouts::array_of_blocks(3, {4, 5}, {6, 7}, {1, 1});
  EXPECT_EQ(strides_of(g.a), (std::vector<std::int64_t>{3, 1, 9, 54}));
  EXPECT_EQ(g.a.offset(), 9 * (1 + 6));
  const auto gs = BlockLayouts::structure_of_arrays(2, {4, 5}, {6, 7}, {1, 1});
  EXPECT_EQ(strides_of(gs.d), (std::vector<std::int64_t>{42, 1, 6}));
  EXPECT_EQ(gs.d.offset(), 7);
  EXPECT_EQ(g.a.extent(0), 3);
  EXPECT_EQ(g.a.extent(3), 5);
}

TEST(BlockLayouts, NamedConstructorsRejectBadGrids) {
  auto message_of = [](auto&& f) {
    try {
      f();
    } catch (const invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  EXPECT_NE(message_of([] { BlockLayouts::array_of_blocks(0, {4}); }).find("m = 0"),
            std::string::npos);
  EXPECT_NE(message_of([] {
              BlockLayouts::array_of_blocks(2, {1, 1, 1, 1, 1, 1, 1});
            }).find("rank 7"),
            std::string::npos);
  EXPECT_NE(message_of([] {
              BlockLayouts::structure_of_arrays(2, {4, 5}, {6});
            }).find("allocated has 1"),
            std::string::npos);
  EXPECT_NE(message_of([] {
              BlockLayouts::interleaved(2, {4, 5}, 2);
            }).find("axis = 2"),
            std::string::npos);
  EXPECT_NE(message_of([] {
              BlockLayouts::array_of_blocks(2, {4, 5}, {5, 7}, {2, 1});
            }).find("begin[0]"),
            std::string::npos);
}

// Every pair of the three layouts, blocks and vectors, with ghost layers on both sides: each
// element lands where the target layout puts it, the target's ghosts keep their sentinel.
template <class T>
class BlockConvert : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(BlockConvert, ValueTypes);

TYPED_TEST(BlockConvert, EveryPairOfLayoutsCopiesEveryElementAndNothingElse) {
  using T = TypeParam;
  const std::vector<std::int64_t> grid = {7, 5, 3};
  const std::vector<std::int64_t> alloc = {9, 7, 5}, begin = {1, 1, 1};
  for (int m : {1, 4}) {
    std::vector<BlockLayouts> all;
    for (bool ghost : {false, true}) {
      const auto& a = ghost ? alloc : std::vector<std::int64_t>{};
      const auto& b = ghost ? begin : std::vector<std::int64_t>{};
      all.push_back(BlockLayouts::array_of_blocks(m, grid, a, b));
      all.push_back(BlockLayouts::structure_of_arrays(m, grid, a, b));
      for (int axis : {0, 2}) all.push_back(BlockLayouts::interleaved(m, grid, axis, a, b));
    }
    for (const auto& from : all) {
      for (const auto& to : all) {
        for (bool block : {true, false}) {
          const Layout& lf = block ? from.a : from.d;
          const Layout& lt = block ? to.a : to.d;
          std::vector<T> src(buffer_size(lf), T(-7)), dst(buffer_size(lt), T(-99));
          std::int64_t k = 0;
          for_each_offset(lf, [&](std::int64_t o) { src[o] = static_cast<T>(k++); });
          const std::vector<T> src_before = src;
          convert(lf, src.data(), lt, dst.data());
          // Walk both layouts in the same index order: the k-th element must match.
          std::vector<std::int64_t> of, ot;
          for_each_offset(lf, [&](std::int64_t o) { of.push_back(o); });
          for_each_offset(lt, [&](std::int64_t o) { ot.push_back(o); });
          ASSERT_EQ(of.size(), ot.size());
          for (std::size_t i = 0; i < of.size(); ++i) {
            ASSERT_EQ(dst[ot[i]], src[of[i]]) << "m " << m << ", element " << i;
          }
          const std::vector<bool> in = covered(lt, dst.size());
          for (std::size_t o = 0; o < dst.size(); ++o) {
            if (!in[o]) ASSERT_EQ(dst[o], T(-99)) << "ghost at " << o << " written";
          }
          ASSERT_TRUE(same_bits(src, src_before));
        }
      }
    }
  }
}

TEST(BlockConvert, RejectsMismatchedLayoutsAndOverlap) {
  const auto l = BlockLayouts::array_of_blocks(2, {4, 3});
  const auto other = BlockLayouts::array_of_blocks(2, {4, 4});
  std::vector<double> src(l.a.size(), 1.0), dst(other.a.size(), 0.0);
  const std::vector<double> dst_before = dst;
  EXPECT_THROW(convert(l.a, src.data(), l.d, dst.data()), invalid_argument);
  try {
    convert(l.a, src.data(), other.a, dst.data());
    ADD_FAILURE() << "different extents accepted";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("extent[3] = 4"), std::string::npos) << e.what();
  }
  EXPECT_THROW(convert(l.a, src.data(), l.a, src.data() + 1), invalid_argument);
  EXPECT_THROW(convert<double>(l.a, nullptr, l.a, dst.data()), invalid_argument);
  EXPECT_EQ(dst, dst_before);
}

// ---- BlockSolver's argument checks ----

std::string rejection(const std::function<void()>& f) {
  try {
    f();
  } catch (const invalid_argument& e) {
    return e.what();
  }
  return "no exception";
}

#define TRIAX_EXPECT_REJECTED(call, ...)                                       \
  do {                                                                         \
    const std::string what_ = rejection([&] { call; });                        \
    for (const char* part_ : {__VA_ARGS__}) {                                  \
      EXPECT_NE(what_.find(part_), std::string::npos) << "message: " << what_; \
    }                                                                          \
  } while (0)

TEST(BlockSolverArguments, BadLayoutsAreRejectedNamingTheArgument) {
  const int m = 3;
  const auto good = BlockLayouts::array_of_blocks(m, {4, 5});
  auto with = [&](auto change) {
    BlockLayouts l = good;
    change(l);
    return l;
  };
  using S = BlockSolver<double>;
  const Backend cpu = Backend::cpu;
  TRIAX_EXPECT_REJECTED(S(cpu, 0, good, 0), "m = 0");
  // a of rank r + 1 (a vector layout where a block one belongs).
  TRIAX_EXPECT_REJECTED(S(cpu, m, with([&](BlockLayouts& l) { l.a = good.d; }), 0), "layout of a",
                        "rank 3", "needs 4");
  // Block extent != m.
  TRIAX_EXPECT_REJECTED(S(cpu, m, with([&](BlockLayouts& l) {
                            l.c = BlockLayouts::array_of_blocks(4, {4, 5}).c;
                          }),
                          0),
                        "layout of c", "extent[0] = 4", "m = 3");
  TRIAX_EXPECT_REJECTED(S(cpu, m, with([&](BlockLayouts& l) {
                            l.b = Layout::strided({3, 2, 4, 5}, {3, 1, 9, 36});
                          }),
                          0),
                        "layout of b", "extent[1] = 2");
  // Vector extent != m.
  TRIAX_EXPECT_REJECTED(S(cpu, m, with([&](BlockLayouts& l) {
                            l.x = BlockLayouts::array_of_blocks(2, {4, 5}).x;
                          }),
                          0),
                        "layout of x", "extent[0] = 2");
  // Grid extents that differ.
  TRIAX_EXPECT_REJECTED(S(cpu, m, with([&](BlockLayouts& l) {
                            l.a = BlockLayouts::array_of_blocks(m, {4, 6}).a;
                          }),
                          0),
                        "layout of a", "grid extent 1", "= 6", "d has 5");
  // Grid rank 7 (d of rank 8).
  TRIAX_EXPECT_REJECTED(S(cpu, 1,
                          BlockLayouts(Layout::packed({1, 1, 1, 1, 1, 1, 1, 1}),
                                       Layout::packed({1, 1, 1, 1, 1, 1, 1, 1})),
                          0),
                        "layout of d", "rank 8");
  // Axis out of range: the axis counts grid dimensions.
  TRIAX_EXPECT_REJECTED(S(cpu, m, good, 2), "axis = 2", "rank 2");
  TRIAX_EXPECT_REJECTED(S(cpu, m, good, -1), "axis = -1");
  // An output that writes one element twice.
  TRIAX_EXPECT_REJECTED(S(cpu, m, with([&](BlockLayouts& l) {
                            l.x = Layout::strided({3, 4, 5}, {1, 0, 12});
                          }),
                          0),
                        "layout of x");
  // A scalar algorithm.
  TRIAX_EXPECT_REJECTED(S(cpu, m, good, 0, {.algorithm = Algorithm::cpu_thomas}), "cpu_thomas");
  // A block algorithm of another backend (the cuda backend's own tests take its plans).
  TRIAX_EXPECT_REJECTED(S(cpu, m, good, 0, {}, BlockAlgorithm::cuda_block_coop_thomas),
                        "cuda_block_coop_thomas", "backend cpu");
  TRIAX_EXPECT_REJECTED(S(Backend::reference, m, good, 0, {}, BlockAlgorithm::cpu_block_thomas),
                        "cpu_block_thomas", "backend reference");
}

TEST(BlockSolverArguments, BadPointersAreRejectedBeforeAnythingIsWritten) {
  const int m = 2;
  const auto l = BlockLayouts::array_of_blocks(m, {4, 3});
  BlockSolver<double> solver(Backend::cpu, m, l, 0);
  const std::size_t blocks = l.a.size(), vectors = l.d.size();
  std::vector<double> a(blocks, 0.5), b(blocks, 4.0), c(blocks, 0.5), d(vectors, 1.0),
      x(vectors, -1.0);
  const auto d0 = d, x0 = x;
  TRIAX_EXPECT_REJECTED(solver.solve(a.data(), nullptr, c.data(), d.data(), x.data()),
                        "pointer b is null");
  // x inside c's buffer, and d inside a's (in place).
  std::vector<double> big(2 * blocks, 0.5);
  TRIAX_EXPECT_REJECTED(solver.solve(a.data(), b.data(), big.data(), d.data(), big.data() + 1),
                        "overlaps input c");
  TRIAX_EXPECT_REJECTED(solver.solve_in_place(big.data(), b.data(), c.data(), big.data() + 2),
                        "output d", "overlaps input a");
  TRIAX_EXPECT_REJECTED(
      solver.solve(a.data(), b.data(), c.data(), d.data(),
                   reinterpret_cast<double*>(reinterpret_cast<char*>(x.data()) + 1)),
      "not aligned");
  BlockSolver<double> checked(Backend::cpu, m, l, 0, {.checked = true});
  TRIAX_EXPECT_REJECTED(checked.solve(a.data(), b.data(), c.data(), d.data(), x.data()),
                        "info is null");
  EXPECT_EQ(d, d0);
  EXPECT_EQ(x, x0);
  EXPECT_TRUE(std::all_of(big.begin(), big.end(), [](double v) { return v == 0.5; }));
}

// d and x interleaved in one buffer (component k of d next to component k of x): they share no
// element, so the solve is accepted, and it must leave d as it was.
TEST(BlockSolverArguments, InterleavedDAndXInOneBufferAreAccepted) {
  const int m = 2;
  const std::int64_t n = 5;
  const auto blocks = BlockLayouts::array_of_blocks(m, {n}).a;
  const Layout dl = Layout::strided({m, n}, {2, 2 * m}, 0),
               xl = Layout::strided({m, n}, {2, 2 * m}, 1);
  BlockSolver<double> solver(Backend::cpu, m, BlockLayouts(blocks, blocks, blocks, dl, xl), 0);
  std::vector<double> a(blocks.size(), 0.25), b(blocks.size(), 0.0), c(blocks.size(), 0.25),
      dx(2 * m * n, 0.0);
  for (std::int64_t i = 0; i < n; ++i)
    for (int r = 0; r < m; ++r) b[i * m * m + r * m + r] = 3.0;
  for (std::int64_t e = 0; e < m * n; ++e) dx[2 * e] = 1.0;
  solver.solve(a.data(), b.data(), c.data(), dx.data(), dx.data());
  for (std::int64_t e = 0; e < m * n; ++e) {
    EXPECT_EQ(dx[2 * e], 1.0);
    EXPECT_GT(dx[2 * e + 1], 0.0);
  }
}

}  // namespace
}  // namespace triax::test
