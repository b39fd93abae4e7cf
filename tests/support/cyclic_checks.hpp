#pragma once
// The checks of the cyclic family, written once for both backends: a backend's test passes how
// it solves (a Runner per algorithm for the comparisons with the reference, a CheckedSolve for
// checked mode) and its Backend value, and these run the same cases on it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/cyclic_problems.hpp"

namespace triax::test {

/// A backend's runner for an algorithm (host_runner, cuda_runner).
template <class T>
using RunnerOf = std::function<Runner<T>(Algorithm)>;

/// Solves a batch into batch.x (separate output), with an info array when `checked`; returns
/// info, -1 where not written.
template <class T>
using CheckedSolve =
    std::function<std::vector<int>(Algorithm, const Layout&, int axis, Batch<T>&, bool checked)>;

/// The CPU backend's CheckedSolve.
template <class T>
std::vector<int> cpu_checked_solve(Algorithm algorithm, const Layout& layout, int axis,
                                   Batch<T>& batch, bool checked) {
  Solver<T> s(Backend::cpu, layout, axis, {.algorithm = algorithm, .checked = checked});
  std::vector<int> info(s.system_count(), -1);
  run_mode(s, batch, Mode::separate, checked ? info.data() : nullptr);
  return info;
}

template <class T>
void expect_case_matches(const CyclicCase<T>& c, const RunnerOf<T>& runner,
                         const OperandLayouts& layouts, int axis, Mode mode, std::uint64_t seed) {
  SCOPED_TRACE(std::string(to_string(c.algorithm)));
  expect_matches_reference<T>(layouts, axis, mode, seed, runner(c.algorithm), c.fill());
}

/// The packed 2-D layout whose `axis` holds `systems` systems of n rows.
inline Layout cyclic_systems_along(int axis, std::int64_t n, std::int64_t systems) {
  return axis == 0 ? Layout::packed({n, systems}) : Layout::packed({systems, n});
}

/// Every algorithm at each length, `systems` systems side by side along the other axis, the
/// axis and mode changing from one solve to the next.
template <class T>
void expect_lengths_match(Backend backend, const RunnerOf<T>& runner,
                          const std::vector<std::int64_t>& lengths, std::int64_t systems,
                          const std::function<bool(std::int64_t)>& kept = nullptr) {
  int k = 0;
  for (std::int64_t n : lengths) {
    SCOPED_TRACE("n " + std::to_string(n));
    for (const CyclicCase<T>& c : cyclic_cases<T>(backend)) {
      ++k;
      // A length that kept() leaves out still counts: each kept one runs with the axis, mode
      // and seed it has in the whole sweep.
      if (kept && !kept(n)) continue;
      const int axis = k % 2;
      expect_case_matches(c, runner, OperandLayouts(cyclic_systems_along(axis, n, systems)), axis,
                          all_modes[k % 3], test_seed(k));
    }
  }
}

/// Every axis of 2-D and 3-D packed arrays, every mode.
template <class T>
void expect_every_axis_and_mode_match(Backend backend, const RunnerOf<T>& runner) {
  const std::vector<std::vector<std::int64_t>> shapes = {{33, 9}, {9, 33}, {17, 5, 11}};
  int k = 0;
  for (const auto& shape : shapes) {
    for (int axis = 0; axis < static_cast<int>(shape.size()); ++axis) {
      for (Mode mode : all_modes) {
        for (const CyclicCase<T>& c : cyclic_cases<T>(backend)) {
          expect_case_matches(c, runner, OperandLayouts(Layout::packed(shape)), axis, mode,
                              test_seed(++k));
        }
      }
    }
  }
}

/// Ghost layers, each operand padded differently, permuted and odd strides: rows are reached
/// through the Problem's offsets and strides only.
template <class T>
void expect_padded_layouts_match(Backend backend, const RunnerOf<T>& runner) {
  const MixedGridLayouts g;
  int k = 0;
  for (int axis = 0; axis < 3; ++axis) {
    for (const OperandLayouts& layouts :
         {OperandLayouts(g.padded_a, g.padded_d, g.permuted, g.padded_d, g.padded_x),
          OperandLayouts(g.odd, g.permuted, g.padded_a, g.odd, g.padded_d)}) {
      for (const CyclicCase<T>& c : cyclic_cases<T>(backend)) {
        ++k;
        expect_case_matches(c, runner, layouts, axis, all_modes[k % 3], test_seed(k));
      }
    }
  }
}

/// One matrix for every system (coefficients broadcast across the batch, row stride 1 along the
/// axis, 0 across it), dominant systems: CR, PCR and CR+PCR.
template <class T>
void expect_broadcast_coefficients_match(Backend backend, const RunnerOf<T>& runner) {
  const std::vector<std::int64_t> shape = {40, 12, 9};
  const CyclicAlgorithms a = cyclic_algorithms(backend);
  int k = 0;
  for (int axis = 0; axis < 3; ++axis) {
    for (Algorithm alg : {a.cr, a.pcr, a.cr_pcr}) {
      ++k;
      expect_case_matches(CyclicCase<T>{alg, false}, runner,
                          one_matrix_for_every_system(shape, axis), axis, all_modes[k % 3],
                          test_seed(k));
    }
  }
}

/// The hybrids' switch size from the environment (read when a plan is made): reduced systems of
/// one and two rows, odd sizes, and no CR step.
template <class T>
void expect_switch_overrides_match(Backend backend, const RunnerOf<T>& runner) {
  int k = 0;
  for (const SwitchOverride& o : switch_overrides(backend)) {
    SCOPED_TRACE(std::string("switch ") + o.rows);
    ASSERT_EQ(setenv("TRIAX_CYCLIC_SWITCH_ROWS", o.rows, 1), 0);
    ++k;
    expect_case_matches(CyclicCase<T>{o.algorithm, o.close_values}, runner,
                        OperandLayouts(cyclic_systems_along(0, 517, 3)), 0, all_modes[k % 3],
                        test_seed(k));
  }
  unsetenv("TRIAX_CYCLIC_SWITCH_ROWS");
}

/// b = 0 at an odd row: the first reduction step of CR (which divides by the odd rows) and of PCR
/// (by every row) meets it before anything else, so info is exactly that row + 1, in that system
/// only, along both axes.
template <class T>
void expect_zero_pivot_reported(Backend backend, const CheckedSolve<T>& solve) {
  constexpr std::int64_t n = 300, systems = 5;
  const CyclicAlgorithms a = cyclic_algorithms(backend);
  int k = 0;
  for (Algorithm alg : {a.cr, a.pcr, a.cr_pcr}) {
    for (std::int64_t row : {1, 77, 255, 299}) {
      SCOPED_TRACE(std::string(to_string(alg)) + ", row " + std::to_string(row));
      const int axis = ++k % 2;
      const Layout layout = cyclic_systems_along(axis, n, systems);
      Batch<T> batch{OperandLayouts(layout)};
      batch.fill_random(test_seed(k));
      batch.fill_x(T(0));
      batch.b[system_row_offset(layout, axis, 3, row)] = 0;
      const std::vector<int> info = solve(alg, layout, axis, batch, true);
      for (std::int64_t s = 0; s < systems; ++s) {
        EXPECT_EQ(info[s], s == 3 ? row + 1 : 0) << "system " << s;
      }
    }
  }
}

/// CR never divides by an even row's own b before eliminating into it: b = 0 at an even row of a
/// nonsingular system is no breakdown, and the solution is right.
template <class T>
void expect_cr_takes_a_zero_diagonal_at_an_even_row(Backend backend, const CheckedSolve<T>& solve) {
  constexpr std::int64_t n = 64;
  const Layout layout = Layout::packed({n, 2});
  Batch<T> batch{OperandLayouts(layout)};
  batch.fill_random(test_seed());
  batch.fill_x(T(0));
  // Rows 9..11 of system 1 become (a, b, c) = (0.25, 2, 1), (1, 0, 1), (1, 2, 0.25): row 10
  // has b = 0, CR's first level turns it into b = -1, and the block is far from singular.
  const T rows[3][3] = {{0.25, 2, 1}, {1, 0, 1}, {1, 2, 0.25}};
  WideSystem wide;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t o = system_row_offset(layout, 0, 1, i);
    if (i >= 9 && i <= 11) {
      batch.a[o] = rows[i - 9][0];
      batch.b[o] = rows[i - 9][1];
      batch.c[o] = rows[i - 9][2];
    }
    wide.a.push_back(i > 0 ? batch.a[o] : 0);
    wide.b.push_back(batch.b[o]);
    wide.c.push_back(i + 1 < n ? batch.c[o] : 0);
  }
  Batch<T> want = batch;
  Solver<T>(Backend::reference, layout, 0, {.algorithm = Algorithm::reference_dense_lu})
      .solve(want.a.data(), want.b.data(), want.c.data(), want.d.data(), want.x.data());
  const std::vector<int> info = solve(cyclic_algorithms(backend).cr, layout, 0, batch, true);
  EXPECT_EQ(info, (std::vector<int>{0, 0}));
  EXPECT_TRUE(
      outputs_match(layout, batch.x, want.x, std::max(batch.condition, condition_estimate(wide))));
}

