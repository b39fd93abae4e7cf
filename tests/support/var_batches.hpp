#pragma once
// Variable-size batches for the tests of triax::VarSolver on every backend: the buffers of one
// batch (each operand its own allocation, every element that is no real row poisoned), a runner
// type (how a backend solves it: host buffers directly, or a copy in device memory), and the
// shared check against the reference backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/problems.hpp"
#include "triax/varbatch.hpp"

namespace triax::test {

/// The element offsets of system s's rows in one operand (back to back: every operand alike).
inline std::vector<std::int64_t> var_rows(const VarLayout& l, const Layout* padded, int axis,
                                          std::int64_t s) {
  std::vector<std::int64_t> rows(static_cast<std::size_t>(l.length(s)));
  for (std::int64_t i = 0; i < l.length(s); ++i) {
    rows[i] = padded ? system_row_offset(*padded, axis, s, i) : l.offset(s) + i;
  }
  return rows;
}

/// One batch: the layout, the padded layouts (or none), the buffers.
template <class T>
struct VarBatch {
  VarLayout layout;
  std::optional<OperandLayouts> padded;
  int axis = 0;
  std::vector<T> a, b, c, d, x;

  static T poison() { return std::numeric_limits<T>::quiet_NaN(); }
  /// What the output's non-row elements hold: finite, so that a stray store of NaN shows.
  static T sentinel() { return T(7.25); }

  VarBatch(const VarLayout& l, std::optional<OperandLayouts> p = {}, int ax = 0)
      : layout(l), padded(std::move(p)), axis(ax) {
    const auto size = static_cast<std::size_t>(std::max<std::int64_t>(l.span(), 1));
    a.assign(size, poison());
    b.assign(size, poison());
    c.assign(size, poison());
    d.assign(size, poison());
    x.assign(size, sentinel());
  }

  std::vector<std::int64_t> rows(int op, std::int64_t s) const {
    if (!padded) return var_rows(layout, nullptr, axis, s);
    const Layout* all[] = {&padded->a, &padded->b, &padded->c, &padded->d, &padded->x};
    return var_rows(layout, all[op], axis, s);
  }

  /// Random diagonally dominant rows (condition about 7); x's rows random for increments.
  void fill(std::uint64_t seed) {
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> u(-1, 1), m(0.5, 1.5);
    for (std::int64_t s = 0; s < layout.count(); ++s) {
      const auto ra = rows(0, s), rb = rows(1, s), rc = rows(2, s), rd = rows(3, s),
                 rx = rows(4, s);
      for (std::size_t i = 0; i < ra.size(); ++i) {
        const double av = u(g), cv = u(g);
        a[ra[i]] = static_cast<T>(av);
        c[rc[i]] = static_cast<T>(cv);
        b[rb[i]] = static_cast<T>((u(g) < 0 ? -1 : 1) * (std::abs(av) + std::abs(cv) + m(g)));
        d[rd[i]] = static_cast<T>(u(g));
        x[rx[i]] = static_cast<T>(u(g));
      }
    }
  }
};

/// How a backend solves a batch: `mode`, checked when info is non-null (host array, one int per
/// system); the runner copies to and from its memory.
template <class T>
using VarRunner = std::function<void(VarBatch<T>&, Mode, int* info)>;

template <class T>
void run_var_host(VarSolver<T>& s, VarBatch<T>& v, Mode mode, int* info) {
  solve_in_mode(s, mode, std::tuple(v.a.data(), v.b.data(), v.c.data()), v.d.data(), v.x.data(),
                info);
}

/// A runner for the host backends.
template <class T>
VarRunner<T> var_host_runner(Backend backend, int threads = 0) {
  return [=](VarBatch<T>& v, Mode mode, int* info) {
    VarSolver<T> solver(backend, v.layout, {.checked = info != nullptr, .num_threads = threads});
    run_var_host(solver, v, mode, info);
  };
}

/// Solves `v` with `run` and with the reference backend and checks: the real rows agree within
/// the tolerance, inputs come back bit for bit, every element outside the real rows of the
/// output is untouched, and (checked) info agrees with the reference's.
template <class T>
void expect_var_matches_reference(const VarBatch<T>& v0, Mode mode, const VarRunner<T>& run,
                                  bool checked = false) {
  SCOPED_TRACE(std::string("mode ") + to_string(mode));
  VarBatch<T> want = v0, got = v0;
  if (mode == Mode::separate) {
    // Poison the output's rows: a row that is never written shows as NaN.
    for (std::int64_t s = 0; s < v0.layout.count(); ++s) {
      for (const auto o : want.rows(4, s)) want.x[o] = got.x[o] = VarBatch<T>::poison();
    }
  }
  const auto count = static_cast<std::size_t>(v0.layout.count());
  std::vector<int> info_want(count + 1, -7), info_got(count + 1, -7);
  {
    VarSolver<T> ref(Backend::reference, want.layout, {.checked = checked});
    run_var_host(ref, want, mode, checked ? info_want.data() : nullptr);
  }
  run(got, mode, checked ? info_got.data() : nullptr);
  const int out = mode == Mode::in_place ? 3 : 4;
  const std::vector<T>& g = mode == Mode::in_place ? got.d : got.x;
  const std::vector<T>& w = mode == Mode::in_place ? want.d : want.x;
  double scale = 0;
  for (std::int64_t s = 0; s < v0.layout.count(); ++s) {
    for (const auto o : want.rows(out, s)) scale = std::max(scale, std::abs(double(w[o])));
  }
  const double tol = tolerance<T>(7.0, scale);
  std::vector<bool> is_row(g.size(), false);
  for (std::int64_t s = 0; s < v0.layout.count(); ++s) {
    const auto rows = want.rows(out, s);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto o = rows[i];
      is_row[o] = true;
      const double e = std::abs(double(g[o]) - double(w[o]));
      if (!(e <= tol) && !(checked && info_want[s] != 0)) {
        ADD_FAILURE() << "system " << s << " (length " << v0.layout.length(s) << ") row " << i
                      << ": got " << g[o] << ", want " << w[o] << " (tolerance " << tol << ")";
        return;
      }
    }
  }
  const std::vector<T>& g0 = mode == Mode::in_place ? v0.d : v0.x;
  for (std::size_t o = 0; o < g.size(); ++o) {
    if (is_row[o]) continue;
    if (std::memcmp(&g[o], &g0[o], sizeof(T)) != 0) {
      ADD_FAILURE() << "element " << o << " outside the systems' rows was written: " << g[o];
      return;
    }
  }
  EXPECT_TRUE(same_bits(got.a, v0.a));
  EXPECT_TRUE(same_bits(got.b, v0.b));
  EXPECT_TRUE(same_bits(got.c, v0.c));
  if (mode != Mode::in_place) EXPECT_TRUE(same_bits(got.d, v0.d));
  if (checked) {
    EXPECT_EQ(info_got, info_want);
  }
}

/// Lengths 0, 1, 2, 3 and large, mixed, in a shuffled order.
inline std::vector<std::int64_t> mixed_lengths(std::uint64_t seed, std::size_t count,
                                               std::int64_t longest) {
  std::mt19937_64 g(seed);
  std::vector<std::int64_t> l = {0, 1, 2, 3, longest, 0, 3, 2, 1};
  std::uniform_int_distribution<std::int64_t> any(0, longest);
  while (l.size() < count) l.push_back(any(g));
  std::shuffle(l.begin(), l.end(), g);
  return l;
}

}  // namespace triax::test
