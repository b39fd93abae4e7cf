// The elements the API promises never to read (a[0] and c[n-1] of every system) placed in a page
// the process may not touch, on every CPU algorithm, both axes of a 2-D batch, float and double,
// sizes around the vector and tile widths, batches that fill a tile of systems and batches that
// do not, and coefficients that are full arrays or broadcasts (including systems of zero rows,
// whose arrays may hold nothing at all). A read of one element too many ends the process with
// SIGSEGV. The same elements set to NaN must not change x either.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cpu/host_solvers.hpp"
#include "support/guarded_pages.hpp"

namespace triax::test {
namespace {

template <class T>
class PageGuard : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(PageGuard, ValueTypes);

constexpr Algorithm cpu_algorithms[] = {Algorithm::cpu_thomas, Algorithm::cpu_thomas_transpose,
                                        Algorithm::cpu_thomas_partitioned};
constexpr std::int64_t row_counts[] = {1, 2, 3, 7, 8, 9, 31, 32, 33, 255, 256, 257};
constexpr std::int64_t system_counts[] = {1, 31, 32, 33, 70};

// How the coefficients a, b, c are laid out; d and x are always full arrays.
enum class Coefficients { full, one_per_system, one_matrix, one_value };

Layout coefficient_layout(Coefficients kind, const std::vector<std::int64_t>& shape, int axis) {
  switch (kind) {
    case Coefficients::full: return Layout::packed({shape[0], shape[1]});
    case Coefficients::one_per_system: return one_value_per_system(shape, axis);
    case Coefficients::one_matrix: {
      std::vector<std::int64_t> strides(shape.size(), 0);
      strides[axis] = 1;
      return Layout::strided(shape, strides);
    }
    case Coefficients::one_value: return Layout::strided({shape[0], shape[1]}, {0, 0});
  }
  return Layout::packed({shape[0], shape[1]});
}

// The offsets of an operand that a solve may read: every row of every system, but for a not row
// 0 and for c not row n-1.
std::vector<std::int64_t> readable_offsets(const Layout& l, int axis, int op) {
  const std::int64_t n = l.extent(axis);
  const std::int64_t systems = n == 0 ? 0 : l.size() / n;
  std::vector<std::int64_t> out;
  for (std::int64_t s = 0; s < systems; ++s) {
    for (std::int64_t i = 0; i < n; ++i) {
      if ((op == 0 && i == 0) || (op == 2 && i == n - 1)) continue;
      out.push_back(system_row_offset(l, axis, s, i));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// One operand copied into guarded memory at the offsets it may be read at.
template <class T>
std::unique_ptr<GuardedArray<T>> guarded_copy(const std::vector<std::int64_t>& offsets,
                                              const std::vector<T>& values, Guard guard) {
  const std::int64_t lo = offsets.empty() ? 1 : offsets.front();
  const std::int64_t hi = offsets.empty() ? 0 : offsets.back();
  auto g = std::make_unique<GuardedArray<T>>(lo, hi, guard);
  for (std::int64_t o : offsets) g->origin()[o] = values[o];
  return g;
}

// Solves batch (whose x, or d in place, receives the answer) with every operand in guarded
// memory: the readable elements of a, b, c, d and the output's elements, nothing more.
template <class T>
void guarded_solve(Algorithm algorithm, const OperandLayouts& layouts, int axis, Guard guard,
                   Mode mode, Batch<T>& batch) {
  const std::vector<T>* in[4] = {&batch.a, &batch.b, &batch.c, &batch.d};
  const Layout* lay[4] = {&layouts.a, &layouts.b, &layouts.c, &layouts.d};
  std::unique_ptr<GuardedArray<T>> g[5];
  for (int op = 0; op < 4; ++op) {
    g[op] = guarded_copy(readable_offsets(*lay[op], axis, op), *in[op], guard);
  }
  const std::vector<std::int64_t> x_offsets = readable_offsets(layouts.x, axis, 4);
  g[4] = guarded_copy(x_offsets, batch.x, guard);
  // One thread: a guard test needs no parallelism, and the loaded test machine idles less.
  Solver<T> s(Backend::cpu, layouts, axis, {.algorithm = algorithm, .num_threads = 1});
  if (mode == Mode::in_place) {
    s.solve_in_place(g[0]->origin(), g[1]->origin(), g[2]->origin(), g[3]->origin());
    for (std::int64_t o : x_offsets) batch.d[o] = g[3]->origin()[o];
  } else {
    s.solve(g[0]->origin(), g[1]->origin(), g[2]->origin(), g[3]->origin(), g[4]->origin());
    for (std::int64_t o : x_offsets) batch.x[o] = g[4]->origin()[o];
  }
}

TYPED_TEST(PageGuard, NeverReadsPastWhatTheApiAllows) {
  using T = TypeParam;
  const Coefficients kinds[] = {Coefficients::full, Coefficients::one_per_system,
                                Coefficients::one_matrix, Coefficients::one_value};
  // Every size with full coefficients; broadcasts (a different read path in each kernel) at
  // the sizes where their special cases lie, zero rows among them.
  const std::vector<std::int64_t> all_ns(std::begin(row_counts), std::end(row_counts));
  const std::vector<std::int64_t> all_systems(std::begin(system_counts), std::end(system_counts));
  const std::vector<std::int64_t> broadcast_ns = {0, 1, 2, 9, 33};
  const std::vector<std::int64_t> broadcast_systems = {1, 33};
  int k = 0;
  for (Coefficients kind : kinds) {
    const bool full = kind == Coefficients::full;
    for (std::int64_t n : full ? all_ns : broadcast_ns) {
      for (std::int64_t systems : full ? all_systems : broadcast_systems) {
        for (int axis = 0; axis < 2; ++axis) {
          const std::vector<std::int64_t> shape =
              axis == 0 ? std::vector<std::int64_t>{n, systems} : std::vector<std::int64_t>{systems, n};
          const Layout packed = Layout::packed({shape[0], shape[1]});
          const Layout coef = coefficient_layout(kind, shape, axis);
          const OperandLayouts layouts(coef, coef, coef, packed, packed);
          Batch<T> batch{layouts};
          const std::uint64_t seed = test_seed(k++);
          batch.fill_random(seed);
          Batch<T> want = batch;
          if (n > 0) {
            Solver<T>(Backend::reference, layouts, axis)
                .solve(want.a.data(), want.b.data(), want.c.data(), want.d.data(), want.x.data());
          }
          for (Algorithm algorithm : cpu_algorithms) {
            for (Guard guard : {Guard::before, Guard::after}) {
              for (Mode mode : {Mode::separate, Mode::in_place}) {
                SCOPED_TRACE(std::string(to_string(algorithm)) + ", coefficients " +
                             std::to_string(static_cast<int>(kind)) + ", n " + std::to_string(n) +
                             ", systems " + std::to_string(systems) + ", axis " +
                             std::to_string(axis) + ", guard " +
                             (guard == Guard::before ? "before" : "after") + ", " +
                             to_string(mode) + ", seed " + std::to_string(seed));
                Batch<T> got = batch;
                guarded_solve(algorithm, layouts, axis, guard, mode, got);
                if (n == 0) continue;  // nothing to compare: the point was not to crash
                ASSERT_TRUE(outputs_match(packed, mode == Mode::in_place ? got.d : got.x, want.x,
                                          batch.condition));
              }
            }
          }
        }
      }
    }
  }
}

// a[0] and c[n-1] of every system set to NaN leave x bit for bit as it was with them 0.
TYPED_TEST(PageGuard, IgnoredCornersDoNotReachX) {
  using T = TypeParam;
  int k = 0;
  for (std::int64_t n : row_counts) {
    for (std::int64_t systems : system_counts) {
      for (int axis = 0; axis < 2; ++axis) {
        const Layout layout = systems_along(axis, n, systems);
        Batch<T> clean{OperandLayouts(layout)};
        const std::uint64_t seed = test_seed(k++);
        clean.fill_random(seed);
        Batch<T> poisoned = clean;
        for (std::int64_t s = 0; s < systems; ++s) {
          const std::int64_t first = system_row_offset(layout, axis, s, 0);
          const std::int64_t last = system_row_offset(layout, axis, s, n - 1);
          clean.a[first] = clean.c[last] = T(0);
          poisoned.a[first] = poisoned.c[last] = std::numeric_limits<T>::quiet_NaN();
        }
        for (Algorithm algorithm : cpu_algorithms) {
          SCOPED_TRACE(std::string(to_string(algorithm)) + ", n " + std::to_string(n) +
                       ", systems " + std::to_string(systems) + ", axis " + std::to_string(axis) +
                       ", seed " + std::to_string(seed));
          Batch<T> x0 = clean, x1 = poisoned;
          Solver<T> s(Backend::cpu, layout, axis, {.algorithm = algorithm});
          s.solve(x0.a.data(), x0.b.data(), x0.c.data(), x0.d.data(), x0.x.data());
          s.solve(x1.a.data(), x1.b.data(), x1.c.data(), x1.d.data(), x1.x.data());
          ASSERT_TRUE(same_bits(x0.x, x1.x));
        }
      }
    }
  }
}

}  // namespace
}  // namespace triax::test
