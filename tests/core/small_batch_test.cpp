// Host check (no GPU) of the small-batch spread (src/cuda/scalar/block/small_batch.hpp): for
// every batch of the issue-30 grid and beyond, the spread keeps a configuration the register
// hybrid accepts along axis 0 (P a power of two up to 32 or a multiple of 32 up to 256, S P a
// multiple of 32 and at most 256, n <= M P), leaves large batches alone, and does what it says
// on the batches it is for.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "cuda/scalar/block/small_batch.hpp"

namespace {

using triax::detail::cuda::ChunkSpread;
using triax::detail::cuda::small_batch_spread;
using triax::detail::cuda::SmallBatchKnobs;

/// The default rule of hybrid.cu along axis 0 (fused sizes): M rows per chunk thread, P chunk
/// threads, S systems per block.
struct Default {
  int M, P, S;
};
Default default_rule(std::int64_t n, std::int64_t count, bool is_float) {
  const int M = is_float && n > 8 * 256 ? 16 : 8;
  const std::int64_t chunks = (n + M - 1) / M;
  int P = 1;
  if (chunks <= 32) {
    while (P < chunks) P *= 2;
  } else {
    P = static_cast<int>((chunks + 31) / 32 * 32);
  }
  int S = static_cast<int>(std::clamp<std::int64_t>(count, 1, std::max(1, 256 / P)));
  while (S * P % 32 != 0) ++S;
  return {M, P, S};
}

bool valid(const ChunkSpread& s) {
  const bool p_pow2 = s.P >= 1 && s.P <= 32 && (s.P & (s.P - 1)) == 0;
  const bool p_ok = p_pow2 || (s.P > 32 && s.P <= 256 && s.P % 32 == 0);
  return p_ok && s.S >= 1 && s.S * s.P % 32 == 0 && s.S * s.P <= 256;
}

TEST(SmallBatchSpread, KeepsValidConfigurations) {
  for (int fill : {1, 2, 3, 4, 8}) {
    for (int rows : {2, 4, 8}) {
      const SmallBatchKnobs k{fill, rows};
      for (bool is_float : {true, false}) {
        for (std::int64_t count : {1, 2, 7, 100, 132, 256, 512, 1000, 1024, 2048, 4096, 100000}) {
          for (std::int64_t n = 1; n <= 4096; n += n < 300 ? 1 : 97) {
            const Default d = default_rule(n, count, is_float);
            if (d.P > 256) continue;  // the long path: the spread is not asked
            for (int sms : {1, 66, 132}) {
              SCOPED_TRACE("n " + std::to_string(n) + " count " + std::to_string(count) + " sms " +
                           std::to_string(sms) + " fill " + std::to_string(fill) + " rows " +
                           std::to_string(rows));
              const ChunkSpread s = small_batch_spread(n, count, d.P, d.S, sms, k);
              ASSERT_TRUE(valid(s)) << "P " << s.P << " S " << s.S;
              ASSERT_GE(s.P, d.P);
              ASSERT_LE(n, std::int64_t(d.M) * s.P);
              if (s.P > d.P) {  // each of the chunks keeps at least `rows` rows
                ASSERT_GE(n / s.P, rows);
              }
            }
          }
        }
      }
    }
  }
}

TEST(SmallBatchSpread, LeavesBatchesThatFillTheDeviceAlone) {
  const SmallBatchKnobs k{3, 4};
  // 4096 systems of 512 float rows: 64 chunk threads each, 262144 threads >= 3 x 132 x 256.
  const Default d = default_rule(512, 4096, true);
  const ChunkSpread s = small_batch_spread(512, 4096, d.P, d.S, 132, k);
  EXPECT_EQ(s.P, d.P);
  EXPECT_EQ(s.S, d.S);
}

TEST(SmallBatchSpread, SpreadsFewSystemsOverEverySm) {
  const SmallBatchKnobs k{3, 4};
  // 256 systems of 512 float rows: today 64 blocks of 4 systems x 64 chunk threads. Spread: 128
  // chunks of 4 rows (P cannot reach 256 with 4 rows each), one system per block, 256 blocks.
  const Default d = default_rule(512, 256, true);
  ASSERT_EQ(d.P, 64);
  ASSERT_EQ(d.S, 4);
  ChunkSpread s = small_batch_spread(512, 256, d.P, d.S, 132, k);
  EXPECT_EQ(s.P, 128);
  EXPECT_EQ(s.S, 1);
  // With chunks of 2 rows allowed, 256 threads per system.
  s = small_batch_spread(512, 256, d.P, d.S, 132, SmallBatchKnobs{3, 2});
  EXPECT_EQ(s.P, 256);
  // 4096 systems of 64 rows: 8 chunk threads of 8 rows each today; chunks of 4 rows double P,
  // and there are blocks enough for every SM at 16 systems each (4096 / 132 = 31, capped at 256 /
  // 16).
  const Default e = default_rule(64, 4096, false);
  ASSERT_EQ(e.P, 8);
  s = small_batch_spread(64, 4096, e.P, e.S, 132, k);
  EXPECT_EQ(s.P, 16);
  EXPECT_EQ(s.S, 16);
  // 256 systems of 4096 float rows: 256 chunk threads already, one system per block: nothing
  // left to spread in one fused block.
  const Default f = default_rule(4096, 256, true);
  ASSERT_EQ(f.P, 256);
  s = small_batch_spread(4096, 256, f.P, f.S, 132, k);
  EXPECT_EQ(s.P, 256);
  EXPECT_EQ(s.S, 1);
}

}  // namespace
