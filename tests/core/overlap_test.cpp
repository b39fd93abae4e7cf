// The element-level overlap checks against brute force: random small layouts, every element
// address listed, and the checks must agree exactly (never "unknown" at these sizes). And the
// 64-bit limits of layouts against the same sums in 128 bits.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <vector>

#include "core/overlap.hpp"
#include "support/problems.hpp"

namespace triax {
namespace {

using detail::Overlap;

// Every element offset of a layout (repeats kept).
std::vector<std::int64_t> offsets(const Layout& l) {
  std::vector<std::int64_t> all;
  test::for_each_offset(l, [&](std::int64_t off) { all.push_back(off); });
  return all;
}

Layout random_layout(std::mt19937_64& rng, int max_rank, std::int64_t max_stride) {
  const int rank = std::uniform_int_distribution<int>(1, max_rank)(rng);
  std::vector<std::int64_t> e(rank), s(rank);
  for (int k = 0; k < rank; ++k) {
    e[k] = std::uniform_int_distribution<std::int64_t>(0, 5)(rng);
    if (std::uniform_int_distribution<int>(0, 9)(rng) > 0 && e[k] == 0) e[k] = 1 + k;
    s[k] = std::uniform_int_distribution<std::int64_t>(0, max_stride)(rng);
  }
  return Layout::strided(e, s, std::uniform_int_distribution<std::int64_t>(0, 20)(rng));
}

// The layouts of arrays: each stride a multiple of the span below it (packed or padded), with
// random padding, so that interleavings of whole arrays are tried often.
Layout random_array_layout(std::mt19937_64& rng) {
  const int rank = std::uniform_int_distribution<int>(1, 3)(rng);
  std::vector<std::int64_t> e(rank), s(rank);
  std::int64_t stride = std::uniform_int_distribution<std::int64_t>(1, 4)(rng);
  for (int k = 0; k < rank; ++k) {
    e[k] = std::uniform_int_distribution<std::int64_t>(1, 4)(rng);
    s[k] = stride;
    stride *= e[k] + std::uniform_int_distribution<std::int64_t>(0, 2)(rng);
  }
  return Layout::strided(e, s, std::uniform_int_distribution<std::int64_t>(0, 6)(rng));
}

TEST(Overlap, TwoLayoutsAgreeWithBruteForce) {
  std::mt19937_64 rng(2026);
  int shared = 0, disjoint_within_span = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const bool arrays = trial % 2 == 0;
    const Layout p = arrays ? random_array_layout(rng) : random_layout(rng, 3, 12);
    const Layout q = arrays ? random_array_layout(rng) : random_layout(rng, 3, 12);
    constexpr std::size_t es = 8;
    const std::uintptr_t base_p = 4096;
    const std::uintptr_t base_q =
        base_p + es * std::uniform_int_distribution<std::uintptr_t>(0, 40)(rng);
    std::set<std::int64_t> in_p;
    for (const auto o : offsets(p)) in_p.insert(o);
    bool expect = false;
    std::int64_t lo_q = INT64_MAX, hi_q = -1;
    for (const auto o : offsets(q)) {
      const std::int64_t addr = static_cast<std::int64_t>((base_q - base_p) / es) + o;
      expect = expect || in_p.count(addr) > 0;
      lo_q = std::min(lo_q, addr);
      hi_q = std::max(hi_q, addr);
    }
    const Overlap got = detail::layouts_overlap(base_p, p, base_q, q, es);
    ASSERT_NE(got, Overlap::unknown) << "trial " << trial;
    ASSERT_EQ(got == Overlap::yes, expect) << "trial " << trial;
    shared += expect;
    // Disjoint but interleaved: the spans meet, no element is shared.
    if (!expect && !in_p.empty() && lo_q <= *in_p.rbegin() && *in_p.begin() <= hi_q) {
      ++disjoint_within_span;
    }
  }
  // The trials cover both answers, and many interleavings a span check would have rejected.
  EXPECT_GT(shared, 2000);
  EXPECT_GT(disjoint_within_span, 1000);
}

TEST(Overlap, BasesNotAWholeElementApart) {
  // Elements of 8 bytes whose bases lie 4 bytes apart share bytes where their elements meet.
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 5000; ++trial) {
    const Layout p = random_layout(rng, 2, 6);
    const Layout q = random_layout(rng, 2, 6);
    constexpr std::int64_t es = 8;
    const std::int64_t shift = std::uniform_int_distribution<std::int64_t>(-100, 100)(rng);
    const std::uintptr_t base_p = 1 << 20;
    const std::uintptr_t base_q = base_p + shift;
    bool expect = false;
    for (const auto op : offsets(p)) {
      for (const auto oq : offsets(q)) {
        const std::int64_t bp = op * es, bq = shift + oq * es;
        expect = expect || (bq < bp + es && bp < bq + es);
      }
    }
    const Overlap got = detail::layouts_overlap(base_p, p, base_q, q, es);
    ASSERT_NE(got, Overlap::unknown);
    ASSERT_EQ(got == Overlap::yes, expect) << "trial " << trial << " shift " << shift;
  }
}

