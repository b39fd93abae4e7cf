// The bench's judgement of issue 30's bars against measured bounds (bench/bound_report.hpp): a
// bar passes as measured; out of reach, it passes at >= 90% of the bound; rows get the bound of
// their own pattern. Plain host code: runs without a GPU.
#if TRIAX_TEST_HAS_BOUND_REPORT
#include "bound_report.hpp"

#include <gtest/gtest.h>

namespace triax::bench {
namespace {

TargetResult measured(double value, double bar) {
  return TargetResult{
      ">= 2x gtsv2StridedBatch", "float 64x256 axis 0 n=64", value, bar, value >= bar, "pick: x"};
}

TEST(BoundReport, PercentOfBound) {
  EXPECT_DOUBLE_EQ(pct_of_bound(0.010, 0.009), 90.0);
  EXPECT_DOUBLE_EQ(pct_of_bound(0, 0.009), 0.0);
  EXPECT_DOUBLE_EQ(pct_of_bound(0.010, 0), 0.0);
}

TEST(BoundReport, OutOfReachPassesAtNinetyPercent) {
  TargetResult t = measured(1.8, 2.0);
  judge_with_bound(t, 0.0060, 0.0055, false, "bound above half");
  EXPECT_TRUE(t.pass);  // 91.7% of the bound
  EXPECT_EQ(t.reachable, 0);
  EXPECT_NEAR(t.pct_bound, 91.67, 0.01);
  EXPECT_NE(t.note.find("OUT OF REACH"), std::string::npos);

  TargetResult slow = measured(1.8, 2.0);
  judge_with_bound(slow, 0.0070, 0.0055, false, "bound above half");
  EXPECT_FALSE(slow.pass);  // 78.6%
}

TEST(BoundReport, ReachableBarStaysAsMeasured) {
  TargetResult t = measured(1.8, 2.0);
  judge_with_bound(t, 0.0056, 0.0055, true, "bound below half");
  EXPECT_FALSE(t.pass);  // 98% of the bound, but the bar is within reach
  EXPECT_EQ(t.reachable, 1);
  TargetResult ok = measured(2.5, 2.0);
  judge_with_bound(ok, 0.0100, 0.0040, true, "bound below half");
  EXPECT_TRUE(ok.pass);
}

TEST(BoundReport, NoBoundLeavesTheResult) {
  TargetResult t = measured(1.8, 2.0);
  judge_with_bound(t, 0.0060, 0, false, "none");
  EXPECT_FALSE(t.pass);
  EXPECT_EQ(t.reachable, -1);
  EXPECT_EQ(t.note, "pick: x");
}

Row row(const std::string& backend, const std::string& algorithm, double ms, bool automatic) {
  Row r;
  r.backend = backend;
  r.algorithm = algorithm;
  r.precision = "float";
  r.extents = {512, 512};
  r.median_ms = ms;
  r.automatic = automatic;
  return r;
}

TEST(BoundReport, RowsGetTheBoundOfTheirPattern) {
  std::vector<Row> rows{row("bound", hybrid_bound_name, 0.004, false),
                        row("bound", cyclic_bound_name, 0.008, false),
                        row("cusparse", "cusparseSgtsv2StridedBatch", 0.019, false),
                        row("cuda", "cuda_block_thomas_pcr", 0.005, true),
                        row("cuda", "cuda_block_thomas_pcr [old]", 0.008, false),
                        row("cuda", "cuda_block_thomas_pcr [fill 1 rows 8]", 0.005, false),
                        row("cuda", "cuda_cr_pcr [switch 128]", 0.016, false),
                        row("cuda", "cuda_rd", 0.016, false)};
  rows.push_back(rows[3]);  // another case: no bounds there
  rows.back().extents = {64, 256};
  attach_pattern_bounds(rows);
  EXPECT_DOUBLE_EQ(rows[3].pattern_bound_ms, 0.004);
  EXPECT_DOUBLE_EQ(rows[3].pct_pattern_bound, 80.0);
  EXPECT_DOUBLE_EQ(rows[4].pct_pattern_bound, 50.0);
  EXPECT_DOUBLE_EQ(rows[5].pattern_bound_ms, 0);  // another cut: another pattern
  EXPECT_DOUBLE_EQ(rows[6].pattern_bound_ms, 0.008);
  EXPECT_DOUBLE_EQ(rows[6].pct_pattern_bound, 50.0);
  EXPECT_DOUBLE_EQ(rows[7].pattern_bound_ms, 0);  // plain RD holds no rows
  EXPECT_DOUBLE_EQ(rows[2].pattern_bound_ms, 0);
  EXPECT_DOUBLE_EQ(rows[8].pattern_bound_ms, 0);
}

}  // namespace
}  // namespace triax::bench
#endif
