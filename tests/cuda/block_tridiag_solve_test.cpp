// The CUDA block tridiagonal kernels against the dense long double oracle, beside the reference
// block backend on the same inputs: each GPU algorithm (cuda_block_thread_thomas,
// cuda_block_coop_thomas) for every M = 1..8, every axis of 1-D to 4-D grids, the three named
// layouts with and without ghost layers (input padding NaN, output padding a sentinel that must
// come back bit for bit), every output mode, float and double; partial warps and several thread
// blocks; checked mode's info for singular pivot blocks and non-finite data. Every test is
// parameterised by algorithm, the coop kernel's variant (TRIAX_CUDA_BLOCK_COOP, set while the
// plan is made) and M (names like coop_m5, coop_shuffle_m5), so the sanitizer runs can filter:
// --gtest_filter='*BlockCuda*coop_m3*' is a racecheck-sized subset.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "support/block_cases.hpp"
#include "support/device_runner.hpp"
#include "support/scoped_env.hpp"

namespace triax::test {
namespace {

/// A GPU algorithm and, for the coop kernel, its variant (TRIAX_CUDA_BLOCK_COOP; nullptr: unset,
/// the default).
struct GpuKernel {
  BlockAlgorithm algorithm;
  const char* coop_variant = nullptr;
};

/// The batch's buffers on the device (padding and poison included), solved there and copied back.
template <class T>
void solve_on_device(GpuKernel kernel, Mode mode, BlockBatch<T>& batch,
                     std::vector<int>* info = nullptr) {
  const BlockAlgorithm algorithm = kernel.algorithm;
  const BlockGeometry& g = batch.g;
  cudaStream_t stream;
  TRIAX_TEST_CUDA_OK(cudaStreamCreate(&stream));
  DeviceBuffer<T> a(batch.a), b(batch.b), c(batch.c), d(batch.d), x(batch.x);
  DeviceBuffer<int> device_info(info != nullptr ? *info : std::vector<int>(1, -1));
  ASSERT_TRUE(a.get() && b.get() && c.get() && d.get() && x.get() && device_info.get())
      << "cudaMalloc failed";
  {
    const ScopedEnv variant("TRIAX_CUDA_BLOCK_COOP", kernel.coop_variant);  // read by the plan
    BlockSolver<T> solver(Backend::cuda, g.m, g.layouts, g.axis,
                          {.checked = info != nullptr, .stream = stream}, algorithm);
    ASSERT_EQ(solver.algorithm(), algorithm);
    solve_in_mode(solver, mode, std::tuple(a.get(), b.get(), c.get()), d.get(), x.get(),
                  info != nullptr ? device_info.get() : nullptr);
    TRIAX_TEST_CUDA_OK(cudaStreamSynchronize(stream));
    TRIAX_TEST_CUDA_OK(cudaGetLastError());
  }
  a.download(batch.a);  // a, b, c too: the check wants them untouched
  b.download(batch.b);
  c.download(batch.c);
  d.download(batch.d);
  x.download(batch.x);
  if (info != nullptr) device_info.download(*info);
  TRIAX_TEST_CUDA_OK(cudaStreamDestroy(stream));
}

/// One case on the reference backend (host) and on the GPU algorithm, each checked against the
/// oracle. Returns false after the first failure.
template <class T>
bool expect_solves(GpuKernel algorithm, const BlockGeometry& g, BlockKind kind, Mode mode,
                   std::uint64_t seed) {
  SCOPED_TRACE("m " + std::to_string(g.m) + ", grid rank " + std::to_string(g.grid.size()) +
               ", axis " + std::to_string(g.axis) + ", " + to_string(kind) + ", " +
               to_string(mode) + ", seed " + std::to_string(seed) + ", " +
               (sizeof(T) == 4 ? "float" : "double"));
  BlockCase<T> solve_case(g, kind, mode, seed);
  BlockBatch<T> on_host = solve_case.before;
  BlockSolver<T> reference(Backend::reference, g.m, g.layouts, g.axis);
  run_block_mode(reference, on_host, mode);
  if (!solve_case.check(on_host)) return false;
  BlockBatch<T> on_device = solve_case.before;
  solve_on_device(algorithm, mode, on_device);
  return !::testing::Test::HasFailure() && solve_case.check(on_device);
}

struct GpuBlockCase {
  GpuKernel algorithm;
  int m;
};
// What gtest and ctest print for a parameter.
void PrintTo(const GpuBlockCase& c, std::ostream* os) {
  *os << to_string(c.algorithm.algorithm);
  if (c.algorithm.coop_variant != nullptr) *os << " (" << c.algorithm.coop_variant << ")";
  *os << ", m = " << c.m;
}

std::string case_name(const ::testing::TestParamInfo<GpuBlockCase>& info) {
  const GpuKernel& k = info.param.algorithm;
  std::string name = k.algorithm == BlockAlgorithm::cuda_block_coop_thomas ? "coop" : "thread";
  if (k.coop_variant != nullptr) name += std::string("_") + k.coop_variant;
  return name + "_m" + std::to_string(info.param.m);
}

/// The thread kernel, the coop kernel as the plan makes it by default, and each coop variant;
/// the tuned kernels of the float M = 8 sweep (block_launchers.hpp, coop_tunes) at the two M
/// they are compiled for (float, column stride 1; double and other layouts run `shared`).
std::vector<GpuBlockCase> every_algorithm_and_m() {
  const GpuKernel kernels[] = {{BlockAlgorithm::cuda_block_thread_thomas},
                               {BlockAlgorithm::cuda_block_coop_thomas},
                               {BlockAlgorithm::cuda_block_coop_thomas, "shared"},
                               {BlockAlgorithm::cuda_block_coop_thomas, "shuffle"},
                               {BlockAlgorithm::cuda_block_coop_thomas, "shared_occupancy"}};
  const char* const tunes[] = {"tuned_w4_r64_ls", "tuned_w4_r64_rcp_ls"};
  std::vector<GpuBlockCase> cases;
  for (const GpuKernel& kernel : kernels) {
    for (int m = 1; m <= 8; ++m) cases.push_back({kernel, m});
  }
  for (const char* tune : tunes) {
    for (int m : {5, 8}) cases.push_back({{BlockAlgorithm::cuda_block_coop_thomas, tune}, m});
  }
  return cases;
}

class BlockCudaSolve : public NeedsDevice<::testing::TestWithParam<GpuBlockCase>> {};

template <class T>
void every_axis_layout_and_mode(const GpuBlockCase& param) {
  std::uint64_t k = 0;
  for (const auto& grid : block_test_grids) {
    for (int axis = 0; axis < static_cast<int>(grid.size()); ++axis) {
      for (Storage s : storages) {
        SCOPED_TRACE(to_string(s));
        const bool ghost = (param.m + axis + static_cast<int>(s)) % 2 == 0;
        const BlockGeometry g = geometry(s, param.m, grid, axis, ghost);
        // One output mode per (grid, axis, layout), in turn: every mode meets every M, axis and
        // layout, at a third of the solves of the full product (each solve makes a plan).
        const Mode mode = all_modes[k % 3];
        const BlockKind kind = (k / 3) % 2 ? BlockKind::factored : BlockKind::dominant;
        if (!expect_solves<T>(param.algorithm, g, kind, mode, test_seed(k++))) return;
      }
    }
  }
}

TEST_P(BlockCudaSolve, EveryAxisLayoutAndModeMatchesOracle) {
  every_axis_layout_and_mode<float>(GetParam());
  if (!HasFailure()) every_axis_layout_and_mode<double>(GetParam());
}

// Systems that fill no whole warp of groups (37 systems: 4 or 8 a warp for the coop kernel's
// groups of 8 or 4 lanes), several thread blocks (300 systems), and long recurrences.
TEST_P(BlockCudaSolve, PartialWarpsManyBlocksAndLongSystems) {
  const int m = GetParam().m;
  const std::int64_t n = m <= 4 ? 24 : 12;  // the dense oracle's cost grows as (n m)^3
  const GpuKernel algorithm = GetParam().algorithm;
  for (BlockKind kind : {BlockKind::dominant, BlockKind::factored}) {
    expect_solves<float>(algorithm, geometry(Storage::array_of_blocks, m, {n, 37}, 0, false), kind,
                         Mode::in_place, test_seed(1));
    expect_solves<double>(algorithm, geometry(Storage::interleaved, m, {37, n}, 1, true), kind,
                          Mode::separate, test_seed(2));
    expect_solves<double>(algorithm, geometry(Storage::structure_of_arrays, m, {6, 300}, 0, true),
                          kind, Mode::increment, test_seed(3));
  }
}

/// The case's a, b, c and d (padding included: NaN stays NaN) times 2^k, the largest finite entry
/// brought into [2^(max_exponent - 2), 2^(max_exponent - 1)) when `to_top`, else times 2^-100.
/// The solution is the same; the pivots then lie near and above 2^126 (float) / 2^1022 (double),
/// where an approximate reciprocal flushes to 0.
template <class T>
void scale_by_power_of_two(BlockCase<T>& c, bool to_top) {
  BlockBatch<T>& b = c.before;
  int k = -100;
  if (to_top) {
    double largest = 0;
    for (const std::vector<T>* v : {&b.a, &b.b, &b.c, &b.d}) {
      for (T e : *v) {
        if (std::isfinite(e)) largest = std::max(largest, std::abs(double(e)));
      }
    }
    int e = 0;
    std::frexp(largest, &e);  // largest in [2^(e-1), 2^e)
    k = std::numeric_limits<T>::max_exponent - 1 - e;
  }
  for (std::vector<T>* v : {&b.a, &b.b, &b.c, &b.d}) {
    for (T& e : *v) e = std::ldexp(e, k);
  }
}

// Scale invariance (issue 34): a system times a power of two has the same solution, with pivots
// at the top of the range or far below 1. Float for every variant and tune (the tunes' `rcp`
// knob is float's), double for the kernels that have it; blocks of column stride 1, where the
// tunes run.
template <class T>
void expect_scaled_solves(const GpuBlockCase& param) {
  const BlockGeometry g = geometry(Storage::array_of_blocks, param.m, {9, 37}, 0, false);
  for (bool to_top : {true, false}) {
    SCOPED_TRACE(std::string(to_top ? "scaled to the top of the range" : "scaled by 2^-100") +
                 (sizeof(T) == 4 ? ", float" : ", double"));
    BlockCase<T> solve_case(g, BlockKind::dominant, Mode::separate, test_seed(param.m));
    scale_by_power_of_two(solve_case, to_top);
    BlockBatch<T> on_device = solve_case.before;
    solve_on_device(param.algorithm, Mode::separate, on_device);
    if (::testing::Test::HasFailure() || !solve_case.check(on_device)) return;
  }
}

TEST_P(BlockCudaSolve, SystemsScaledByPowersOfTwoSolveAsTheUnscaled) {
  expect_scaled_solves<float>(GetParam());
  if (!HasFailure()) expect_scaled_solves<double>(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Algorithms, BlockCudaSolve, ::testing::ValuesIn(every_algorithm_and_m()),
                         case_name);

// ---- checked mode ----

class BlockCudaChecked : public BlockCudaSolve {};

template <class T>
void expect_faults_reported(const GpuBlockCase& param) {
  for (Storage s : storages) {
    for (int axis = 0; axis < 2; ++axis) {
      const FaultyBlocks<T> faulty(s, param.m, axis);
      for (Mode mode : {Mode::in_place, Mode::separate, Mode::increment}) {
        SCOPED_TRACE(std::string(to_string(s)) + ", axis " + std::to_string(axis) + ", " +
                     to_string(mode) + ", " + (sizeof(T) == 4 ? "float" : "double"));
        BlockBatch<T> batch = faulty.batch;
        std::vector<int> info(static_cast<std::size_t>(batch.g.systems()), -1);
        solve_on_device(param.algorithm, mode, batch, &info);
        faulty.expect_info(info);
        BlockBatch<T> unchecked = faulty.batch;
        solve_on_device(param.algorithm, mode, unchecked);
        faulty.expect_breakdowns_visible(unchecked, mode);
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
}

TEST_P(BlockCudaChecked, SingularPivotBlocksAndNonFiniteDataAreReportedAtTheirRow) {
  expect_faults_reported<float>(GetParam());
  if (!HasFailure()) expect_faults_reported<double>(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Algorithms, BlockCudaChecked, ::testing::ValuesIn(every_algorithm_and_m()),
                         case_name);

// ---- the plan ----

TEST(BlockCudaPlan, AutomaticIsTheCoopKernelAndEmptyBatchesClearInfoOnTheDevice) {
  TRIAX_NEED_DEVICE();
  const BlockLayouts l = BlockLayouts::interleaved(5, {16, 9}, 0);
  EXPECT_EQ(BlockSolver<double>(Backend::cuda, 5, l, 0).algorithm(),
            BlockAlgorithm::cuda_block_coop_thomas);
  // Systems of no block rows: info (device memory) says solved; null pointers are fine.
  const BlockLayouts empty = BlockLayouts::array_of_blocks(3, {0, 4});
  BlockSolver<float> solver(Backend::cuda, 3, empty, 0, {.checked = true});
  ASSERT_EQ(solver.system_count(), 4);
  DeviceBuffer<int> info(std::vector<int>(4, -1));
  solver.solve(nullptr, nullptr, nullptr, nullptr, nullptr, info.get());
  TRIAX_TEST_CUDA_OK(cudaDeviceSynchronize());
  std::vector<int> host(4, -1);
  info.download(host);
  EXPECT_EQ(host, std::vector<int>(4, 0));
}

// Rejected before any device work, so these run without a GPU too.
TEST(BlockCudaPlan, RejectsAnUnknownCoopVariantBeforeAllocating) {
  const BlockLayouts l = BlockLayouts::array_of_blocks(4, {6, 3});
  const ScopedEnv variant("TRIAX_CUDA_BLOCK_COOP", "fastest");
  try {
    BlockSolver<float> solver(Backend::cuda, 4, l, 0);
    ADD_FAILURE() << "TRIAX_CUDA_BLOCK_COOP=fastest accepted";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("fastest"), std::string::npos) << e.what();
  }
}

// Only the tunes that are compiled are names: a knob value outside coop_tunes is an error.
TEST(BlockCudaPlan, RejectsATuneThatIsNotCompiled) {
  const BlockLayouts l = BlockLayouts::array_of_blocks(8, {6, 3});
  for (const char* name :
       {"tuned_w3", "tuned_w4_r60", "tuned_w8_rcp", "tuned_w4_ls_rcp", "tuned_", "tuned_w2"}) {
    const ScopedEnv variant("TRIAX_CUDA_BLOCK_COOP", name);
    EXPECT_THROW(BlockSolver<float>(Backend::cuda, 8, l, 0), invalid_argument) << name;
  }
}

TEST(BlockCudaPlan, RejectsAlgorithmsOfOtherBackendsAndBlocksBeyondEight) {
  const BlockLayouts l4 = BlockLayouts::array_of_blocks(4, {6, 3});
  EXPECT_THROW(BlockSolver<double>(Backend::cuda, 4, l4, 0, {}, BlockAlgorithm::cpu_block_thomas),
               invalid_argument);
  const BlockLayouts l9 = BlockLayouts::array_of_blocks(9, {6, 3});
  try {
    BlockSolver<float> solver(Backend::cuda, 9, l9, 0);
    ADD_FAILURE() << "m = 9 accepted on cuda";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("m = 9"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace triax::test