/// Systems 1 and 3 strongly dominant (RD's products overflow), 0 and 2 close-valued (they do
/// not): RD and CR+RD report 1 and 3 only, and unchecked their x is not finite, never a finite
/// wrong answer. Where `twin` is given (another backend's solve of the same algorithm family),
/// its info must be the same.
template <class T>
void expect_rd_overflow_reported(Backend backend, const CheckedSolve<T>& solve,
                                 const CheckedSolve<T>& twin = {}) {
  constexpr std::int64_t n = 300, systems = 4;
  const Layout layout = Layout::packed({n, systems});
  const CyclicAlgorithms a = cyclic_algorithms(backend);
  const CyclicAlgorithms twin_algorithms = cyclic_algorithms(Backend::cpu);
  for (const auto& [alg, twin_alg] :
       {std::pair{a.rd, twin_algorithms.rd}, std::pair{a.cr_rd, twin_algorithms.cr_rd}}) {
    SCOPED_TRACE(std::string(to_string(alg)));
    Batch<T> batch{OperandLayouts(layout)};
    fill_close_values(batch, 0, test_seed(1));
    make_rd_overflow(batch, 0, 1, test_seed(2));
    make_rd_overflow(batch, 0, 3, test_seed(3));
    batch.fill_x(T(0));
    Batch<T> unchecked = batch;
    Batch<T> other = batch;
    const std::vector<int> info = solve(alg, layout, 0, batch, true);
    EXPECT_EQ(info[0], 0);
    EXPECT_EQ(info[2], 0);
    EXPECT_GT(info[1], 0);
    EXPECT_GT(info[3], 0);
    EXPECT_LE(info[1], n);
    if (twin) EXPECT_EQ(info, twin(twin_alg, layout, 0, other, true));
    solve(alg, layout, 0, unchecked, false);
    for (std::int64_t s : {1, 3}) {
      bool any_non_finite = false;
      for (std::int64_t i = 0; i < n; ++i) {
        any_non_finite |= !std::isfinite(unchecked.x[system_row_offset(layout, 0, s, i)]);
      }
      EXPECT_TRUE(any_non_finite) << "system " << s << " came out finite";
    }
  }
}

