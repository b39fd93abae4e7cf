#include "core/overlap.hpp"

#include <algorithm>
#include <array>

namespace triax::detail {
namespace {

using Wide = __int128;  // sums of up to 17 products of 63-bit values stay far below 2^127

Wide gcd(Wide x, Wide y) {
  while (y != 0) {
    const Wide t = x % y;
    x = y;
    y = t;
  }
  return x;
}

// The inverse of a modulo m (gcd(a, m) = 1, m >= 1), by the extended Euclidean algorithm.
Wide inverse_mod(Wide a, Wide m) {
  Wide r0 = m, r1 = a % m, t0 = 0, t1 = 1;
  while (r1 != 0) {
    const Wide q = r0 / r1;
    Wide t = r0 - q * r1;
    r0 = r1;
    r1 = t;
    t = t0 - q * t1;
    t0 = t1;
    t1 = t;
  }
  return ((t0 % m) + m) % m;
}

// a * b mod m for 0 <= a, b < m < 2^126, by doubling: the product itself could exceed 128 bits.
Wide mul_mod(Wide a, Wide b, Wide m) {
  Wide result = 0;
  a %= m;
  while (b > 0) {
    if (b & 1) result = (result + a) % m;
    a = (a + a) % m;
    b >>= 1;
  }
  return result;
}

Wide floor_div(Wide x, Wide y) { return x >= 0 ? x / y : -((-x + y - 1) / y); }
Wide ceil_div(Wide x, Wide y) { return -floor_div(-x, y); }

// One variable of the equation: 0 <= v <= bound, weight > 0.
struct Term {
  Wide weight;
  Wide bound;
};

// At most two layouts' dimensions and one variable for partial overlap. Fixed storage: the
// checks run at every solve, which must not allocate.
constexpr std::size_t max_terms = 2 * max_rank + 1;

struct Terms {
  std::array<Term, max_terms> items{};
  std::size_t size = 0;
  /// Adds a variable; one that can only be 0 (bound 0) or that does not move the sum (weight 0)
  /// does not enter the equation.
  void add(Wide weight, Wide bound) {
    if (weight != 0 && bound != 0) items[size++] = {weight, bound};
  }
};

// Searches sum_k weight_k v_k = target with 0 <= v_k <= bound_k.
class BoundedSum {
 public:
  explicit BoundedSum(const Terms& terms) : terms_(terms.items), n_(terms.size) {
    std::sort(terms_.begin(), terms_.begin() + n_,
              [](const Term& x, const Term& y) { return x.weight > y.weight; });
    // Variables of one weight add up to any value from 0 to the sum of their bounds: one
    // variable does. Operands laid out alike share every stride, and this halves their search.
    std::size_t merged = 0;
    for (std::size_t l = 0; l < n_; ++l) {
      if (merged > 0 && terms_[merged - 1].weight == terms_[l].weight) {
        terms_[merged - 1].bound += terms_[l].bound;
      } else {
        terms_[merged++] = terms_[l];
      }
    }
    n_ = merged;
    for (std::size_t l = n_; l-- > 0;) {
      reach_[l] = reach_[l + 1] + terms_[l].weight * terms_[l].bound;
      gcd_[l] = gcd(terms_[l].weight, gcd_[l + 1]);
    }
  }

  Overlap solve(Wide target) {
    work_ = 0;
    return search(0, target);
  }

 private:
  // Enough for any layout of arrays; only contrived strides come near it.
  static constexpr long work_limit = 1 << 16;

  Overlap search(std::size_t l, Wide r) {
    if (++work_ > work_limit) return Overlap::unknown;
    if (r < 0 || r > reach_[l]) return Overlap::no;
    if (l == n_) return r == 0 ? Overlap::yes : Overlap::no;
    if (r % gcd_[l] != 0) return Overlap::no;
    const Wide a = terms_[l].weight;
    if (l + 1 == n_) return r % a == 0 && r / a <= terms_[l].bound ? Overlap::yes
                                                                             : Overlap::no;
    if (l + 2 == n_) return two_terms(l, r);
    // v must leave a remainder the rest can reach: r - a v in [0, reach] and divisible by
    // the rest's gcd g, i.e. a v = r (mod g): v = v0 (mod g / gcd(a, g)).
    const Wide lo = std::max<Wide>(0, ceil_div(r - reach_[l + 1], a));
    const Wide hi = std::min<Wide>(terms_[l].bound, floor_div(r, a));
    const Wide g = gcd_[l + 1];
    const Wide h = gcd(a, g);
    const Wide step = g / h;
    const Wide v0 = mul_mod(r / h % step, inverse_mod(a / h % step, step), step);
    Wide v = lo + ((v0 - lo % step) % step + step) % step;
    bool unsure = false;
    for (; v <= hi; v += step) {
      const Overlap o = search(l + 1, r - a * v);
      if (o == Overlap::yes) return o;
      if (o == Overlap::unknown) {
        unsure = true;
        if (work_ > work_limit) break;
      }
    }
    return unsure ? Overlap::unknown : Overlap::no;
  }

