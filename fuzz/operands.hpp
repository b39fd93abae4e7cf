#pragma once
// The operands of one solve, their filling from a seed (diagonally dominant systems, optionally
// spoiled with special values taken from the input) and their snapshot for "nothing written".
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "byte_reader.hpp"
#include "layout_walk.hpp"

namespace triax_fuzz {

// splitmix64: a tiny generator, so the whole system follows from the input's eight seed bytes.
class SplitMix {
 public:
  explicit SplitMix(std::uint64_t s) : s_(s) {}
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform(double lo, double hi) { return lo + (hi - lo) * double(next() >> 11) * 0x1p-53; }

 private:
  std::uint64_t s_;
};

template <class T>
struct Operands {
  // a, b, c, d and the output (x, or u for increment); every buffer spans the layout exactly,
  // so one element past the end or before the start is an ASan report.
  std::vector<T> v[5];
  std::vector<int> info;
};

// Bit for bit, so a NaN that stayed a NaN counts as unchanged.
template <class V>
bool same_bits(const std::vector<V>& x, const std::vector<V>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(V)) == 0;
}

template <class T>
bool same_bits(const T& x, const T& y) {
  return std::memcmp(&x, &y, sizeof(T)) == 0;
}

// A strictly diagonally dominant system in every row: |b| >= |a| + |c| + 1/2 with |a|, |c| <= 1,
// so its infinity-norm condition number is below 10 and Thomas needs no pivoting. a[0] and
// c[n-1] of every system are NaN: the API promises they are never read.
template <class T>
Operands<T> make_operands(const triax_layout& l, int axis, std::int64_t span, std::int64_t systems,
                          std::uint64_t seed) {
  Operands<T> o;
  // At least one element, so pointers are never null (null is a misuse of its own).
  const std::size_t size = span > 0 ? std::size_t(span) : 1;
  for (auto& v : o.v) v.assign(size, T(0));
  o.info.assign(systems > 0 ? std::size_t(systems) : 1, -7777);
  SplitMix rng(seed);
  for (std::size_t k = 0; k < size; ++k) {
    const double a = rng.uniform(-1, 1), c = rng.uniform(-1, 1);
    const double b = (std::abs(a) + std::abs(c) + rng.uniform(0.5, 2.5)) * (rng.next() & 1 ? 1 : -1);
    o.v[0][k] = T(a);
    o.v[1][k] = T(b);
    o.v[2][k] = T(c);
    o.v[3][k] = T(rng.uniform(-1, 1));
    o.v[4][k] = T(rng.uniform(-1, 1));  // u for increment; overwritten by x otherwise
  }
  const std::int64_t n = l.extents[axis], stride = l.strides[axis];
  if (n > 0) {
    const T nan = std::numeric_limits<T>::quiet_NaN();
    for_each_system(l, axis, [&](std::int64_t, std::int64_t base) {
      o.v[0][base] = nan;
      o.v[2][base + (n - 1) * stride] = nan;
    });
  }
  return o;
}

// Spoils the system with values from the rest of the input: each 5-byte group picks an operand,
// an element and one of the values that break naive code (zeros, infinities, NaN, the ends of
// the range, subnormals).
template <class T>
void spoil(Operands<T>& o, ByteReader& in) {
  using lim = std::numeric_limits<T>;
  const T specials[] = {T(0),        -T(0),           lim::quiet_NaN(), lim::infinity(),
                        -lim::infinity(), lim::max(), -lim::max(),      lim::min(),
                        lim::denorm_min(), T(1) / lim::max(), lim::epsilon(), T(1)};
  constexpr int count = sizeof(specials) / sizeof(specials[0]);
  while (in.remaining() >= 5) {
    const int operand = in.u8() % 4;
    std::uint32_t where = 0;
    for (int k = 0; k < 3; ++k) where |= std::uint32_t(in.u8()) << (8 * k);
    const int which = in.u8() % (count + 1);
    auto& v = o.v[operand];
    // The last choice scales the element by a power of two instead, towards the ends of the range.
    v[where % v.size()] =
        which < count ? specials[which] : std::ldexp(v[where % v.size()], int(where >> 16) % 300 - 150);
  }
}

}  // namespace triax_fuzz
