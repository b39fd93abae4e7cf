#pragma once
// Shared by the CUDA range and fault tests: well-conditioned systems on a packed 3-D (or 2-D)
// grid whose entries scale by any power of two exactly, one solve on the device with NaN-poisoned
// outputs, and each system's normwise backward error computed in long double.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "support/device_runner.hpp"
#include "support/quick_mode.hpp"
#include "support/scoped_env.hpp"
#include "triax/triax.hpp"

namespace triax::test {

/// A packed grid, the axis of its systems, and the four operands in host memory.
template <class T>
struct GridSystems {
  std::vector<std::int64_t> extents;
  int axis = 0;
  std::vector<T> a, b, c, d;

  Layout layout() const { return Layout::packed(std::span<const std::int64_t>(extents)); }
  std::int64_t size() const {
    std::int64_t s = 1;
    for (std::int64_t e : extents) s *= e;
    return s;
  }
  std::int64_t n() const { return extents[axis]; }
  std::int64_t count() const { return size() / n(); }
  std::int64_t row_stride() const {
    std::int64_t s = 1;
    for (int k = 0; k < axis; ++k) s *= extents[k];
    return s;
  }
  /// Row of element e along the axis.
  std::int64_t row_of(std::int64_t e) const { return (e / row_stride()) % n(); }
  /// The system of element e: the other coordinates, dimension 0 fastest (the order of info).
  std::int64_t system_of(std::int64_t e) const {
    const std::int64_t below = row_stride();
    return e % below + (e / (below * n())) * below;
  }
  /// Element of row i of system s.
  std::int64_t element(std::int64_t s, std::int64_t i) const {
    const std::int64_t below = row_stride();
    return s % below + i * below + (s / below) * below * n();
  }
};

/// Random entries with at most 8 significant bits, the last of them no finer than 2^-9: |a|, |c|,
/// |d| in [1/4, 2), b in [4.3, 6] (diagonally dominant, so |x| <= 8), so that 2^k times any of
/// them is exact down to 2^9 times the smallest subnormal.
template <class T>
GridSystems<T> random_grid(std::vector<std::int64_t> extents, int axis, std::uint64_t seed) {
  GridSystems<T> g{std::move(extents), axis, {}, {}, {}, {}};
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> mantissa(32, 255), sign(0, 1);
  const auto off = [&] { return T(sign(rng) ? -1 : 1) * std::ldexp(T(mantissa(rng)), -7); };
  const std::size_t size = static_cast<std::size_t>(g.size());
  g.a.resize(size);
  g.b.resize(size);
  g.c.resize(size);
  g.d.resize(size);
  for (std::size_t e = 0; e < size; ++e) {
    g.a[e] = off();
    g.c[e] = off();
    g.d[e] = off();
    g.b[e] = T(4) + std::ldexp(T(mantissa(rng) / 8 * 8 + 8), -7);  // 4.25 .. 6, 8 bits
  }
  return g;
}

/// The smallest and largest k for which 2^k times random_grid's entries are exact: the smallest
/// entry's last bit is 2^-9, the largest entry below 8.
template <class T>
int min_exact_scale() {
  return std::numeric_limits<T>::min_exponent - std::numeric_limits<T>::digits + 9;
}
template <class T>
int max_exact_scale() {
  return std::numeric_limits<T>::max_exponent - 3;
}

/// g with every entry multiplied by 2^k (the same systems, the same solution).
template <class T>
GridSystems<T> scaled(const GridSystems<T>& g, int k) {
  GridSystems<T> s = g;
  for (std::vector<T>* v : {&s.a, &s.b, &s.c, &s.d}) {
    for (T& e : *v) e = std::ldexp(e, k);
  }
  return s;
}

/// One solve on the device: x starts as NaN (every element must be overwritten) and info as -7.
template <class T>
struct DeviceSolve {
  std::vector<T> x;
  std::vector<int> info;  // empty unless checked
  Algorithm algorithm = Algorithm::automatic;  // what the plan ran
};

/// Solves g on the device with the algorithm (checked mode fills info). An algorithm whose plan
/// rejects the layout sets *accepted = false and solves nothing.
template <class T>
void device_solve(const GridSystems<T>& g, Algorithm alg, bool checked, DeviceSolve<T>& out,
                  bool* accepted = nullptr) {
  if (accepted != nullptr) *accepted = true;
  std::unique_ptr<Solver<T>> solver;
  try {
    solver = std::make_unique<Solver<T>>(Backend::cuda, OperandLayouts(g.layout()), g.axis,
                                         Options{.algorithm = alg, .checked = checked});
  } catch (const invalid_argument&) {
    if (accepted == nullptr) throw;
    *accepted = false;
    return;
  }
  out.algorithm = solver->algorithm();
  out.x.assign(g.a.size(), std::numeric_limits<T>::quiet_NaN());
  out.info.assign(checked ? static_cast<std::size_t>(g.count()) : 0, -7);
  DeviceBuffer<T> a(g.a), b(g.b), c(g.c), d(g.d), x(out.x);
  DeviceBuffer<int> info(out.info.empty() ? std::vector<int>(1, -7) : out.info);
  ASSERT_TRUE(a.get() && b.get() && c.get() && d.get() && x.get() && info.get());
  solver->solve(a.get(), b.get(), c.get(), d.get(), x.get(), checked ? info.get() : nullptr);
  TRIAX_TEST_CUDA_OK(cudaDeviceSynchronize());
  TRIAX_TEST_CUDA_OK(cudaGetLastError());
  x.download(out.x);
  if (checked) info.download(out.info);
}

/// Per system: max_i |a_i x_{i-1} + b_i x_i + c_i x_{i+1} - d_i| / (max_i (|a_i| + |b_i| + |c_i|)
/// max_i |x_i| + max_i |d_i|), in long double (whose range holds every product of T's), a[0] and
/// c[n-1] left out. A system with a non-finite x gets infinity.
template <class T>
std::vector<long double> backward_errors(const GridSystems<T>& g, const std::vector<T>& x) {
  using LD = long double;
  const std::int64_t count = g.count(), n = g.n(), stride = g.row_stride();
  std::vector<LD> res(count, 0), norm_a(count, 0), norm_x(count, 0), norm_d(count, 0);
  std::vector<bool> bad(count, false);
  for (std::int64_t e = 0; e < g.size(); ++e) {
    const std::int64_t s = g.system_of(e), i = g.row_of(e);
    if (!std::isfinite(x[e])) bad[s] = true;
    const LD a = i > 0 ? LD(g.a[e]) : 0, c = i + 1 < n ? LD(g.c[e]) : 0;
    const LD xm = i > 0 ? LD(x[e - stride]) : 0, xp = i + 1 < n ? LD(x[e + stride]) : 0;
    const LD r = a * xm + LD(g.b[e]) * LD(x[e]) + c * xp - LD(g.d[e]);
    res[s] = std::max(res[s], std::fabs(r));
    norm_a[s] = std::max(norm_a[s], std::fabs(a) + std::fabs(LD(g.b[e])) + std::fabs(c));
    norm_x[s] = std::max(norm_x[s], std::fabs(LD(x[e])));
    norm_d[s] = std::max(norm_d[s], std::fabs(LD(g.d[e])));
  }
  std::vector<LD> be(count);
  for (std::int64_t s = 0; s < count; ++s) {
    const LD denom = norm_a[s] * norm_x[s] + norm_d[s];
    be[s] = bad[s] || !std::isfinite(res[s]) ? std::numeric_limits<LD>::infinity()
            : denom == 0                    ? (res[s] == 0 ? 0 : std::numeric_limits<LD>::infinity())
                                            : res[s] / denom;
  }
  return be;
}

/// The solver variants the tests run: every CUDA algorithm, and the Thomas-PCR hybrid with each
/// of its kernels switched on where it has a configuration (docs/algorithms.md), so that the
/// staged, pipelined and clustered kernels run on shapes their rule would not give them.
struct Variant {
  Algorithm algorithm;
  const char* env;  // nullptr: the default choice
  std::string name() const {
    return std::string(to_string(algorithm)) + (env ? std::string(" ") + env + "=1" : "");
  }
};
inline const std::vector<Variant>& cuda_variants() {
  static const std::vector<Variant> v = {
      {Algorithm::automatic, nullptr},
      {Algorithm::cuda_block_thomas_pcr, "TRIAX_CUDA_HYBRID_STAGED"},
      {Algorithm::cuda_block_thomas_pcr, "TRIAX_CUDA_HYBRID_PIPELINED"},
      {Algorithm::cuda_block_thomas_pcr, "TRIAX_CUDA_HYBRID_CLUSTER"},
      {Algorithm::cuda_warp_thomas_pcr, nullptr},
      {Algorithm::cuda_thread_thomas, nullptr},
      {Algorithm::cuda_thread_thomas_shuffle_transpose, nullptr},
      {Algorithm::cuda_thread_thomas_shared_transpose, nullptr},
  };
  return v;
}

/// One test of the range and fault suites: a precision and a length. A test per pair (not one
/// per precision, which took 200-270 s under scripts/gpu-check's 8 shards) lets the shards share
/// the sweep out. gtest deals the tests to the shards in turn, so one suite lists its cases
/// longest first and the next shortest first: ScaleRange's 24 cases fill whole rounds of 2, 3, 4,
/// 6 or 8 shards, and FaultCatalogue's longest then meet ScaleRange's shortest.
struct SweepCase {
  bool is_double;
  std::int64_t n;
  int index;  // of n in the lengths given: the tests' seeds follow it
};

enum class SweepOrder { longest_first, shortest_first };

/// Both precisions of every length, in the order asked for.
inline std::vector<SweepCase> sweep_cases(const std::vector<std::int64_t>& lengths,
                                          SweepOrder order) {
  std::vector<SweepCase> cases;
  for (int k = 0; k < static_cast<int>(lengths.size()); ++k) {
    cases.push_back({false, lengths[k], k});
    cases.push_back({true, lengths[k], k});
  }
  std::stable_sort(cases.begin(), cases.end(), [order](const SweepCase& p, const SweepCase& q) {
    return order == SweepOrder::longest_first ? p.n > q.n : p.n < q.n;
  });
  return cases;
}

/// How gtest shows a case (its default dumps the bytes, padding included).
inline void PrintTo(const SweepCase& c, std::ostream* os) {
  *os << (c.is_double ? "double" : "float") << ", n = " << c.n;
}

/// "float_n5000": names that a --gtest_filter can pick out.
inline std::string sweep_case_name(const ::testing::TestParamInfo<SweepCase>& info) {
  return std::string(info.param.is_double ? "double" : "float") + "_n" +
         std::to_string(info.param.n);
}

/// The fixture of a sweep: skips without a device; for_precision(body) calls body(T{}) with the
/// case's value type T.
class SweepTest : public NeedsDevice<::testing::TestWithParam<SweepCase>> {
 protected:
  template <class Body>
  void for_precision(Body&& body) {
    if (GetParam().is_double) {
      body(double{});
    } else {
      body(float{});
    }
  }
};

}  // namespace triax::test
