// Host check (no GPU) of the axis-0 aligned-span path's index arithmetic
// (src/cuda/scalar/block/span_index.hpp, used by aligned_span.cuh), replaying what a group of
// lanes does: for every group width, rows per chunk, run length up to gw M and misalignment, the
// vectors the lanes copy cover the run, stay inside the group's staging area and are 16-byte
// aligned there; each lane's rotated reads (rows < L only) return exactly its chunk's rows after
// rotate_right; span_write (rotate_left, writes of rows < L) puts every row in its place and
// nothing else; the lanes of a warp read spread over the banks. And over whole layouts (packed,
// ghost layers, offsets, first element anywhere in a 16-byte vector): SpanBounds gives each
// operand's lowest and highest element, and no read that the copies plan leaves them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <vector>

#include "cuda/scalar/block/span_index.hpp"

namespace {

using triax::detail::cuda::rotate_left;
using triax::detail::cuda::rotate_right;
using triax::detail::cuda::SpanBounds;
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

// A 2-d batch (systems of n rows along axis 0, `count` systems in `planes` planes) with the
// given strides and offset in every operand, as the kernel sees it.
triax::detail::Problem layout_problem(std::int64_t n, std::int64_t count, std::int64_t planes,
                              std::int64_t sys_stride, std::int64_t plane_stride,
                              std::int64_t offset) {
  triax::detail::Problem p{};
  p.n = n;
  p.count = count * planes;
  p.batch_rank = 2;
  p.batch_extents[0] = count;
  p.batch_extents[1] = planes;
  for (int op = 0; op < triax::detail::operand_count; ++op) {
    p.map[op].offset = offset;
    p.map[op].row_stride = 1;
    p.map[op].batch_strides[0] = sys_stride;
    p.map[op].batch_strides[1] = plane_stride;
  }
  return p;
}

TEST(SpanIndex, BoundsAreTheLayoutsExtremes) {
  for (std::int64_t sign : {1, -1}) {
    triax::detail::Problem p = layout_problem(7, 5, 3, sign * 9, 50, 200);
    p.map[triax::detail::op_c].batch_strides[0] = 0;  // c the same for every system of a plane
    const SpanBounds b = SpanBounds::make(p);
    for (int op = 0; op < triax::detail::operand_count; ++op) {
      std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = -lo;
      for (std::int64_t s = 0; s < p.count; ++s) {
        for (std::int64_t r = 0; r < p.n; ++r) {
          const std::int64_t e = p.system_offset(op, s) + r * p.map[op].row_stride;
          lo = std::min(lo, e);
          hi = std::max(hi, e);
        }
      }
      EXPECT_EQ(b.lo[op], lo) << "operand " << op << " sign " << sign;
      EXPECT_EQ(b.hi[op], hi) << "operand " << op << " sign " << sign;
    }
  }
}

// Replays span_copy's plan over every group run of a layout: the operand's element e lies at
// address shift + e - lo (elements; 16-byte boundaries at multiples of V), so the allocation
// holds exactly [lo, hi] and its first element is `shift` past a boundary. Every run element is
// read, no read leaves [lo, hi], and element-wise loads happen only in the vectors holding lo and
// hi. Returns whether copying every vector whole would have read outside (the case tests the
// bound).
template <class T, int M>
bool check_layout_reads(const triax::detail::Problem& p, int gw, int shift) {
  using I = SpanIndex<T>;
  constexpr int V = I::V;
  const SpanBounds b = SpanBounds::make(p);
  const std::int64_t lo = shift, hi = shift + b.hi[triax::detail::op_d] - b.lo[triax::detail::op_d];
  const std::int64_t lo_vec = lo / V * V, hi_vec = hi / V * V;
  bool whole_would_leave = false;
  // Chunks of at most M rows, at least 4 groups' worth where n allows (the kernel's split).
  const int chunks = static_cast<int>(
      std::max<std::int64_t>((p.n + M - 1) / M, std::min<std::int64_t>(p.n, 4 * gw)));
  const std::vector<int> st = chunk_starts(static_cast<int>(p.n), chunks);
  for (std::int64_t s = 0; s < p.count; ++s) {
    const std::int64_t row0 = shift + p.system_offset(triax::detail::op_d, s) - b.lo[triax::detail::op_d];
    for (int g = 0; g < chunks; g += gw) {
      const int R0 = st[g], R1 = st[std::min(g + gw, chunks)], len = R1 - R0;
      const std::int64_t run = row0 + R0;
      const int mis = static_cast<int>(run % V);
      const std::int64_t span = run - mis;
      std::vector<int> got(len, 0);
      for (int gi = 0; gi < gw; ++gi) {
        for (int i = 0; i < I::template copies_per_lane<M>; ++i) {
          const int v = gi + gw * i;
          if (v >= I::vectors(mis, len)) continue;
          const std::int64_t first = span + v * V;
          if (first < lo || first + V - 1 > hi) whole_would_leave = true;
          if (I::inside(first, lo, hi)) {
            EXPECT_GE(first, lo) << "system " << s << " run " << R0 << " vector " << v;
            EXPECT_LE(first + V - 1, hi) << "system " << s << " run " << R0 << " vector " << v;
            for (int k = 0; k < V; ++k) {
              const int e = v * V - mis + k;
              if (e >= 0 && e < len) ++got[e];
            }
            continue;
          }
          EXPECT_TRUE(first == lo_vec || first == hi_vec)
              << "element-wise load of a vector away from the bounds, system " << s;
          for (int k = 0; k < V; ++k) {
            const int e = v * V - mis + k;
            if (e < 0 || e >= len) continue;
            EXPECT_GE(run + e, lo);
            EXPECT_LE(run + e, hi);
            ++got[e];
          }
        }
      }
      for (int e = 0; e < len; ++e) {
        EXPECT_EQ(got[e], 1) << "system " << s << " run " << R0 << " element " << e;
      }
    }
  }
  return whole_would_leave;
}

template <class T, int M>
void check_layouts() {
  constexpr int V = SpanIndex<T>::V;
  int leaving = 0;
  for (std::int64_t n : {1, 2, 3, 5, 8, 31, 33, 64, 100, 257}) {
    for (int shift = 0; shift < V; ++shift) {
      for (int gw : {1, 4, 32}) {
        SCOPED_TRACE(::testing::Message() << "n " << n << " shift " << shift << " gw " << gw);
        // packed; ghost layers (rows of n + 2, 7 rows a plane for 5); rows of n + 5, offset 3
        leaving += check_layout_reads<T, M>(layout_problem(n, 9, 1, n, 9 * n, 0), gw, shift);
        leaving += check_layout_reads<T, M>(
            layout_problem(n, 5, 3, n + 2, (n + 2) * 7, 1 + (n + 2)), gw, shift);
        leaving += check_layout_reads<T, M>(layout_problem(n, 6, 2, n + 5, (n + 5) * 6, 3), gw,
                                            shift);
      }
    }
  }
  EXPECT_GT(leaving, 0) << "no case where whole vectors would have left the operand";
}

TEST(SpanIndex, FloatReadsStayInsideTheOperand) { check_layouts<float, 8>(); }

TEST(SpanIndex, DoubleReadsStayInsideTheOperand) { check_layouts<double, 8>(); }

}  // namespace
