// Property test of the one place where an N-D solve becomes a batch: every (system, row) of the
// normalised problem must land on the element the N-D layout puts there, each exactly once.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "core/normalize.hpp"
#include "core/validate.hpp"
#include "support/problems.hpp"

namespace triax {
namespace {

using detail::operand_count;

Layout random_layout(std::mt19937_64& g, const std::vector<std::int64_t>& extents, bool broadcast) {
  const int rank = static_cast<int>(extents.size());
  std::uniform_int_distribution<int> pad(0, 2), pick(0, 2);
  std::vector<std::int64_t> allocated(rank), begin(rank);
  for (int k = 0; k < rank; ++k) {
    begin[k] = pad(g);
    allocated[k] = extents[k] + begin[k] + pad(g);
  }
  if (broadcast) {
    // Stride 0 on some dimensions, packed on the others.
    std::vector<std::int64_t> strides(rank);
    std::int64_t s = 1;
    for (int k = 0; k < rank; ++k) {
      strides[k] = pick(g) == 0 ? 0 : s;
      s *= extents[k] + 1;
    }
    return Layout::strided(extents, strides, pad(g));
  }
  switch (pick(g)) {
    case 0: return Layout::packed(extents);
    case 1: return Layout::padded(extents, allocated, begin);
    default: {
      // Dimensions stored in a random order.
      std::vector<int> order(rank);
      for (int k = 0; k < rank; ++k) order[k] = k;
      std::shuffle(order.begin(), order.end(), g);
      std::vector<std::int64_t> strides(rank);
      std::int64_t s = 1;
      for (int k : order) {
        strides[k] = s;
        s *= allocated[k];
      }
      return Layout::strided(extents, strides, pad(g) * 3);
    }
  }
}

TEST(Normalize, EveryRowOfEverySystemKeepsItsOffset) {
  const std::uint64_t seed = test::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 g(seed);
  for (int trial = 0; trial < 400; ++trial) {
    std::uniform_int_distribution<int> rank_dist(1, 8);
    const int rank = rank_dist(g);
    std::vector<std::int64_t> extents(rank);
    std::int64_t total = 1;
    for (auto& e : extents) {
      std::uniform_int_distribution<int> ext(rank > 5 ? 1 : 0, rank > 5 ? 3 : 5);
      e = ext(g);
      total *= std::max<std::int64_t>(e, 1);
    }
    const int axis = std::uniform_int_distribution<int>(0, rank - 1)(g);
    const Layout lx = random_layout(g, extents, false);
    const Layout ld = random_layout(g, extents, false);
    const Layout la = random_layout(g, extents, trial % 3 == 0);
    const OperandLayouts layouts(la, random_layout(g, extents, trial % 5 == 0), la, ld, lx);
    detail::validate_layouts(layouts, axis);
    const detail::Problem p = detail::normalize(layouts, axis);
    const Layout* by_op[operand_count] = {&layouts.a, &layouts.b, &layouts.c, &layouts.d,
                                          &layouts.x};
    SCOPED_TRACE("trial " + std::to_string(trial) + ", rank " + std::to_string(rank) +
                 ", axis " + std::to_string(axis));
    ASSERT_EQ(p.n, extents[axis]);
    std::int64_t count = 1;
    for (int k = 0; k < rank; ++k) count *= (k == axis ? 1 : extents[k]);
    ASSERT_EQ(p.count, count);
    ASSERT_LE(p.batch_rank, rank - 1);
    // The kernels' SystemWalk, started at any system, steps through the same offsets.
    if (p.count > 0) {
      const std::int64_t s0 = std::uniform_int_distribution<std::int64_t>(0, p.count - 1)(g);
      detail::SystemWalk walk(p, s0);
      for (std::int64_t s = s0; s < p.count; ++s, walk.next()) {
        for (int op = 0; op < operand_count; ++op) {
          ASSERT_EQ(walk.offset[op], p.system_offset(op, s))
              << "walk from " << s0 << ", operand " << op << ", system " << s;
        }
      }
    }
    for (int op = 0; op < operand_count; ++op) {
      std::set<std::int64_t> seen;
      for (std::int64_t s = 0; s < p.count; ++s) {
        for (std::int64_t i = 0; i < p.n; ++i) {
          const std::int64_t got = p.system_offset(op, s) + i * p.map[op].row_stride;
          const std::int64_t want = test::system_row_offset(*by_op[op], axis, s, i);
          ASSERT_EQ(got, want) << "operand " << op << ", system " << s << ", row " << i;
          seen.insert(want);
        }
      }
      // The (system, row) pairs reach exactly the layout's elements...
      std::set<std::int64_t> all;
      test::for_each_offset(*by_op[op], [&](std::int64_t o) { all.insert(o); });
      EXPECT_EQ(seen, all) << "operand " << op;
      // ...and, without broadcast, each exactly once: count * n distinct offsets.
      bool broadcast = false;
      for (int k = 0; k < rank; ++k) broadcast |= by_op[op]->stride(k) == 0 && extents[k] > 1;
      if (!broadcast) EXPECT_EQ(static_cast<std::int64_t>(seen.size()), p.count * p.n);
    }
  }
}

// Packed arrays of any rank: the dimensions below the axis merge into one batch dimension and
// those above into another; the two merge as well when the axis has extent 1. Extents of 1
// vanish. No layout needs fewer.
TEST(Normalize, PackedBatchRankIsMinimal) {
  std::mt19937_64 g(test::test_seed());
  for (int trial = 0; trial < 300; ++trial) {
    const int rank = std::uniform_int_distribution<int>(1, 8)(g);
    std::vector<std::int64_t> extents(rank);
    for (auto& e : extents) e = std::uniform_int_distribution<int>(1, 3)(g);
    const int axis = std::uniform_int_distribution<int>(0, rank - 1)(g);
    int below = 0, above = 0;
    for (int k = 0; k < rank; ++k) (k < axis ? below : above) += k != axis && extents[k] > 1;
    const int want = extents[axis] == 1 ? (below + above > 0) : (below > 0) + (above > 0);
    const auto p = detail::normalize(OperandLayouts(Layout::packed(extents)), axis);
    ASSERT_EQ(p.batch_rank, want) << "trial " << trial << ", rank " << rank << ", axis " << axis;
  }
}

TEST(Normalize, PackedBatchDimensionsMergeToTheFewest) {
  const auto l = Layout::packed({7, 5, 3});
  EXPECT_EQ(detail::normalize(OperandLayouts(l), 0).batch_rank, 1);  // y and z merge
  EXPECT_EQ(detail::normalize(OperandLayouts(l), 1).batch_rank, 2);  // x and z cannot
  EXPECT_EQ(detail::normalize(OperandLayouts(l), 2).batch_rank, 1);  // x and y merge
  const auto p = detail::normalize(OperandLayouts(l), 1);
  EXPECT_EQ(p.n, 5);
  EXPECT_EQ(p.map[detail::op_d].row_stride, 7);
  EXPECT_EQ(p.batch_extents[0], 7);
  EXPECT_EQ(p.batch_extents[1], 3);
  // Extents of 1 vanish.
  EXPECT_EQ(detail::normalize(OperandLayouts(Layout::packed({1, 9, 1, 4})), 3).batch_rank, 1);
  // Padding stops a merge: a padded x-row is not contiguous with the next.
  const auto padded = Layout::padded({4, 4, 4}, {6, 4, 4}, {1, 0, 0});
  EXPECT_EQ(detail::normalize(OperandLayouts(padded), 2).batch_rank, 2);
}

}  // namespace
}  // namespace triax
