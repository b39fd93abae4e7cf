// triax::Solver's shared-matrix route on the GPU (cuda/factored/shared_matrix_route.hpp): one
// matrix for every system (a, b, c with batch strides 0) solved through a chunk table that one
// warp builds on the device (at each solve whose matrix differs from the last build's), and
// Thomas' factors where the build refuses the table (interior rows not diagonally dominant). TRIAX_CUDA_SHARED_MATRIX=1 takes the route at every n
// it holds (1 .. 1024); every case is checked against the reference backend on fresh random
// inputs, with poisoned padding, in every mode, and again with the route off.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "support/device_runner.hpp"
#include "support/quick_mode.hpp"
#include "support/scoped_env.hpp"

namespace triax::test {
namespace {

template <class T>
class SharedMatrixRoute : public NeedsDevice<> {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SharedMatrixRoute, ValueTypes);

std::uint64_t seed_of(const std::string& name, int k) {
  return std::hash<std::string>{}(name) + 7919u * static_cast<std::uint64_t>(k);
}

/// A 3-D grid of n rows along `axis` and the given extents across it.
std::vector<std::int64_t> grid(std::int64_t n, int axis, std::int64_t across0,
                               std::int64_t across1) {
  std::vector<std::int64_t> shape = {across0, across1};
  shape.insert(shape.begin() + axis, n);
  return shape;
}

/// One matrix for the grid: row i of a, b, c at offset i (strides 0 across the systems).
Layout one_matrix(const std::vector<std::int64_t>& shape, int axis) {
  std::vector<std::int64_t> strides(shape.size(), 0);
  strides[axis] = 1;
  return Layout::strided(shape, strides);
}

/// The random dominant matrix of fill_random with row n/2 no longer dominant (|b| < |a| + |c|)
/// and the row after it strongly dominant, so that Thomas stays well away from a small pivot:
/// the build must refuse the table and the solve fall back to the whole matrix's factors.
template <class T>
void fill_not_dominant(Batch<T>& batch, int, std::uint64_t seed) {
  batch.fill_random(seed);
  const std::int64_t n = static_cast<std::int64_t>(batch.b.size());
  const std::int64_t i = n / 2;
  ASSERT_TRUE(i >= 1 && i + 1 < n);
  batch.a[i] = T(0.9);
  batch.c[i] = T(0.5);
  batch.b[i] = T(1.2);
  batch.b[i + 1] = T(4);
  batch.condition *= 4;
}

// Every axis of a 3-D grid, n from 1 to 1024 (each chunk size of the table: 8, 16, 32 rows, and
// one to 32 chunks), d and x packed or with ghost layers, dominant matrices (the table) and, from
// n = 3, a matrix the table refuses (the fallback).
TYPED_TEST(SharedMatrixRoute, EveryAxisAndLength) {
  using T = TypeParam;
  std::vector<std::int64_t> lengths = {1, 2, 3, 5, 8, 9, 17, 64, 100, 255, 257, 511, 700, 1024};
  if (!quick_mode()) lengths.insert(lengths.end(), {4, 7, 31, 33, 129, 256, 300, 512, 513, 1000});
  const ScopedEnv route("TRIAX_CUDA_SHARED_MATRIX", "1");
  int k = 0;
  for (int axis = 0; axis < 3; ++axis) {
    for (std::int64_t n : lengths) {
      const std::vector<std::int64_t> shape = grid(n, axis, 7, 5);
      std::vector<std::int64_t> allocated = shape, begin(3, 1);
      for (std::int64_t& e : allocated) e += 2;
      const Layout matrix = one_matrix(shape, axis);
      const Layout packed = Layout::packed(shape);
      const Layout ghost = Layout::padded(shape, allocated, begin);
      const std::vector<OperandLayouts> cases = {
          OperandLayouts(matrix, matrix, matrix, packed, packed),
          OperandLayouts(matrix, matrix, matrix, ghost, ghost)};
      for (const OperandLayouts& layouts : cases) {
        for (Mode mode : all_modes) {
          SCOPED_TRACE("n " + std::to_string(n) + ", case " + std::to_string(&layouts - &cases[0]));
          expect_matches_reference<T>(layouts, axis, mode, seed_of("route", ++k),
                                      cuda_runner<T>(Algorithm::automatic));
          if (n >= 3) {
            SCOPED_TRACE("not dominant");
            expect_matches_reference<T>(layouts, axis, mode, seed_of("refused", ++k),
                                        cuda_runner<T>(Algorithm::automatic),
                                        fill_not_dominant<T>);
          }
        }
      }
    }
  }
}

// Many systems (several blocks of both table kernels and the fallback's grid-stride loop past
// its 128 blocks), a, c one value for every row (row stride 0), b a row per row; the route on
// and off on the same inputs.
TYPED_TEST(SharedMatrixRoute, ManySystemsAndScalarDiagonals) {
  using T = TypeParam;
  int k = 0;
  for (const char* sw : {"1", "0"}) {
    const ScopedEnv route("TRIAX_CUDA_SHARED_MATRIX", sw);
    for (int axis = 0; axis < 2; ++axis) {
      for (std::int64_t n : {std::int64_t(40), std::int64_t(300), std::int64_t(1000)}) {
        // n = 40: 32 systems a block in either kernel, so 5000 systems take 157 blocks.
        const std::int64_t across = n == 40 ? 5000 : (quick_mode() ? 300 : 2100);
        const std::vector<std::int64_t> shape =
            axis == 0 ? std::vector<std::int64_t>{n, across} : std::vector<std::int64_t>{across, n};
        const std::vector<std::int64_t> zero = {0, 0};
        const Layout scalar = Layout::strided(shape, zero);
        const Layout matrix = one_matrix(shape, axis);
        const Layout packed = Layout::packed(shape);
        SCOPED_TRACE(std::string("route ") + sw + ", n " + std::to_string(n));
        expect_matches_reference<T>(OperandLayouts(scalar, matrix, scalar, packed, packed), axis,
                                    all_modes[k % 3], seed_of("scalar", ++k),
                                    cuda_runner<T>(Algorithm::automatic));
        expect_matches_reference<T>(OperandLayouts(matrix, matrix, matrix, packed, packed), axis,
                                    all_modes[k % 3], seed_of("many", ++k),
                                    cuda_runner<T>(Algorithm::cuda_block_thomas_pcr),
                                    fill_not_dominant<T>);
      }
    }
  }
}

/// The route's strided table kernel at both of its block sizes, axes 1 and 2 and the given
/// lengths, on a dominant matrix (the table) and a refused one (the fallback), the modes in turn,
/// against the reference; `tag` seeds the inputs.
template <class T>
void check_strided_route(const std::string& tag, const std::vector<std::int64_t>& lengths) {
  int k = 0;
  for (const char* threads : {"512", "256"}) {
    const ScopedEnv blocks("TRIAX_CUDA_TABLE_THREADS", threads);
    for (int axis = 1; axis < 3; ++axis) {
      for (std::int64_t n : lengths) {
        const std::vector<std::int64_t> shape = grid(n, axis, 37, 5);
        const Layout matrix = one_matrix(shape, axis);
        const Layout packed = Layout::packed(shape);
        const OperandLayouts layouts(matrix, matrix, matrix, packed, packed);
        SCOPED_TRACE(std::string("threads ") + threads + ", n " + std::to_string(n));
        const Mode mode = all_modes[k % 3];
        expect_matches_reference<T>(layouts, axis, mode, seed_of(tag, ++k),
                                    cuda_runner<T>(Algorithm::automatic));
        expect_matches_reference<T>(layouts, axis, mode, seed_of(tag + " refused", ++k),
                                    cuda_runner<T>(Algorithm::automatic), fill_not_dominant<T>);
      }
    }
  }
}

// The strided table kernel reading the table through the read-only cache, not from a copy in
// each block's shared memory (TRIAX_CUDA_TABLE_SHARED=0; the default copies): every chunk size.
TYPED_TEST(SharedMatrixRoute, TableThroughTheCache) {
  const ScopedEnv route("TRIAX_CUDA_SHARED_MATRIX", "1");
  const ScopedEnv shared("TRIAX_CUDA_TABLE_SHARED", "0");
  check_strided_route<TypeParam>("shared table", {9, 64, 300, 700, 1024});
}

// The pipelined strided table kernel (TRIAX_CUDA_TABLE_PIPELINED=1: blocks looping over groups
// of systems, the next group's rows in flight behind each group's arithmetic): the chunk sizes
// it takes (8 and 16 rows; 32-row chunks keep the one-pass kernel), then batches of 12000
// systems, where every block solves many groups.
TYPED_TEST(SharedMatrixRoute, TablePipelined) {
  using T = TypeParam;
  const ScopedEnv route("TRIAX_CUDA_SHARED_MATRIX", "1");
  const ScopedEnv pipelined("TRIAX_CUDA_TABLE_PIPELINED", "1");
  check_strided_route<T>("pipelined", {9, 64, 255, 300, 512, 700});
  int k = 0;
  for (int axis = 1; axis < 3; ++axis) {
    for (std::int64_t n : {std::int64_t(64), std::int64_t(300)}) {
      const std::vector<std::int64_t> shape = grid(n, axis, 300, 40);
      const Layout matrix = one_matrix(shape, axis);
      const Layout packed = Layout::packed(shape);
      SCOPED_TRACE("many groups, n " + std::to_string(n));
      expect_matches_reference<T>(OperandLayouts(matrix, matrix, matrix, packed, packed), axis,
                                  all_modes[k % 3], seed_of("pipelined groups", ++k),
                                  cuda_runner<T>(Algorithm::automatic));
    }
  }
}

/// A runner whose device a starts one element before its allocation and whose c allocation ends
/// before its last element (batch.a and batch.c in memory order: a's first element is a row 0,
/// c's last a row n - 1): memcheck reports a read of either. `alike`: b, c, d and x start as
/// far into a 16-byte vector as a does (V - 1 elements), so that every operand's rows start
/// alike and the hybrid reads them in vectors (chunk_shifted); else they are aligned.
template <class T>
Runner<T> cornerless_runner(bool alike = false) {
  return [alike](const OperandLayouts& layouts, int axis, Mode mode, Batch<T>& batch) {
    cudaStream_t stream;
    TRIAX_TEST_CUDA_OK(cudaStreamCreate(&stream));
    const int shift = alike ? 16 / static_cast<int>(sizeof(T)) - 1 : 0;
    const std::vector<T> a_rows(batch.a.begin() + 1, batch.a.end());
    std::vector<T> c_rows(shift, std::numeric_limits<T>::quiet_NaN());
    c_rows.insert(c_rows.end(), batch.c.begin(), batch.c.end() - 1);
    const DeviceBuffer<T> a(a_rows), c(c_rows);
    const DeviceOperands<T> o(batch.a, batch.b, batch.c, batch.d, batch.x, shift);
    ASSERT_TRUE(a.get() && c.get() && o.allocated()) << "cudaMalloc failed";
    Solver<T> solver(Backend::cuda, layouts, axis,
                     {.algorithm = Algorithm::automatic, .stream = stream});
    solve_in_mode(solver, mode, std::tuple(a.get() - 1, o.b(), c.get() + shift), o.d(), o.x());
    TRIAX_TEST_CUDA_OK(cudaStreamSynchronize(stream));
    TRIAX_TEST_CUDA_OK(cudaGetLastError());
    o.download(batch.d, batch.x);
    TRIAX_TEST_CUDA_OK(cudaStreamDestroy(stream));
  };
}

// a[0] and c[n-1] are never read (include/triax/triax.hpp), by the route's build and by the
// hybrid alike: the solve runs with arrays that do not hold them (a starts one element before
// its allocation, as LAPACK's dl - 1 does, and c's allocation ends before its last element;
// memcheck's run of this test is the check that they stay unread), and still matches the
// reference. One matrix for every system (the route, on and off), then every system its own
// (packed: the hybrid's vector loads, chunk_direct and chunk_shifted, at lengths from 2 to the
// long path's).
TYPED_TEST(SharedMatrixRoute, UnreadCornersStayUnread) {
  using T = TypeParam;
  int k = 0;
  for (const char* sw : {"1", "0"}) {
    const ScopedEnv route("TRIAX_CUDA_SHARED_MATRIX", sw);
    for (int axis = 0; axis < 2; ++axis) {
      for (std::int64_t n : {2, 3, 9, 300}) {
        const std::vector<std::int64_t> shape = grid(n, axis, 33, 3);
        const Layout matrix = one_matrix(shape, axis);
        const Layout packed = Layout::packed(shape);
        SCOPED_TRACE(std::string("route ") + sw + ", n " + std::to_string(n));
        expect_matches_reference<T>(OperandLayouts(matrix, matrix, matrix, packed, packed), axis,
                                    Mode::separate, seed_of("corners", ++k),
                                    cornerless_runner<T>());
      }
    }
  }
  for (int axis = 0; axis < 3; ++axis) {
    for (std::int64_t n : {2, 3, 8, 9, 64, 300, 1024, 20000}) {
      for (bool alike : {false, true}) {
        const Layout packed = Layout::packed(grid(n, axis, 33, 3));
        SCOPED_TRACE("packed, axis " + std::to_string(axis) + ", n " + std::to_string(n) +
                     (alike ? ", rows alike" : ""));
        expect_matches_reference<T>(OperandLayouts(packed, packed, packed, packed, packed), axis,
                                    Mode::separate, seed_of("corners", ++k),
                                    cornerless_runner<T>(alike));
      }
    }
  }
}

/// A runner that keeps one cuda plan across its calls, as a caller solving again and again does
/// (the plan made at the first call, for its layouts); each call uploads fresh operands.
template <class T>
Runner<T> kept_plan_runner() {
  struct Kept {
    cudaStream_t stream = nullptr;
    std::unique_ptr<Solver<T>> solver;
    ~Kept() {
      solver.reset();
      if (stream != nullptr) cudaStreamDestroy(stream);
    }
  };
  auto kept = std::make_shared<Kept>();
  return [kept](const OperandLayouts& layouts, int axis, Mode mode, Batch<T>& batch) {
    if (!kept->solver) {
      TRIAX_TEST_CUDA_OK(cudaStreamCreate(&kept->stream));
      kept->solver = std::make_unique<Solver<T>>(
          Backend::cuda, layouts, axis,
          Options{.algorithm = Algorithm::automatic, .stream = kept->stream});
    }
    const DeviceOperands<T> o(batch.a, batch.b, batch.c, batch.d, batch.x);
    ASSERT_TRUE(o.allocated()) << "cudaMalloc failed";
    solve_in_mode(*kept->solver, mode, std::tuple(o.a(), o.b(), o.c()), o.d(), o.x());
    TRIAX_TEST_CUDA_OK(cudaStreamSynchronize(kept->stream));
    TRIAX_TEST_CUDA_OK(cudaGetLastError());
    o.download(batch.d, batch.x);
  };
}

// One plan solving one matrix after another: the build keeps the matrix of its last table and
// skips the build where the next solve's matrix is the same bit for bit, so every change must
// be seen: a dominant matrix twice (the kept table), a refused one twice (the kept factors),
// the first again, then with one value of b changed, then a fresh one.
TYPED_TEST(SharedMatrixRoute, OnePlanManyMatrices) {
  using T = TypeParam;
  const ScopedEnv route("TRIAX_CUDA_SHARED_MATRIX", "1");
  for (int axis = 0; axis < 2; ++axis) {
    for (std::int64_t n : {std::int64_t(9), std::int64_t(300)}) {
      const std::vector<std::int64_t> shape = grid(n, axis, 7, 5);
      const Layout matrix = one_matrix(shape, axis);
      const Layout packed = Layout::packed(shape);
      const OperandLayouts layouts(matrix, matrix, matrix, packed, packed);
      const Runner<T> run = kept_plan_runner<T>();
      const std::uint64_t first = seed_of("kept", int(n) + axis), refused = first + 1;
      const auto random = [](Batch<T>& batch, int, std::uint64_t seed) { batch.fill_random(seed); };
      const auto changed = [&](Batch<T>& batch, int, std::uint64_t seed) {
        batch.fill_random(seed);
        T& b = batch.b[static_cast<std::size_t>(n / 3)];
        b += b > 0 ? T(0.25) : T(-0.25);  // still dominant, one row's pivot differs
      };
      const std::function<void(Batch<T>&, int, std::uint64_t)> fills[] = {
          random, random, fill_not_dominant<T>, fill_not_dominant<T>, random, changed, random};
      const std::uint64_t seeds[] = {first, first, refused, refused, first, first, first + 2};
      for (int step = 0; step < 7; ++step) {
        SCOPED_TRACE("n " + std::to_string(n) + ", solve " + std::to_string(step));
        expect_matches_reference<T>(layouts, axis, Mode::separate, seeds[step], run, fills[step]);
      }
    }
  }
}

// Checked mode never takes the route (the table has no per-system info): the general hybrid
// reports info 0 for every system of a shared dominant matrix with the switch on.
TYPED_TEST(SharedMatrixRoute, CheckedModeKeepsTheHybrid) {
  using T = TypeParam;
  const ScopedEnv route("TRIAX_CUDA_SHARED_MATRIX", "1");
  int k = 0;
  for (std::int64_t n : {std::int64_t(5), std::int64_t(300)}) {
    const std::vector<std::int64_t> shape = grid(n, 1, 9, 4);
    const Layout matrix = one_matrix(shape, 1);
    const Layout packed = Layout::packed(shape);
    expect_matches_reference<T>(OperandLayouts(matrix, matrix, matrix, packed, packed), 1,
                                Mode::separate, seed_of("checked", ++k),
                                cuda_checked_runner<T>(Algorithm::automatic));
  }
}

}  // namespace
}  // namespace triax::test
