// Factoring one matrix for triax::FactoredSolver, and the near-Toeplitz compression.
#include "core/factored/factor_table.hpp"

#include <cmath>
#include <algorithm>
#include <cstring>
#include <limits>

namespace triax::detail {
namespace {

template <class T>
bool normal(T v) {
  return std::isnormal(v);
}

// Whether stored rows i and j hold the same bits (the compression's only test: anything looser
// would make the compressed table differ from the factors it replaces).
template <class T>
bool same_row(const std::vector<T>& f, std::int64_t i, std::int64_t j) {
  return std::memcmp(&f[3 * i], &f[3 * j], 3 * sizeof(T)) == 0;
}

}  // namespace

template <class T>
FactorTable<T> factor_matrix(const T* a, const T* b, const T* c, std::int64_t n) {
  FactorTable<T> t;
  t.n = n;
  std::vector<T> full(static_cast<std::size_t>(3 * n));
  std::vector<long double> pivots(static_cast<std::size_t>(n));
  // Long double: the factors then carry one rounding each (to T), and the recurrence itself
  // (c'[i] depends on every row above) accumulates nothing visible in T.
  long double cp_prev = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const long double ai = i > 0 ? static_cast<long double>(a[i]) : 0.0L;
    long double m = static_cast<long double>(b[i]);
    if (i > 0) m -= ai * cp_prev;
    const long double cp = i + 1 < n ? static_cast<long double>(c[i]) / m : 0.0L;
    const bool bad = m == 0.0L || !std::isfinite(m) || !std::isfinite(static_cast<T>(cp));
    if (bad && t.breakdown == 0) {
      t.breakdown = static_cast<int>(std::min<std::int64_t>(i + 1, std::numeric_limits<int>::max()));
    }
    pivots[i] = m;
    full[3 * i] = static_cast<T>(ai);  // scaled below where needed
    full[3 * i + 2] = static_cast<T>(cp);
    cp_prev = cp;
  }
  // Every row reads the one stored row, whose NaN reciprocal and c' make every x NaN.
  const auto broken = [&t] {
    const T nan = std::numeric_limits<T>::quiet_NaN();
    t.rows = {T(0), nan, nan};
    t.head = 0;
    t.tail = 0;
    return t;
  };
  if (t.breakdown != 0) return broken();
  // Where every pivot and its reciprocal are normal in T, the solve multiplies by 1 / m. Else
  // (a matrix near the ends of T's range) the system solved is (s A) x = s d with s the power of
  // two that brings the largest pivot into [1/2, 1): s a, 1 / (s m) and s d are exact scalings
  // of a, 1 / m and d, so the result is the unscaled matrix's bit for bit; storing m and
  // dividing instead would round subnormal pivots to a few bits (a Pade matrix scaled by 2^-135
  // in float lost 3 digits that way).
  bool in_range = true;
  long double largest = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (!normal(static_cast<T>(pivots[i])) || !normal(static_cast<T>(1.0L / pivots[i]))) {
      in_range = false;
    }
    largest = std::max(largest, std::abs(pivots[i]));
  }
  long double s = 1;
  if (!in_range) {
    int e = 0;
    (void)std::frexp(largest, &e);  // largest = f 2^e, f in [1/2, 1)
    s = std::ldexp(1.0L, -e);
    t.scaled = true;
    // s itself may lie outside T's range (2^135 for a float matrix near 2^-135): two factors.
    t.scale[0] = static_cast<T>(std::ldexp(1.0L, -e / 2));
    t.scale[1] = static_cast<T>(std::ldexp(1.0L, -e - (-e / 2)));
  }
  for (std::int64_t i = 0; i < n; ++i) {
    full[3 * i] = static_cast<T>(full[3 * i] * s);
    full[3 * i + 1] = static_cast<T>(1.0L / (pivots[i] * s));
    // One s serves every row: where the pivots span more than T's exponent range (the largest
    // over the smallest beyond about 2^125 in float), a small pivot's reciprocal overflows even
    // scaled. That row breaks down here, reported by factor_info, rather than as an infinity
    // met in every solve (triax_capi_factored_fuzz found a float matrix with b[0] = -FLT_MAX and
    // the other pivots near 1).
    if (!std::isfinite(full[3 * i + 1]) && t.breakdown == 0) {
      t.breakdown = static_cast<int>(std::min<std::int64_t>(i + 1, std::numeric_limits<int>::max()));
    }
  }
  if (t.breakdown != 0) {
    t.scaled = false;
    t.scale[0] = t.scale[1] = T(1);
    return broken();
  }
  // The longest run of bit-identical rows: the limit of a near-Toeplitz matrix's factors. Rows
  // 0 and n - 1 always differ from their neighbours (a[0] = 0, c'[n-1] = 0), and boundary rows
  // that differ fall before or after the run.
  std::int64_t best_k = 0, best_len = 0;
  for (std::int64_t k = 0; k < n;) {
    std::int64_t e = k;
    while (e + 1 < n && same_row(full, k, e + 1)) ++e;
    if (e - k + 1 > best_len) {
      best_len = e - k + 1;
      best_k = k;
    }
    k = e + 1;
  }
  if (best_len >= 3) {
    t.compressed = true;
    t.head = best_k;
    t.tail = n - (best_k + best_len);
    t.rows.assign(full.begin(), full.begin() + 3 * (best_k + 1));
    t.rows.insert(t.rows.end(), full.begin() + 3 * (best_k + best_len), full.end());
  } else {
    t.head = n;
    t.tail = 0;
    t.rows = full;
    // The unused limit row (a copy of the last row, or zeros for n = 0).
    for (int v = 0; v < 3; ++v) t.rows.push_back(n > 0 ? full[3 * (n - 1) + v] : T(0));
  }
  return t;
}

template FactorTable<float> factor_matrix(const float*, const float*, const float*, std::int64_t);
template FactorTable<double> factor_matrix(const double*, const double*, const double*,
                                           std::int64_t);

}  // namespace triax::detail
