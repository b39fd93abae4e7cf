// The GPU ranks' batched local passes (reduce_piece_batched, finish_piece_batched: loads of a
// batch of rows issued before their arithmetic) against the one-row-at-a-time passes the CPU
// ranks run, on the host: the same reduced rows and the same x for every piece length around
// the batch sizes, every place of a piece, separate and increment, and the first non-finite row.
// The kernels call these functions; this checks their batching, not the GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "dist/local_passes.hpp"

namespace triax::detail {
namespace {

/// `count` interleaved systems of m rows (row stride count, as along y or z), values from a
/// simple generator, diagonally dominant.
template <class T>
struct Pieces {
  std::int64_t m, count;
  std::vector<T> a, b, c, d, x;
  Problem p;

  Pieces(std::int64_t rows, std::int64_t systems) : m(rows), count(systems) {
    const auto n = static_cast<std::size_t>(m * count);
    a.resize(n), b.resize(n), c.resize(n), d.resize(n), x.assign(n, T(0.25));
    std::uint64_t state = 12345 + static_cast<std::uint64_t>(rows * 131 + systems);
    const auto next = [&] {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      return double(state >> 11) / double(1ull << 53) - 0.5;
    };
    for (std::size_t e = 0; e < n; ++e) {
      a[e] = T(next()), c[e] = T(next()), b[e] = T(3 + next()), d[e] = T(next());
    }
    p.n = m;
    p.count = count;
    p.batch_rank = 1;
    p.batch_extents[0] = count;
    for (auto& map : p.map) {
      map.offset = 0;
      map.row_stride = count;
      map.batch_strides[0] = 1;
    }
  }
  Operands<T> ops(bool accumulate) {
    return {a.data(), b.data(), c.data(), d.data(), x.data(), accumulate, nullptr};
  }
};

template <class T>
bool same(T u, T v) {
  if (std::isnan(u) && std::isnan(v)) return true;
  return std::abs(double(u) - double(v)) <=
         1e-5 * (1 + std::abs(double(v))) * (sizeof(T) == 4 ? 1 : 1e-9);
}

template <class T>
bool same_row(const ReducedRow<T>& u, const ReducedRow<T>& v) {
  return same(u.a, v.a) && same(u.b, v.b) && same(u.c, v.c) && same(u.d, v.d);
}

template <class T, int Batch>
void expect_batched_equal(std::int64_t m, PiecePlace place, bool accumulate, bool spoil) {
  constexpr std::int64_t count = 3;
  Pieces<T> one(m, count), batched(m, count);
  if (spoil && m > 3) {
    // A NaN in d of row m - 2 of system 1 spoils rows 1 .. m-2 of it: the first bad row is 1.
    one.d[(m - 2) * count + 1] = batched.d[(m - 2) * count + 1] =
        std::numeric_limits<T>::quiet_NaN();
  }
  std::vector<T> work_one(3 * m * count, T(-7)), work_batched(3 * m * count, T(-7));
  for (std::int64_t s = 0; s < count; ++s) {
    const std::int64_t all = m * count;
    const auto strided = [&](std::vector<T>& w) {
      return StridedPieceWork<T>{
          {w.data() + s, count}, {w.data() + all + s, count}, {w.data() + 2 * all + s, count}};
    };
    const ReducedPair<T> r1 = reduce_piece(one.p, one.ops(accumulate), s, place, strided(work_one));
    const ReducedPair<T> r2 = reduce_piece_batched<Batch>(batched.p, batched.ops(accumulate), s,
                                                          place, strided(work_batched));
    EXPECT_TRUE(same_row(r1.first, r2.first)) << "system " << s;
    EXPECT_TRUE(same_row(r1.last, r2.last)) << "system " << s;
    // Ends from the reduced rows alone (any values do: both passes get the same).
    const T first = T(0.5) + T(s), last = T(-0.75);
    const std::int64_t bad1 =
        finish_piece(one.p, one.ops(accumulate), s, strided(work_one), first, last);
    const std::int64_t bad2 = finish_piece_batched<Batch>(batched.p, batched.ops(accumulate), s,
                                                          strided(work_batched), first, last);
    EXPECT_EQ(bad1, bad2) << "system " << s;
    if (spoil && m > 3 && s == 1) EXPECT_EQ(bad2, 1);
  }
  for (std::size_t e = 0; e < work_one.size(); ++e) {
    EXPECT_TRUE(same(work_one[e], work_batched[e])) << "workspace element " << e;
  }
  for (std::size_t e = 0; e < one.x.size(); ++e) {
    EXPECT_TRUE(same(one.x[e], batched.x[e])) << "x element " << e;
  }
}

template <class T, int Batch>
void expect_all_lengths() {
  for (std::int64_t m : {1, 2, 3, 5, Batch - 1, Batch, Batch + 1, Batch + 2, 2 * Batch,
                         2 * Batch + 1, 3 * Batch + 5}) {
    if (m < 1) continue;  // Batch - 1 for batches of one
    for (int place = 0; place < 4; ++place) {
      for (bool accumulate : {false, true}) {
        for (bool spoil : {false, true}) {
          SCOPED_TRACE("m " + std::to_string(m) + ", place " + std::to_string(place) +
                       (accumulate ? ", increment" : "") + (spoil ? ", NaN" : ""));
          expect_batched_equal<T, Batch>(m, {(place & 1) != 0, (place & 2) != 0}, accumulate,
                                         spoil);
        }
      }
    }
  }
}

TEST(BatchedLocalPasses, DoubleBatchesOfEight) { expect_all_lengths<double, 8>(); }
TEST(BatchedLocalPasses, FloatBatchesOfSixteen) { expect_all_lengths<float, 16>(); }
TEST(BatchedLocalPasses, BatchOfOne) { expect_all_lengths<double, 1>(); }

}  // namespace
}  // namespace triax::detail