/// A NaN in d spoils the solution without a zero pivot: that system is reported, not the others.
template <class T>
void expect_non_finite_input_reported(Backend backend, const CheckedSolve<T>& solve) {
  const Layout layout = Layout::packed({50, 3});
  for (const CyclicCase<T>& c : cyclic_cases<T>(backend)) {
    Batch<T> batch{OperandLayouts(layout)};
    fill_close_values(batch, 0, test_seed());
    batch.fill_x(T(0));
    batch.d[system_row_offset(layout, 0, 2, 20)] = std::numeric_limits<T>::quiet_NaN();
    const std::vector<int> info = solve(c.algorithm, layout, 0, batch, true);
    EXPECT_EQ(info[0], 0) << to_string(c.algorithm);
    EXPECT_EQ(info[1], 0) << to_string(c.algorithm);
    EXPECT_GT(info[2], 0) << to_string(c.algorithm);
  }
}

/// Healthy batches: info 0 everywhere, and the same x as unchecked.
template <class T>
void expect_healthy_systems_get_zero(Backend backend, const CheckedSolve<T>& solve) {
  for (std::int64_t n : {1, 2, 3, 129, 257, 1000}) {
    const Layout layout = Layout::packed({n, 4});
    for (const CyclicCase<T>& c : cyclic_cases<T>(backend)) {
      Batch<T> batch{OperandLayouts(layout)};
      c.fill_batch(batch, 0, test_seed(n));
      batch.fill_x(T(0));
      Batch<T> plain = batch;
      const std::vector<int> info = solve(c.algorithm, layout, 0, batch, true);
      EXPECT_EQ(info, std::vector<int>(4, 0)) << to_string(c.algorithm) << ", n " << n;
      solve(c.algorithm, layout, 0, plain, false);
      EXPECT_TRUE(same_bits(plain.x, batch.x)) << to_string(c.algorithm) << ", n " << n;
    }
  }
}

}  // namespace triax::test
