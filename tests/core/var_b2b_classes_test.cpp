// The plan logic of back-to-back variable batches on the GPU (core/var_b2b_classes.hpp), on the
// host: every non-empty system of at most max_rows rows lands in exactly one class, with its own
// offset and length, in a class whose P chunk threads of M rows cover it; longer ones are left
// to the other kernels; small classes merge upwards; and the per-system chunk split the kernel
// uses covers rows 0 .. n - 1 exactly once with chunks of at most M rows (2 or 3 where n < 2P).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/var_b2b_classes.hpp"

namespace triax::detail {
namespace {

std::vector<std::int64_t> prefix_offsets(const std::vector<std::int64_t>& lengths, int gap) {
  std::vector<std::int64_t> off(lengths.size());
  std::int64_t at = 3;  // a misaligned start
  for (std::size_t s = 0; s < lengths.size(); ++s) {
    off[s] = at;
    at += lengths[s] + gap;
  }
  return off;
}

/// Checks the plan against the batch it came from.
void expect_plan_covers(const B2BPlan& plan, const std::vector<std::int64_t>& lengths,
                        const std::vector<std::int64_t>& offsets) {
  std::map<std::int64_t, int> seen;  // offset -> times
  std::int64_t expected_entries = 0;
  for (const std::int64_t n : lengths) {
    if (n >= 1 && n <= B2BPlan::max_rows) ++expected_entries;
  }
  ASSERT_EQ(static_cast<std::int64_t>(plan.entries.size()), expected_entries);
  std::int64_t next = 0;
  int previous_P = 0;
  for (const B2BClass& c : plan.classes) {
    EXPECT_GT(c.count, 0);
    EXPECT_EQ(c.first, next);
    EXPECT_GT(c.P, previous_P);
    EXPECT_GE(c.P, B2BPlan::min_P);
    EXPECT_LE(c.P, B2BPlan::max_P);
    EXPECT_EQ(c.P & (c.P - 1), 0);
    previous_P = c.P;
    std::int64_t longest = 0;
    for (std::int64_t i = c.first; i < c.first + c.count; ++i) {
      const B2BEntry& e = plan.entries[static_cast<std::size_t>(i)];
      EXPECT_GE(e.length, 1);
      EXPECT_LE(e.length, std::int64_t(B2BPlan::M) * c.P);
      longest = std::max(longest, e.length);
      ++seen[e.offset];
    }
    EXPECT_EQ(c.longest, longest);
    next = c.first + c.count;
  }
  for (std::size_t s = 0; s < lengths.size(); ++s) {
    const std::int64_t n = lengths[s];
    if (n >= 1 && n <= B2BPlan::max_rows) {
      EXPECT_EQ(seen[offsets[s]], 1) << "system " << s;
      // Its entry carries its own length.
      const auto it = std::find_if(plan.entries.begin(), plan.entries.end(),
                                   [&](const B2BEntry& e) { return e.offset == offsets[s]; });
      ASSERT_NE(it, plan.entries.end());
      EXPECT_EQ(it->length, n);
    }
  }
  std::vector<std::int64_t> rest;
  for (std::size_t s = 0; s < lengths.size(); ++s) {
    if (lengths[s] > B2BPlan::max_rows) rest.push_back(static_cast<std::int64_t>(s));
  }
  EXPECT_EQ(plan.rest, rest);
}

TEST(VarB2BClasses, EverySystemOnceInAClassThatCoversIt) {
  std::mt19937_64 rng(2026);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<std::int64_t> lengths(1 + rng() % 3000);
    for (auto& n : lengths) {
      // Log-uniform 1..65536 with zeros, and the edges of every class.
      const int pick = static_cast<int>(rng() % 10);
      n = pick == 0   ? 0
          : pick == 1 ? std::int64_t(8) << (rng() % 10)
          : pick == 2 ? (std::int64_t(8) << (rng() % 10)) + 1
                      : static_cast<std::int64_t>(std::exp2(static_cast<double>(rng() % 16000) / 1000.0));
    }
    const auto offsets = prefix_offsets(lengths, static_cast<int>(rng() % 5));
    for (const std::int64_t min_class : {std::int64_t(1), std::int64_t(64), std::int64_t(2048)}) {
      SCOPED_TRACE(trial);
      expect_plan_covers(plan_b2b_classes(lengths, offsets, min_class), lengths, offsets);
    }
  }
}

TEST(VarB2BClasses, ClassEdgesAndMerging) {
  // Lengths 0, 1, 2, 3, 64, 65, 2048, 2049: with no merging the smallest P that covers each.
  const std::vector<std::int64_t> lengths{0, 1, 2, 3, 64, 65, 512, 513, 2048, 2049, 70000};
  const auto offsets = prefix_offsets(lengths, 0);
  const B2BPlan p = plan_b2b_classes(lengths, offsets, 1);
  std::vector<std::pair<int, std::int64_t>> got;
  for (const auto& c : p.classes) got.emplace_back(c.P, c.count);
  const std::vector<std::pair<int, std::int64_t>> want{{8, 4}, {16, 1}, {64, 1}, {128, 1},
                                                       {256, 1}};
  EXPECT_EQ(got, want);
  EXPECT_EQ(p.rest, (std::vector<std::int64_t>{9, 10}));
  // Merged (every class under 2048 systems): everything in the largest class, in batch order.
  const B2BPlan m = plan_b2b_classes(lengths, offsets);
  ASSERT_EQ(m.classes.size(), 1u);
  EXPECT_EQ(m.classes[0].P, 256);
  EXPECT_EQ(m.classes[0].count, 8);
  EXPECT_EQ(m.classes[0].longest, 2048);
  for (std::size_t i = 1; i < m.entries.size(); ++i) {
    EXPECT_LT(m.entries[i - 1].offset, m.entries[i].offset);
  }
  // Nothing to solve: no classes.
  EXPECT_TRUE(plan_b2b_classes({0, 0}, {0, 0}).classes.empty());
  EXPECT_TRUE(plan_b2b_classes({}, {}).entries.empty());
}

TEST(VarB2BClasses, UniformLengthsRunAsOneClass) {
  // The bench's uniform 256..512: the few systems of exactly 256 rows join the P = 64 class.
  std::mt19937_64 rng(7);
  std::vector<std::int64_t> lengths(25600);
  for (auto& n : lengths) n = 256 + static_cast<std::int64_t>(rng() % 257);
  const auto offsets = prefix_offsets(lengths, 0);
  const B2BPlan p = plan_b2b_classes(lengths, offsets);
  ASSERT_EQ(p.classes.size(), 1u);
  EXPECT_EQ(p.classes[0].P, 64);
  EXPECT_EQ(p.classes[0].count, 25600);
  expect_plan_covers(p, lengths, offsets);
}

TEST(VarB2BClasses, ChunkSplitCoversEveryRowOnce) {
  for (const int P : {8, 16, 32, 64, 128, 256}) {
    for (int n = 0; n <= B2BPlan::M * P; ++n) {
      const B2BChunks ch(n, P);
      int covered = 0;
      for (int c = 0; c < P; ++c) {
        const int r0 = ch.start(c), L = ch.start(c + 1) - r0;
        ASSERT_EQ(r0, covered) << "P " << P << " n " << n << " chunk " << c;
        ASSERT_GE(L, 0);
        ASSERT_LE(L, B2BPlan::M);
        // The hybrid's rule: chunks of at least 2 rows, 1 only for a one-row system.
        if (L > 0 && n > 1) ASSERT_GE(L, 2) << "P " << P << " n " << n;
        covered += L;
      }
      ASSERT_EQ(covered, n) << "P " << P;
      EXPECT_EQ(ch.start(P), n);
    }
  }
}

TEST(VarB2BClasses, LongSystemsTiledOnceWithTheirReducedRows) {
  std::mt19937_64 rng(11);
  std::vector<std::int64_t> lengths = {2049, 2304, 65536, 3, B2BTiles::max_long_rows,
                                       B2BTiles::max_long_rows + 1, 0};
  for (int k = 0; k < 200; ++k) lengths.push_back(2049 + static_cast<std::int64_t>(rng() % 70000));
  const auto offsets = prefix_offsets(lengths, 2);
  const B2BPlan plan = plan_b2b_classes(lengths, offsets);
  const B2BTiles t = plan_b2b_tiles(lengths, offsets, plan.rest);
  EXPECT_EQ(t.rest, (std::vector<std::int64_t>{5}));
  std::size_t next_tile = 0;
  std::int64_t reduced = 0;
  std::size_t long_index = 0;
  for (const std::int64_t s : plan.rest) {
    const std::int64_t n = lengths[static_cast<std::size_t>(s)];
    if (n > B2BTiles::max_long_rows) continue;
    SCOPED_TRACE(n);
    ASSERT_LT(long_index, t.reduced_offsets.size());
    EXPECT_EQ(t.reduced_offsets[long_index], reduced);
    const std::int64_t first_reduced = reduced;
    std::int64_t row = 0, tiles = 0;
    while (row < n) {
      ASSERT_LT(next_tile, t.tiles.size());
      const B2BTile& tl = t.tiles[next_tile++];
      EXPECT_EQ(tl.offset, offsets[static_cast<std::size_t>(s)] + row);
      EXPECT_EQ(tl.reduced, first_reduced + 2 * tiles);
      // Every chunk of the warp carries 7 or 8 rows (B2BChunks over 32 chunks).
      EXPECT_GE(tl.rows, 227);
      EXPECT_LE(tl.rows, B2BTiles::tile_rows);
      const B2BChunks ch(tl.rows, 32);
      for (int c = 0; c < 32; ++c) {
        const int L = ch.start(c + 1) - ch.start(c);
        EXPECT_TRUE(L == 7 || L == 8) << L;
      }
      EXPECT_EQ((tl.flags & 1) != 0, row == 0);
      row += tl.rows;
      EXPECT_EQ((tl.flags & 2) != 0, row == n);
      ++tiles;
    }
    EXPECT_EQ(row, n);
    EXPECT_EQ(t.reduced_lengths[long_index], 2 * tiles);
    EXPECT_LE(2 * tiles, B2BPlan::max_rows);  // the reduced batch fits the classes
    reduced += 2 * tiles;
    ++long_index;
  }
  EXPECT_EQ(next_tile, t.tiles.size());
  EXPECT_EQ(t.reduced_rows, reduced);
  // The reduced batch as classes: every reduced system in one.
  const B2BPlan r = plan_b2b_classes(t.reduced_lengths, t.reduced_offsets);
  EXPECT_TRUE(r.rest.empty());
  EXPECT_EQ(r.entries.size(), t.reduced_lengths.size());
}

// The class kernel's variant switch (TRIAX_CUDA_VAR_B2B_VARIANT): every name round-trips, unset or
// empty is base, an unknown name is refused with the names it could be.
TEST(VarB2BVariant, Names) {
  EXPECT_EQ(parse_b2b_variant(nullptr), B2BVariant::base);
  EXPECT_EQ(parse_b2b_variant(""), B2BVariant::base);
  for (const B2BVariant v : {B2BVariant::base, B2BVariant::ahead, B2BVariant::prefetch}) {
    EXPECT_EQ(parse_b2b_variant(std::string(to_string(v)).c_str()), v);
  }
  try {
    parse_b2b_variant("fast");
    ADD_FAILURE() << "an unknown variant was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'fast'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("prefetch"), std::string::npos) << e.what();
  }
  // The variants removed after var31 are refused, not silently taken as another.
  for (const char* gone : {"stage4", "prefetch4"}) {
    EXPECT_THROW(parse_b2b_variant(gone), std::invalid_argument) << gone;
  }
}

}  // namespace
}  // namespace triax::detail