TEST(Overlap, SelfOverlapAgreesWithBruteForce) {
  std::mt19937_64 rng(11);
  int aliasing = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const Layout l = random_layout(rng, 3, 10);
    const auto all = offsets(l);
    const bool expect = std::set<std::int64_t>(all.begin(), all.end()).size() != all.size();
    const Overlap got = detail::layout_self_overlaps(l);
    ASSERT_NE(got, Overlap::unknown);
    ASSERT_EQ(got == Overlap::yes, expect) << "trial " << trial;
    aliasing += expect;
  }
  EXPECT_GT(aliasing, 2000);
  EXPECT_LT(aliasing, 18000);
}

TEST(Overlap, LayoutMeetsBytesAgreesWithBruteForce) {
  std::mt19937_64 rng(13);
  for (int trial = 0; trial < 20000; ++trial) {
    const Layout l = random_layout(rng, 3, 8);
    constexpr std::int64_t es = 8;
    const std::uintptr_t base = 1 << 16;
    const std::int64_t lo = std::uniform_int_distribution<std::int64_t>(-40, 400)(rng);
    const std::int64_t len = std::uniform_int_distribution<std::int64_t>(0, 24)(rng);
    bool expect = false;
    // An empty range meets nothing.
    for (const auto o : offsets(l)) {
      expect = expect || (len > 0 && o * es < lo + len && lo < o * es + es);
    }
    const Overlap got = detail::layout_meets_bytes(base, l, es, base + lo, base + lo + len);
    ASSERT_NE(got, Overlap::unknown);
    ASSERT_EQ(got == Overlap::yes, expect) << "trial " << trial;
  }
}

TEST(Overlap, LargeArraysOfTheIssue) {
  // Paper 002's Unified-Vector layout: a, b, c, d of one row side by side, 4 values a row, along
  // a 512^3 grid: disjoint, though every span is the whole buffer.
  const auto row = [](std::int64_t off) {
    return Layout::strided({512, 512, 512}, {4, 4 * 512, 4 * 512 * 512}, off);
  };
  for (int p = 0; p < 4; ++p) {
    for (int q = 0; q < 4; ++q) {
      EXPECT_EQ(detail::layouts_overlap(0, row(p), 0, row(q), 8),
                p == q ? Overlap::yes : Overlap::no);
    }
  }
  // The interior of a 258^3 array against its ghost layer's x = 0 plane.
  const auto interior = Layout::padded({256, 256, 256}, {258, 258, 258}, {1, 1, 1});
  const auto ghost = Layout::strided({1, 258, 258}, {1, 258, 258 * 258}, 0);
  EXPECT_EQ(detail::layouts_overlap(0, interior, 0, ghost, 8), Overlap::no);
  EXPECT_EQ(detail::layouts_overlap(0, interior, 8 * 258, ghost, 8), Overlap::no);
  EXPECT_EQ(detail::layouts_overlap(0, interior, 8, ghost, 8), Overlap::yes);
  // Two halves of one buffer along y: x = rows 0..255, d = rows 256..511 of a 512-row array.
  const auto half = [](std::int64_t y0) {
    return Layout::padded({300, 256, 100}, {300, 512, 100}, {0, y0, 0});
  };
  EXPECT_EQ(detail::layouts_overlap(0, half(0), 0, half(256), 4), Overlap::no);
  EXPECT_EQ(detail::layouts_overlap(0, half(0), 0, half(255), 4), Overlap::yes);
  EXPECT_EQ(detail::layout_self_overlaps(interior), Overlap::no);
  EXPECT_EQ(detail::layout_self_overlaps(Layout::strided({1000, 1000}, {1, 1})), Overlap::yes);
}

