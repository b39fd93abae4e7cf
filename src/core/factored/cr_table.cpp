// Precomputing paper 004's cyclic-reduction coefficients for triax::FactoredSolver, and their
// near-Toeplitz compression (cr_table.hpp states the numbering and the formulas).
#include "core/factored/cr_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace triax::detail {
namespace {

// Appends the entries of one sequence, compressed where a run of >= 3 bit-identical entries
// exists (anything looser than bit equality would change the solve).
template <class T>
CrSequence append_sequence(const std::vector<T>& full, std::vector<T>& out) {
  const std::int64_t count = static_cast<std::int64_t>(full.size() / 3);
  auto same = [&](std::int64_t i, std::int64_t j) {
    return std::memcmp(&full[3 * i], &full[3 * j], 3 * sizeof(T)) == 0;
  };
  std::int64_t best_k = 0, best_len = 0;
  for (std::int64_t k = 0; k < count;) {
    std::int64_t e = k;
    while (e + 1 < count && same(k, e + 1)) ++e;
    if (e - k + 1 > best_len) {
      best_len = e - k + 1;
      best_k = k;
    }
    k = e + 1;
  }
  CrSequence s;
  s.offset = static_cast<std::int64_t>(out.size() / 3);
  if (best_len >= 3) {
    s.head = best_k;
    s.tail = count - (best_k + best_len);
    out.insert(out.end(), full.begin(), full.begin() + 3 * (best_k + 1));
    out.insert(out.end(), full.begin() + 3 * (best_k + best_len), full.end());
  } else {
    s.head = count;
    s.tail = 0;
    out.insert(out.end(), full.begin(), full.end());
    // The limit slot entry(q) never returns for an uncompressed sequence; kept so that the
    // index arithmetic is the same for both cases.
    for (int v = 0; v < 3; ++v) out.push_back(count > 0 ? full[3 * (count - 1) + v] : T(0));
  }
  return s;
}

}  // namespace

template <class T>
CrTable<T> cr_matrix(const T* a, const T* b, const T* c, std::int64_t n) {
  CrTable<T> t;
  CrView<T>& v = t.layout;
  v.n = n;
  int levels = 0;
  while ((n >> levels) > 0) ++levels;
  v.levels = levels;
  // The diagonals of the current level in long double (one rounding to T per coefficient).
  std::vector<long double> A(static_cast<std::size_t>(n)), B(A.size()), C(A.size());
  for (std::int64_t i = 0; i < n; ++i) {
    A[i] = i > 0 ? static_cast<long double>(a[i]) : 0.0L;
    B[i] = b[i];
    C[i] = i + 1 < n ? static_cast<long double>(c[i]) : 0.0L;
  }
  struct Level {
    std::vector<long double> kept, eliminated;  // 3 a row, unscaled
  };
  std::vector<Level> all(static_cast<std::size_t>(levels));
  long double largest = 0;
  bool in_range = true;
  for (int l = 0; l < levels; ++l) {
    const std::int64_t m = n >> l;
    Level& lv = all[l];
    // Eliminated (even) rows: their pivots are the only divisors of the whole reduction.
    for (std::int64_t i = 0; i < m; i += 2) {
      const long double p = B[i];
      const bool bad = p == 0.0L || !std::isfinite(p);
      if (bad && v.breakdown == 0) {
        v.breakdown = static_cast<int>(
            std::min<std::int64_t>(CrView<T>::slot(i, l) + 1, std::numeric_limits<int>::max()));
      }
      if (!std::isnormal(static_cast<T>(p)) || !std::isnormal(static_cast<T>(1.0L / p))) {
        in_range = false;
      }
      largest = std::max(largest, std::abs(p));
      lv.eliminated.insert(lv.eliminated.end(), {p, A[i] / p, C[i] / p});
    }
    // Kept (odd) rows: the reduced system of level l + 1.
    std::vector<long double> A2(static_cast<std::size_t>(m / 2)), B2(A2.size()), C2(A2.size());
    for (std::int64_t i = 1; i < m; i += 2) {
      const bool right = i + 1 < m;
      const long double k1 = A[i] / B[i - 1];
      const long double k2 = right ? C[i] / B[i + 1] : 0.0L;
      const std::int64_t q = i / 2;
      A2[q] = -A[i - 1] * k1;
      B2[q] = B[i] - C[i - 1] * k1 - (right ? A[i + 1] * k2 : 0.0L);
      C2[q] = right ? -C[i + 1] * k2 : 0.0L;
      lv.kept.insert(lv.kept.end(), {k1, k2, 0.0L});
    }
    A.swap(A2);
    B.swap(B2);
    C.swap(C2);
  }
  const T nan = std::numeric_limits<T>::quiet_NaN();
  if (v.breakdown == 0) {
    long double s = 1;
    if (!in_range) {
      int e = 0;
      (void)std::frexp(largest, &e);
      s = std::ldexp(1.0L, -e);
      v.scaled = true;
      v.scale[0] = static_cast<T>(std::ldexp(1.0L, -e / 2));
      v.scale[1] = static_cast<T>(std::ldexp(1.0L, -e - (-e / 2)));
    }
    for (int l = 0; l < levels && v.breakdown == 0; ++l) {
      std::vector<T> kept, elim;
      for (std::size_t r = 0; r < all[l].kept.size(); r += 3) {
        kept.insert(kept.end(),
                    {static_cast<T>(all[l].kept[r]), static_cast<T>(all[l].kept[r + 1]), T(0)});
      }
      for (std::size_t r = 0; r < all[l].eliminated.size(); r += 3) {
        const long double p = all[l].eliminated[r];
        elim.insert(elim.end(),
                    {static_cast<T>(1.0L / (p * s)), static_cast<T>(all[l].eliminated[r + 1]),
                     static_cast<T>(all[l].eliminated[r + 2])});
      }
      // A ratio that overflows T breaks the reduction down as a zero pivot would.
      for (std::size_t k = 0; k < elim.size() && v.breakdown == 0; ++k) {
        if (!std::isfinite(elim[k])) {
          v.breakdown = static_cast<int>(std::min<std::int64_t>(
              CrView<T>::slot(2 * std::int64_t(k / 3), l) + 1, std::numeric_limits<int>::max()));
        }
      }
      for (std::size_t k = 0; k < kept.size() && v.breakdown == 0; ++k) {
        if (!std::isfinite(kept[k])) {
          v.breakdown = static_cast<int>(
              std::min<std::int64_t>(CrView<T>::slot(2 * std::int64_t(k / 3) + 1, l) + 1,
                                     std::numeric_limits<int>::max()));
        }
      }
      v.kept[l] = append_sequence(kept, t.entries);
      v.eliminated[l] = append_sequence(elim, t.entries);
    }
  }
  if (v.breakdown != 0) {
    // Every entry reads the one stored entry, whose NaNs make every x NaN.
    t.entries = {nan, nan, nan};
    v.scaled = false;
    v.scale[0] = v.scale[1] = T(1);
    for (int l = 0; l < levels; ++l) v.kept[l] = v.eliminated[l] = CrSequence{};
  }
  return t;
}

template CrTable<float> cr_matrix(const float*, const float*, const float*, std::int64_t);
template CrTable<double> cr_matrix(const double*, const double*, const double*, std::int64_t);

}  // namespace triax::detail
