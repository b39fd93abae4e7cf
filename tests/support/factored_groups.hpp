#pragma once
// Test cases for triax::FactoredSolver with one matrix per group of systems (the constructor
// that takes a coefficients Layout), shared by the CPU and GPU suites. The oracle is the general
// solver on the reference backend given the same a, b, c laid out over d (stride 0 where the
// groups share): it knows nothing of groups, factoring or compression.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/factored_cases.hpp"
#include "support/problems.hpp"
#include "triax/factored.hpp"
#include "triax/triax.hpp"

namespace triax::test {

/// One grouped problem: d and x (ghost layers), the coefficients' layout and buffers.
template <class T>
struct GroupedCase {
  std::string name;
  std::vector<std::int64_t> shape;
  int axis = 0;
  std::vector<int> group_dims;
  FactoredLayouts layouts{Layout::packed({1})};
  Layout coefficients = Layout::packed({1});
  std::vector<T> a, b, c;  // the coefficients' buffers (a[0], c[n-1] of every group: NaN)
  std::int64_t groups = 1;
  double condition = 1;
};

/// Group g's matrix cycles through a fast Toeplitz matrix (its diagonal varying with g), a slowly
/// converging one and one whose every row differs (never converges): one plan holds all three.
template <class T>
FactoredMatrixCase<T> group_matrix(std::int64_t n, std::int64_t g) {
  const double slow_margin = std::is_same_v<T, float> ? 1e-2 : 1e-4;
  switch (g % 3) {
    case 0:
      return toeplitz<T>("fast", n, 0.25, 1.0 + 0.05 * double(g % 7), 0.25, 3.0);
    case 1: {
      const double margin = slow_margin * double(1 + g % 4);
      return toeplitz<T>("slow", n, 1.0, -(2.0 + margin), 1.0, 4.0 / margin);
    }
    default:
      return varying<T>(n, 977 + static_cast<std::uint64_t>(g));
  }
}

/// A grouped case: `group_dims` get their own matrix; `broadcast_dim` (if >= 0, not a group
/// dimension) has extent 1 in the coefficients (NumPy-style sharing) rather than stride 0.
template <class T>
GroupedCase<T> grouped_case(const std::vector<std::int64_t>& shape, int axis,
                            const std::vector<int>& group_dims, int broadcast_dim = -1) {
  GroupedCase<T> gc;
  gc.shape = shape;
  gc.axis = axis;
  gc.group_dims = group_dims;
  const int rank = static_cast<int>(shape.size());
  const std::int64_t n = shape[axis];
  std::vector<std::int64_t> alloc_d(shape), begin_d(rank), alloc_x(shape), begin_x(rank);
  for (int k = 0; k < rank; ++k) {
    alloc_d[k] += 2 + k % 2;
    begin_d[k] = 1;
    alloc_x[k] += k == axis ? 1 : 0;
    begin_x[k] = k == axis ? 1 : 0;
  }
  gc.layouts = FactoredLayouts(Layout::padded(shape, alloc_d, begin_d),
                               Layout::padded(shape, alloc_x, begin_x));
  // Coefficients: the axis fastest, then the group dimensions; 2 elements of offset (a ghost).
  std::vector<std::int64_t> cext(shape), cstr(rank, 0);
  cstr[axis] = 1;
  std::int64_t run = n;
  for (int k : group_dims) {
    cstr[k] = run;
    run *= shape[k];
  }
  if (broadcast_dim >= 0) cext[broadcast_dim] = 1;
  const std::int64_t offset = 2;
  gc.coefficients = Layout::strided(cext, cstr, offset);
  gc.groups = run / std::max<std::int64_t>(n, 1);
  if (n == 0) {
    gc.groups = 1;
    for (int k : group_dims) gc.groups *= shape[k];
  }
  const std::size_t size = static_cast<std::size_t>(offset + run + 1);
  gc.a.assign(size, T(-3.5));
  gc.b.assign(size, T(-3.5));
  gc.c.assign(size, T(-3.5));
  for (std::int64_t g = 0; g < gc.groups; ++g) {
    const auto m = group_matrix<T>(n, g);
    gc.condition = std::max(gc.condition, m.condition);
    for (std::int64_t i = 0; i < n; ++i) {
      const std::size_t at = static_cast<std::size_t>(offset + g * n + i);
      gc.a[at] = m.a[i];
      gc.b[at] = m.b[i];
      gc.c[at] = m.c[i];
    }
  }
  gc.name = "rank" + std::to_string(rank) + "_axis" + std::to_string(axis) + "_groups";
  for (int k : group_dims) gc.name += "_d" + std::to_string(k);
  if (broadcast_dim >= 0) gc.name += "_bcast" + std::to_string(broadcast_dim);
  return gc;
}

/// Every axis of 2-D and 3-D grids of n rows, every subset of the other dimensions as group
/// dimensions (2..64 groups, and the one-group case), a broadcast extent of 1 on 3-D grids.
template <class T>
std::vector<GroupedCase<T>> grouped_cases(std::int64_t n, bool quick) {
  std::vector<GroupedCase<T>> all;
  const std::vector<std::vector<std::int64_t>> others =
      quick ? std::vector<std::vector<std::int64_t>>{{2}, {4, 16}}
            : std::vector<std::vector<std::int64_t>>{{2}, {6}, {4, 16}, {8, 8}};
  for (const auto& rest : others) {
    const int rank = static_cast<int>(rest.size()) + 1;
    for (int axis = 0; axis < rank; ++axis) {
      std::vector<std::int64_t> shape;
      std::vector<int> free;
      for (int k = 0, r = 0; k < rank; ++k) {
        shape.push_back(k == axis ? n : rest[r++]);
        if (k != axis) free.push_back(k);
      }
      for (unsigned mask = 0; mask < (1u << free.size()); ++mask) {
        std::vector<int> dims;
        int shared = -1;
        for (std::size_t j = 0; j < free.size(); ++j) {
          if (mask & (1u << j)) {
            dims.push_back(free[j]);
          } else {
            shared = free[j];
          }
        }
        all.push_back(grouped_case<T>(shape, axis, dims));
        if (rank == 3 && shared >= 0 && !dims.empty()) {
          all.push_back(grouped_case<T>(shape, axis, dims, shared));
        }
      }
    }
  }
  return all;
}

/// Replaces group 1's matrix by the Pade matrix of factored_cases.hpp at n = 3, which its
/// closures make singular (det 0): the checked-mode tests expect every system of group 1, and
/// only those, to report a breakdown. The groups' matrices lie n apart after the offset.
template <class T>
void plant_singular_group_one(GroupedCase<T>& gc, std::int64_t n) {
  EXPECT_EQ(n, 3) << "the Pade matrix is singular at n = 3 only";
  const auto singular = pade<T>(n);
  const std::int64_t at = gc.coefficients.offset() + n;
  for (std::int64_t i = 0; i < n; ++i) {
    gc.a[at + i] = singular.a[i];
    gc.b[at + i] = singular.b[i];
    gc.c[at + i] = singular.c[i];
  }
}

/// The coefficients' layout with d's extents (stride 0 where shared): what triax::Solver takes.
template <class T>
Layout oracle_coefficients(const GroupedCase<T>& gc) {
  std::vector<std::int64_t> ext(gc.shape), str(gc.shape.size());
  for (std::size_t k = 0; k < gc.shape.size(); ++k) {
    str[k] = gc.coefficients.extent(static_cast<int>(k)) == 1 && gc.shape[k] != 1
                 ? 0
                 : gc.coefficients.stride(static_cast<int>(k));
  }
  return Layout::strided(ext, str, gc.coefficients.offset());
}

/// Solves a grouped case with the general solver on the reference backend.
template <class T>
void solve_grouped_oracle(const GroupedCase<T>& gc, Mode mode, std::vector<T>& d,
                          std::vector<T>& x) {
  const Layout lc = oracle_coefficients(gc);
  const Layout& lx = mode == Mode::in_place ? gc.layouts.d : gc.layouts.x;
  Solver<T> s(Backend::reference, OperandLayouts(lc, lc, lc, gc.layouts.d, lx), gc.axis);
  solve_in_mode(s, mode, std::tuple(gc.a.data(), gc.b.data(), gc.c.data()), d.data(), x.data());
}

/// Makes the run of one grouped case with the algorithm on some backend's memory (d, x as host
/// buffers), which the check calls once per mode: a device runner builds its plan once for the
/// three modes (support/factored_cases.hpp, FactoredRunner, says why). The run may refer to the
/// case: it is called while the case lives.
template <class T>
using GroupedRunner = std::function<FactoredModeRun<T>(const GroupedCase<T>&, FactoredAlgorithm)>;

template <class T>
void run_grouped_host(Backend backend, const GroupedCase<T>& gc, Mode mode, std::vector<T>& d,
                      std::vector<T>& x, FactoredAlgorithm algorithm, const Options& o = {},
                      int* info = nullptr) {
  FactoredSolver<T> s(backend, gc.a.data(), gc.b.data(), gc.c.data(), gc.coefficients, gc.layouts,
                      gc.axis, o, algorithm);
  ASSERT_EQ(s.group_count(), gc.groups);
  solve_in_mode(s, mode, std::tuple(), d.data(), x.data(), info);
}

/// For each mode: the grouped plan against the general solver on the reference backend (forward
/// error within 32 eps x condition x max|x|), outputs poisoned with NaN first (separate), padding
/// around x and d untouched, d untouched unless in place.
template <class T>
void check_grouped_against_reference(const GroupedCase<T>& gc, const GroupedRunner<T>& run,
                                     FactoredAlgorithm algorithm) {
  const FactoredModeRun<T> run_mode = run(gc, algorithm);
  for (Mode mode : {Mode::in_place, Mode::separate, Mode::increment}) {
    SCOPED_TRACE(gc.name + " n=" + std::to_string(gc.shape[gc.axis]) + " " + to_string(mode) + " " +
                 std::string(to_string(algorithm)));
    const Layout& ld = gc.layouts.d;
    const Layout& lx = mode == Mode::in_place ? gc.layouts.d : gc.layouts.x;
    std::vector<T> d(buffer_size(ld), T(-7.5)), x(buffer_size(gc.layouts.x), T(-7.5));
    std::mt19937_64 gen(test_seed(static_cast<std::uint64_t>(gc.groups)));
    std::uniform_real_distribution<double> u(-1, 1);
    for_each_offset(ld, [&](std::int64_t o) { d[o] = T(u(gen)); });
    if (mode == Mode::separate) {
      for_each_offset(gc.layouts.x,
                      [&](std::int64_t o) { x[o] = std::numeric_limits<T>::quiet_NaN(); });
    } else if (mode == Mode::increment) {
      for_each_offset(gc.layouts.x, [&](std::int64_t o) { x[o] = T(u(gen)); });
    }
    const std::vector<T> d0 = d;
    std::vector<T> d_ref = d, x_ref = x;
    solve_grouped_oracle(gc, mode, d_ref, x_ref);
    run_mode(mode, d, x);
    if (::testing::Test::HasFatalFailure()) return;
    const std::vector<T>& got = mode == Mode::in_place ? d : x;
    const std::vector<T>& want = mode == Mode::in_place ? d_ref : x_ref;
    ASSERT_TRUE(outputs_match(lx, got, want, gc.condition));
    const auto in_x = covered(lx, got.size());
    for (std::size_t o = 0; o < got.size(); ++o) {
      if (!in_x[o]) ASSERT_EQ(got[o], T(-7.5)) << "padding at " << o << " written";
    }
    if (mode != Mode::in_place) {
      for (std::size_t o = 0; o < d.size(); ++o) ASSERT_EQ(d[o], d0[o]) << "d changed at " << o;
    }
  }
}

}  // namespace triax::test
