// Host check (no GPU) of the axis-0 aligned-span path's index arithmetic
// (src/cuda/scalar/block/span_index.hpp, used by aligned_span.cuh), replaying what a group of
// lanes does: for every group width, rows per chunk, run length up to gw M and misalignment, the
// vectors the lanes copy cover the run, stay inside the group's staging area and are 16-byte
// aligned there; each lane's rotated reads (rows < L only) return exactly its chunk's rows after
// rotate_right; span_write (rotate_left, writes of rows < L) puts every row in its place and
// nothing else; the lanes of a warp read spread over the banks.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "cuda/scalar/block/span_index.hpp"

namespace {

using triax::detail::cuda::rotate_left;
using triax::detail::cuda::rotate_right;
using triax::detail::cuda::SpanIndex;

// Chunks of a run: len rows in `chunks` chunks of q or q + 1 rows (the kernel's split).
std::vector<int> chunk_starts(int len, int chunks) {
  std::vector<int> s(chunks + 1);
  const int q = len / chunks, rem = len % chunks;
  for (int j = 0; j <= chunks; ++j) s[j] = j * q + std::min(j, rem);
  return s;
}

template <class T, int M>
void check_group(int gw) {
  using I = SpanIndex<T>;
  constexpr int V = I::V;
  const int area = I::group_elems(gw, M);
  ASSERT_EQ(area % V, 0);
  for (int g = 0; g < 32 / gw; ++g) {  // every group's area starts on a 16-byte boundary
    ASSERT_EQ(I::slot(g * area) % V, 0);
    ASSERT_LE(I::slot(g * area + area - 1), I::array_slots(gw, M) - 1);
  }
  ASSERT_EQ(I::array_slots(gw, M) % V, 0);
  for (int len = 0; len <= gw * M; ++len) {
    for (int mis = 0; mis < V; ++mis) {
      SCOPED_TRACE(::testing::Message() << "gw " << gw << " M " << M << " len " << len << " mis "
                                        << mis);
      // Copies: lane gi takes vectors gi + gw i, i < copies_per_lane; every run element once.
      const int nv = I::vectors(mis, len);
      std::vector<int> copied(nv * V, 0);
      for (int gi = 0; gi < gw; ++gi) {
        for (int i = 0; i < I::template copies_per_lane<M>; ++i) {
          const int v = gi + gw * i;
          if (v >= nv) continue;
          ASSERT_LE((v + 1) * V, area);
          // A vector's V slots are contiguous and aligned (no padding inside it).
          ASSERT_EQ(I::slot(v * V) % V, 0);
          ASSERT_EQ(I::slot(v * V + V - 1), I::slot(v * V) + V - 1);
          for (int k = 0; k < V; ++k) ++copied[v * V + k];
        }
      }
      for (int e = 0; e < len; ++e) ASSERT_EQ(copied[mis + e], 1) << "run element " << e;
      if (len > 0) ASSERT_LT(mis + len - 1, nv * V);
      if (len > 0) ASSERT_GT(mis + len - 1, (nv - 1) * V - 1);  // no vector wholly past the run
      if (len == 0) continue;
      // Reads: each lane's chunk of L rows, values = span element index.
      const int chunks = std::min(gw, len);
      const std::vector<int> st = chunk_starts(len, chunks);
      std::vector<int> written(mis + len + V, 0);
      for (int gi = 0; gi < gw; ++gi) {
        const int r0 = gi < chunks ? st[gi] : len;
        const int L = gi < chunks ? st[gi + 1] - st[gi] : 0;
        ASSERT_LE(L, M);
        const int first = mis + r0;
        const int skew = I::skew(gi, first);
        ASSERT_GE(skew, 0);
        ASSERT_LT(skew, V);
        int out[M];
        for (int k = 0; k < M; ++k) {
          const int r = I::read_row(k, skew, M);
          ASSERT_GE(r, 0);
          ASSERT_LT(r, M);
          out[k] = -1;  // rows past L are not read
          if (r >= L) continue;
          const int at = first + r;  // within the lane's own rows, inside the area
          ASSERT_LT(at, area);
          ASSERT_LT(at, mis + len);
          out[k] = at;
        }
        rotate_right<V>(out, skew);
        for (int k = 0; k < L; ++k) ASSERT_EQ(out[k], first + k) << "row " << k;
        // The write-back of x: values first + k at rows k < L, nothing else.
        int vals[M];
        for (int k = 0; k < M; ++k) vals[k] = first + k;
        rotate_left<V>(vals, skew);
        for (int k = 0; k < M; ++k) {
          const int r = (k + skew) & (M - 1);
          if (r < L) {
            ASSERT_EQ(vals[k], first + r);
            ++written[first + r];
          }
        }
      }
      for (int e = 0; e < static_cast<int>(written.size()); ++e) {
        ASSERT_EQ(written[e], e >= mis && e < mis + len ? 1 : 0) << "span element " << e;
      }
    }
  }
}

TEST(SpanIndex, FloatGroupsCoverRunsAndChunks) {
  for (int gw : {1, 2, 4, 8, 16, 32}) {
    check_group<float, 8>(gw);
    check_group<float, 16>(gw);
  }
}

TEST(SpanIndex, DoubleGroupsCoverRunsAndChunks) {
  for (int gw : {1, 2, 4, 8, 16, 32}) check_group<double, 8>(gw);
}

// Lanes whose chunks start a multiple of V elements apart (q = 4 or 8 rows in float) would hit a
// quarter of the banks without the rotation (4 lanes a bank); with it, at most 2 (q = 4, where
// rows wrapped past the chunk are skipped) or 1 (q = 8).
TEST(SpanIndex, RotatedReadsSpreadOverBanks) {
  using I = SpanIndex<float>;
  constexpr int M = 8;
  for (int q : {4, 8}) {
    for (int mis = 0; mis < I::V; ++mis) {
      for (int k = 0; k < M; ++k) {
        int per_bank[32] = {};
        for (int lane = 0; lane < 32; ++lane) {
          const int first = mis + lane * q;
          const int r = I::read_row(k, I::skew(lane, first), M);
          if (r < q) ++per_bank[I::slot(first + r) % 32];
        }
        const int worst = *std::max_element(per_bank, per_bank + 32);
        EXPECT_LE(worst, q == 8 ? 1 : 2) << "q " << q << " mis " << mis << " step " << k;
      }
    }
  }
}

TEST(SpanIndex, RotationsAreInverse) {
  for (int s = 0; s < 4; ++s) {
    int v[8], w[8];
    for (int k = 0; k < 8; ++k) v[k] = w[k] = k;
    rotate_right<4>(v, s);
    for (int k = 0; k < 8; ++k) EXPECT_EQ(v[k], (k - s + 8) % 8);
    rotate_left<4>(v, s);
    for (int k = 0; k < 8; ++k) EXPECT_EQ(v[k], w[k]);
  }
}

}  // namespace