// The 64-bit limits of a layout, against the same sums in 128 bits: a layout is made iff its
// element count (extents other than 0) fits, and a plan iff every offset fits (and its output
// does not alias itself).
TEST(LayoutLimits, AgreeWithSumsIn128Bits) {
  std::mt19937_64 rng(17);
  int made = 0, refused = 0, planned = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const int rank = std::uniform_int_distribution<int>(1, 4)(rng);
    std::vector<std::int64_t> e(rank), s(rank);
    __int128 count = 1, last = 0;
    const std::int64_t offset = std::uniform_int_distribution<std::int64_t>(0, 1 << 30)(rng);
    last = offset;
    // Strides of padded arrays (each beyond the span below it) wherever they fit 63 bits, so
    // that the layouts do not alias themselves and only the limits decide.
    __int128 stride = std::uniform_int_distribution<std::int64_t>(1, 1 << 20)(rng);
    for (int k = 0; k < rank; ++k) {
      // Systems (axis 0) short enough for the reference plan's workspace.
      const int bits = std::uniform_int_distribution<int>(0, k == 0 ? 10 : 40)(rng);
      e[k] = std::uniform_int_distribution<std::int64_t>(0, std::int64_t(1) << bits)(rng);
      s[k] = stride <= std::numeric_limits<std::int64_t>::max()
                 ? static_cast<std::int64_t>(stride)
                 : std::uniform_int_distribution<std::int64_t>(0, std::int64_t(1) << 62)(rng);
      stride = static_cast<__int128>(s[k]) * std::max<std::int64_t>(e[k], 1) +
               std::uniform_int_distribution<std::int64_t>(0, 9)(rng);
      if (e[k] > 0) count *= e[k];
    }
    bool any_zero = false;
    for (int k = 0; k < rank; ++k) any_zero = any_zero || e[k] == 0;
    for (int k = 0; k < rank && !any_zero; ++k) last += static_cast<__int128>(e[k] - 1) * s[k];
    const bool count_fits = count <= std::numeric_limits<std::int64_t>::max();
    const bool offsets_fit = last <= std::numeric_limits<std::int64_t>::max();
    try {
      const Layout l = Layout::strided(e, s, offset);
      ASSERT_TRUE(count_fits) << "trial " << trial;
      ++made;
      bool plan_made = true;
      std::string why;
      try {
        Solver<float> solver(Backend::reference, l, 0);
      } catch (const invalid_argument& e) {
        plan_made = false;
        why = e.what();
      } catch (const out_of_memory&) {
        // A plan whose layouts are fine may still need more workspace than there is.
      }
      // The plan also refuses an output layout that aliases itself (brute-force tested above).
      const bool aliases = detail::layout_self_overlaps(l) != Overlap::no;
      ASSERT_EQ(plan_made, offsets_fit && !aliases) << "trial " << trial << ": " << why;
      planned += plan_made;
    } catch (const invalid_argument& e) {
      ASSERT_FALSE(count_fits) << "trial " << trial << ": " << e.what();
      ++refused;
    }
  }
  EXPECT_GT(made, 250);
  EXPECT_GT(refused, 250);
  EXPECT_GT(planned, 50);
}

}  // namespace
}  // namespace triax
