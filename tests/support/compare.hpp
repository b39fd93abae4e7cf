#pragma once
// Runs one solve on a backend and on the reference backend from identical inputs and compares:
// the shared check behind every backend's tests.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "support/problems.hpp"

namespace triax::test {

enum class Mode { in_place, separate, increment };
/// Every mode, for the tests that run each.
inline constexpr Mode all_modes[] = {Mode::in_place, Mode::separate, Mode::increment};

inline const char* to_string(Mode m) {
  return m == Mode::in_place ? "in_place" : m == Mode::separate ? "separate" : "increment";
}

/// Calls the entry point of `mode` on a plan: solve_in_place(in..., d, rest...), solve(in..., d,
/// x, rest...) or solve_increment(in..., d, x, rest...). `in` is a tuple of the coefficients'
/// pointers (a, b, c; empty for a plan that holds its matrix), `rest` what the entry points take
/// after x (info, lengths).
template <class Plan, class In, class Out, class... Rest>
void solve_in_mode(Plan& s, Mode mode, const In& in, Out d, Out x, const Rest&... rest) {
  std::apply(
      [&](auto... coefficients) {
        switch (mode) {
          case Mode::in_place:
            s.solve_in_place(coefficients..., d, rest...);
            break;
          case Mode::separate:
            s.solve(coefficients..., d, x, rest...);
            break;
          case Mode::increment:
            s.solve_increment(coefficients..., d, x, rest...);
            break;
        }
      },
      in);
}

/// Runs `mode` on solver s over the batch's buffers (which it modifies).
template <class T>
void run_mode(Solver<T>& s, Batch<T>& batch, Mode mode, int* info = nullptr) {
  solve_in_mode(s, mode, std::tuple(batch.a.data(), batch.b.data(), batch.c.data()), batch.d.data(),
                batch.x.data(), info);
}

/// The elements of a buffer that a layout does not cover.
inline std::vector<bool> covered(const Layout& l, std::size_t size) {
  std::vector<bool> in(size, false);
  for_each_offset(l, [&](std::int64_t o) { in[o] = true; });
  return in;
}

/// Runs one solve of a batch in some backend's memory: the backends' tests differ only in this.
template <class T>
using Runner = std::function<void(const OperandLayouts&, int axis, Mode, Batch<T>&)>;

/// A runner for host backends: a plan with the given algorithm, run on the host buffers.
template <class T>
Runner<T> host_runner(Backend backend, Algorithm algorithm) {
  return [=](const OperandLayouts& layouts, int axis, Mode mode, Batch<T>& batch) {
    Solver<T> solver(backend, layouts, axis, {.algorithm = algorithm});
    if (algorithm != Algorithm::automatic) ASSERT_EQ(solver.algorithm(), algorithm);
    run_mode(solver, batch, mode);
  };
}

/// Bitwise equality of two buffers (NaN poison included).
template <class T>
bool same_bits(const std::vector<T>& x, const std::vector<T>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(T)) == 0;
}

/// Solves with `run` and with the reference backend on the same random inputs, and checks: the
/// outputs agree within an epsilon-based tolerance; the inputs come back bit for bit; and
/// nothing outside the output layout was written. Input padding holds NaN (a read of the wrong
/// element spoils the result); the output's padding holds a finite sentinel, which must come
/// back bit for bit (a stray store of a computed NaN would hide among NaN poison).
///
/// `fill` replaces the random diagonally dominant systems (it must set batch.condition too).
template <class T>
void expect_matches_reference(const OperandLayouts& layouts, int axis, Mode mode,
                              std::uint64_t seed, const Runner<T>& run,
                              const std::function<void(Batch<T>&, int axis, std::uint64_t seed)>&
                                  fill = {}) {
  SCOPED_TRACE(std::string("mode ") + to_string(mode) + ", axis " + std::to_string(axis) +
               ", seed " + std::to_string(seed));
  Batch<T> batch(layouts);
  if (fill) {
    fill(batch, axis, seed);
  } else {
    batch.fill_random(seed);
  }
  const Layout& out = mode == Mode::in_place ? layouts.d : layouts.x;
  std::vector<T>& out_buf = mode == Mode::in_place ? batch.d : batch.x;
  constexpr T sentinel = T(-1234.5);
  fill_outside(out, out_buf, sentinel);
  if (mode == Mode::increment) {
    std::mt19937_64 g(seed ^ 0x9e3779b97f4a7c15ull);
    std::uniform_real_distribution<double> u(-1, 1);
    for_each_offset(layouts.x, [&](std::int64_t o) { batch.x[o] = static_cast<T>(u(g)); });
  }
  const Batch<T> before = batch;
  Batch<T> want = batch;
  Solver<T> reference(Backend::reference, layouts, axis);
  run_mode(reference, want, mode);
  run(layouts, axis, mode, batch);

  const std::vector<T>& got_buf = mode == Mode::in_place ? batch.d : batch.x;
  const std::vector<T>& want_buf = mode == Mode::in_place ? want.d : want.x;
  EXPECT_TRUE(outputs_match(out, got_buf, want_buf, batch.condition));
  const std::vector<bool> in = covered(out, got_buf.size());
  for (std::size_t o = 0; o < got_buf.size(); ++o) {
    if (!in[o]) {
      ASSERT_EQ(std::memcmp(&got_buf[o], &sentinel, sizeof(T)), 0)
          << "padding at offset " << o << " written: " << got_buf[o];
    }
  }
  EXPECT_TRUE(same_bits(batch.a, before.a) && same_bits(batch.b, before.b) &&
              same_bits(batch.c, before.c))
      << "a, b or c written";
  if (mode != Mode::in_place) {
    EXPECT_TRUE(same_bits(batch.d, before.d)) << "d written";
  }
}

}  // namespace triax::test