  // The last two variables in closed form: a v + b w = r has solutions v = v0 (mod b / g)
  // (g = gcd(a, b)), and w is within its bounds exactly when v lies in [lo, hi] below; so one
  // candidate decides, where a search over v could take as many steps as v has values.
  Overlap two_terms(std::size_t l, Wide r) const {
    const Wide a = terms_[l].weight, b = terms_[l + 1].weight;
    const Wide g = gcd(a, b);
    if (r % g != 0) return Overlap::no;
    const Wide ag = a / g, bg = b / g, rg = r / g;
    const Wide v0 = mul_mod(rg % bg, inverse_mod(ag % bg, bg), bg);
    const Wide lo = std::max<Wide>(0, ceil_div(rg - bg * terms_[l + 1].bound, ag));
    const Wide hi = std::min<Wide>(terms_[l].bound, floor_div(rg, ag));
    if (lo > hi) return Overlap::no;
    const Wide v = lo + ((v0 - lo % bg) % bg + bg) % bg;
    return v <= hi ? Overlap::yes : Overlap::no;
  }

  std::array<Term, max_terms> terms_;
  std::size_t n_;
  std::array<Wide, max_terms + 1> reach_{};
  std::array<Wide, max_terms + 1> gcd_{};
  long work_ = 0;
};

bool is_empty(const Layout& l) {
  for (int k = 0; k < l.rank(); ++k) {
    if (l.extent(k) == 0) return true;
  }
  return false;
}

}  // namespace

Overlap layouts_overlap(std::uintptr_t base_p, const Layout& p, std::uintptr_t base_q,
                        const Layout& q, std::size_t element_size) {
  if (is_empty(p) || is_empty(q)) return Overlap::no;
  const Wide es = static_cast<Wide>(element_size);
  // Byte addresses of the first elements; the equation is in elements when the two lie a whole
  // number of elements apart, else in bytes with one more variable for the partial overlap.
  const Wide first_p = static_cast<Wide>(base_p) + es * p.offset();
  const Wide first_q = static_cast<Wide>(base_q) + es * q.offset();
  const Wide delta = first_q - first_p;
  const bool whole = delta % es == 0;
  const Wide unit = whole ? es : 1;
  Terms terms;
  // Elements of p: first_p + sum i_k s_k; of q: first_q + sum j_k t_k. With j_k = e_k - 1 - j'_k
  // every weight is positive:  sum i_k s_k + sum j'_k t_k = delta + sum (e_k - 1) t_k.
  Wide target = delta / unit;
  for (int k = 0; k < p.rank(); ++k) {
    terms.add(static_cast<Wide>(p.stride(k)) * es / unit, p.extent(k) - 1);
  }
  for (int k = 0; k < q.rank(); ++k) {
    const Wide w = static_cast<Wide>(q.stride(k)) * es / unit;
    terms.add(w, q.extent(k) - 1);
    target += w * (q.extent(k) - 1);
  }
  if (!whole) {
    // Element bytes [A, A + es) and [B, B + es) meet when B - A lies in (-es, es).
    terms.add(1, 2 * es - 2);
    target += es - 1;
  }
  return BoundedSum(terms).solve(target);
}

Overlap layout_self_overlaps(const Layout& layout) {
  if (is_empty(layout)) return Overlap::no;
  std::array<int, max_rank> dims{};
  std::size_t count = 0;
  for (int k = 0; k < layout.rank(); ++k) {
    if (layout.extent(k) <= 1) continue;
    if (layout.stride(k) == 0) return Overlap::yes;
    dims[count++] = k;
  }
  // Two different indices i != i' with one offset: take the first dimension k (in this order)
  // where they differ, with i_k > i'_k (swap them otherwise). Then
  //   (i_k - i'_k) s_k + sum_{m after k} (i_m - i'_m) s_m = 0,  1 <= i_k - i'_k <= e_k - 1,
  // and with i_k - i'_k = 1 + z and i_m - i'_m = y_m - (e_m - 1), 0 <= y_m <= 2 (e_m - 1):
  //   z s_k + sum y_m s_m = sum (e_m - 1) s_m - s_k.
  bool unsure = false;
  for (std::size_t k = 0; k < count; ++k) {
    const Wide sk = layout.stride(dims[k]);
    Terms terms;
    terms.add(sk, layout.extent(dims[k]) - 2);
    Wide target = -sk;
    for (std::size_t m = k + 1; m < count; ++m) {
      const Wide sm = layout.stride(dims[m]);
      const Wide em = layout.extent(dims[m]);
      terms.add(sm, 2 * (em - 1));
      target += (em - 1) * sm;
    }
    const Overlap o = BoundedSum(terms).solve(target);
    if (o == Overlap::yes) return o;
    unsure = unsure || o == Overlap::unknown;
  }
  return unsure ? Overlap::unknown : Overlap::no;
}

Overlap layout_meets_bytes(std::uintptr_t base, const Layout& layout, std::size_t element_size,
                           std::uintptr_t lo, std::uintptr_t hi) {
  if (is_empty(layout) || lo >= hi) return Overlap::no;
  const Wide es = static_cast<Wide>(element_size);
  // An element at byte A meets [lo, hi) when lo - es < A < hi, i.e. A + y = hi - 1 with
  // 0 <= y <= hi - lo + es - 2.
  Terms terms;
  terms.add(1, static_cast<Wide>(hi) - lo + es - 2);
  for (int k = 0; k < layout.rank(); ++k) {
    terms.add(static_cast<Wide>(layout.stride(k)) * es, layout.extent(k) - 1);
  }
  const Wide target = static_cast<Wide>(hi) - 1 - static_cast<Wide>(base) - es * layout.offset();
  return BoundedSum(terms).solve(target);
}

}  // namespace triax::detail
