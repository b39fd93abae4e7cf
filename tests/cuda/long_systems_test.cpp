// Issues 26 and 30: one or few long systems on the CUDA backend, which the Thomas-PCR hybrid
// solves by its long path (docs/algorithms.md, "Long path"). Along every axis the path reduces
// each tile of 32 consecutive chunks of a system to two equations (hybrid_kernel.cuh): along
// axis 0 a warp's own chunks, along axes >= 1 chunks spread over a block's warps. Against the
// reference backend with NaN-poisoned outputs: one system from just past the fused limit to a
// million rows, 3 and 17 systems along axis 0 and axis 1, few systems along axes 1, 2 and of a
// 4-D array with odd lengths and ghost layers, every mode; systems scaled by 2^k near both ends
// of the range; checked mode with a zero pivot inside the second tile, along axes 0, 1 and 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "core/normalize.hpp"
#include "cuda/scalar/block/hybrid.hpp"
#include "cuda/scalar/block/long_block.hpp"
#include "scaled_systems.hpp"

namespace triax::test {
namespace {

template <class T>
class CudaLongSystems : public NeedsDevice<> {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CudaLongSystems, ValueTypes);

/// Rows per chunk on the long path (hybrid.cu, long_path_chunk) and per tile of 32 chunks.
template <class T>
constexpr std::int64_t tile_rows = 32 * (sizeof(T) == 4 ? 16 : 8);

/// Extents of a few systems of n rows along `axis`: 3 systems along axes 0 and 1, 3 x 2 along
/// axis 2 (a batch of two dimensions, the rows of S = 4 or 8 systems per block leave partly
/// empty).
inline std::vector<std::int64_t> long_extents(std::int64_t n, int axis) {
  if (axis == 0) return {n, 3};
  if (axis == 1) return {3, n};
  return {3, 2, n};
}

/// The block family's choice for the layout takes the long path in tiles: more rows than one
/// block's chunks hold, a multiple of 32 chunk threads; chunk threads adjacent along axis 0,
/// neighbouring systems adjacent along the others (the tiles then meet in shared memory).
template <class T>
void expect_tiled_long_path(const OperandLayouts& layouts, int axis) {
  detail::cuda::HybridConfig cfg;
  ASSERT_TRUE(detail::cuda::hybrid_choose<T>(detail::normalize(layouts, axis),
                                             detail::cuda::HybridFamily::block, cfg));
  const std::int64_t n = layouts.d.extent(axis);
  ASSERT_GT(n, std::int64_t(cfg.M) * cfg.P * cfg.C) << "fused, not the long path";
  if (axis == 0) {
    ASSERT_NE(cfg.map, detail::cuda::Mapping::system_fastest);
  } else {
    ASSERT_EQ(cfg.map, detail::cuda::Mapping::system_fastest);
  }
  ASSERT_EQ(cfg.P % 32, 0);
  if (axis == 0) return;
  // Along axes >= 1 a block long_block.hpp allows; float by default (no
  // TRIAX_CUDA_HYBRID_LONG_AXES) rows in whole 32-byte sectors per block and blocks of 256
  // threads (two per SM), double round 1's.
  ASSERT_TRUE(detail::cuda::long_block_valid({cfg.P, cfg.S})) << cfg.P << "," << cfg.S;
  if (std::getenv("TRIAX_CUDA_HYBRID_LONG_AXES") != nullptr) return;
  const detail::cuda::LongBlock want =
      detail::cuda::long_axes_block(static_cast<int>(sizeof(T)), n, cfg.M, {0, 0});
  ASSERT_EQ(cfg.P, want.P);
  ASSERT_EQ(cfg.S, want.S);
  if (sizeof(T) == 4) {
    ASSERT_GE(cfg.S * static_cast<int>(sizeof(T)), 32);
    ASSERT_LE(cfg.S * cfg.P, 256);
  }
}
template <class T>
void expect_tiled_long_path(const Layout& layout, int axis) {
  expect_tiled_long_path<T>(OperandLayouts(layout), axis);
}

TYPED_TEST(CudaLongSystems, OneSystemMatchesReference) {
  using T = TypeParam;
  const std::vector<std::int64_t> sizes =
      quick_mode() ? std::vector<std::int64_t>{8193, 65537}
                   : std::vector<std::int64_t>{8193, 10001, 65537, 100000, 1000000};
  int k = 0;
  for (std::int64_t n : sizes) {
    const Layout layout = Layout::packed({n});
    ASSERT_NO_FATAL_FAILURE(expect_tiled_long_path<T>(layout, 0));
    for (Mode mode : all_modes) {
      if (quick_mode() && mode != Mode::increment) continue;
      SCOPED_TRACE("n " + std::to_string(n));
      expect_matches_reference<T>(OperandLayouts(layout), 0, mode, 7001 + ++k,
                                  cuda_runner<T>(Algorithm::cuda_block_thomas_pcr));
    }
  }
  // The default choice on one long system.
  expect_matches_reference<T>(OperandLayouts(Layout::packed({100000})), 0, Mode::separate, 7000,
                              cuda_runner<T>(Algorithm::automatic));
}

// A few systems of 10^5 + 3 rows (a partial last tile and a partial last block) along axis 0
// and axis 1, every mode: tiles along both.
TYPED_TEST(CudaLongSystems, FewSystemsAlongBothAxes) {
  using T = TypeParam;
  const std::int64_t n = 100003;
  int k = 0;
  for (std::int64_t systems : {3, 17}) {
    if (quick_mode() && systems != 3) continue;
    for (int axis = 0; axis < 2; ++axis) {
      const Layout layout = axis == 0 ? Layout::packed({n, systems}) : Layout::packed({systems, n});
      ASSERT_NO_FATAL_FAILURE(expect_tiled_long_path<T>(layout, axis));
      for (Mode mode : all_modes) {
        if (quick_mode() && mode != Mode::increment) continue;
        SCOPED_TRACE(std::to_string(systems) + " systems");
        expect_matches_reference<T>(OperandLayouts(layout), axis, mode, 7100 + ++k,
                                    cuda_runner<T>(Algorithm::cuda_block_thomas_pcr));
      }
    }
  }
}

// Few long systems along axes >= 1, where a tile's 32 chunks lie across the block's warps:
// odd lengths (a partial last tile and block), system counts that leave a block's last systems
// empty (S = 8 systems per block in float, 4 in double), 3-D and 4-D arrays, ghost layers on
// every operand and x laid out apart from the inputs. Every mode; quick mode one layout in
// increment mode.
TYPED_TEST(CudaLongSystems, FewSystemsAlongAxesAboveZero) {
  using T = TypeParam;
  struct Case {
    OperandLayouts layouts;
    int axis;
  };
  const Layout ghost = Layout::padded({6, 50001}, {8, 50003}, {1, 1});
  const Layout apart = Layout::padded({6, 50001}, {9, 50002}, {2, 0});
  std::vector<Case> cases = {{OperandLayouts(Layout::packed({5, 20011})), 1}};
  if (!quick_mode()) {
    cases.push_back({OperandLayouts(Layout::packed({2, 100003})), 1});
    cases.push_back({OperandLayouts(Layout::packed({7, 3, 40001})), 2});
    cases.push_back({OperandLayouts(Layout::packed({3, 9001, 2, 2})), 1});
    cases.push_back({OperandLayouts(Layout::packed({2, 3, 5, 12289})), 3});
    cases.push_back({OperandLayouts(ghost), 1});
    cases.push_back({OperandLayouts(ghost, ghost, ghost, ghost, apart), 1});
  }
  int k = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    SCOPED_TRACE("case " + std::to_string(i));
    ASSERT_NO_FATAL_FAILURE(expect_tiled_long_path<T>(c.layouts, c.axis));
    for (Mode mode : all_modes) {
      if (quick_mode() && mode != Mode::increment) continue;
      expect_matches_reference<T>(c.layouts, c.axis, mode, 7150 + ++k,
                                  cuda_runner<T>(Algorithm::cuda_block_thomas_pcr));
    }
  }
  // The default choice on few long systems along axis 1.
  expect_matches_reference<T>(OperandLayouts(Layout::packed({16, 65537})), 1, Mode::separate, 7149,
                              cuda_runner<T>(Algorithm::automatic));
}

// Systems multiplied by 2^k, k at both ends of the exact range and at the kernels' scaling
// window (row_scale.cuh): each system's backward error within 4 units of rounding of the
// unscaled one's, every x finite, info 0 in checked mode.
TYPED_TEST(CudaLongSystems, ScaledSystemsSolveAsTheUnscaledOne) {
  using T = TypeParam;
  const long double eps = std::numeric_limits<T>::epsilon();
  const int lo = min_exact_scale<T>(), hi = max_exact_scale<T>();
  const int emin = std::numeric_limits<T>::min_exponent - 1;
  const int w = sizeof(T) == 4 ? 64 : 512;
  const std::vector<int> ks =
      quick_mode() ? std::vector<int>{lo, hi}
                   : std::vector<int>{lo, lo + 1, emin - 1, -w - 3, w - 1, hi - 1, hi};
  const std::vector<std::int64_t> sizes =
      quick_mode() ? std::vector<std::int64_t>{8193} : std::vector<std::int64_t>{8193, 100003};
  int seed = 0;
  for (std::int64_t n : sizes) {
    for (int axis = 0; axis < 3; ++axis) {
      const std::vector<std::int64_t> extents = long_extents(n, axis);
      const GridSystems<T> base = random_grid<T>(extents, axis, 7200 + ++seed);
      for (bool checked : {false, true}) {
        const std::string what = "n " + std::to_string(n) + ", axis " + std::to_string(axis) +
                                 (checked ? ", checked" : "");
        DeviceSolve<T> unscaled;
        ASSERT_NO_FATAL_FAILURE(
            device_solve(base, Algorithm::cuda_block_thomas_pcr, checked, unscaled));
        const auto be0 = backward_errors(base, unscaled.x);
        ASSERT_LE(*std::max_element(be0.begin(), be0.end()), 16 * eps) << what << ", k 0";
        for (int k : ks) {
          const GridSystems<T> g = scaled(base, k);
          DeviceSolve<T> got;
          ASSERT_NO_FATAL_FAILURE(device_solve(g, Algorithm::cuda_block_thomas_pcr, checked, got));
          const auto be = backward_errors(g, got.x);
          for (std::int64_t s = 0; s < g.count(); ++s) {
            EXPECT_LE(be[s], be0[s] + 4 * eps) << what << ", k " << k << ", system " << s;
            if (checked) EXPECT_EQ(got.info[s], 0) << what << ", k " << k << ", system " << s;
          }
        }
      }
    }
  }
}

// Checked mode: a zero pivot (a = b = 0 in one row, so the plain Thomas pivot there is exactly 0)
// inside the second tile of system 1 of 3 (of 6 along axis 2), along axes 0, 1 and 2. info of
// that system is the row + 1 (LAPACK style); the other systems report 0 and are solved.
TYPED_TEST(CudaLongSystems, CheckedZeroPivotInTheSecondTile) {
  using T = TypeParam;
  const long double eps = std::numeric_limits<T>::epsilon();
  const std::int64_t row = tile_rows<T> + 100;  // tile 1 (the second) of chunks of M rows
  const std::vector<std::int64_t> sizes =
      quick_mode() ? std::vector<std::int64_t>{8193} : std::vector<std::int64_t>{8193, 100003};
  int seed = 0;
  for (std::int64_t n : sizes) {
    for (int axis = 0; axis < 3; ++axis) {
      const std::vector<std::int64_t> extents = long_extents(n, axis);
      GridSystems<T> g = random_grid<T>(extents, axis, 7300 + ++seed);
      const std::int64_t e = g.element(1, row);
      g.a[e] = T(0);
      g.b[e] = T(0);
      DeviceSolve<T> got;
      ASSERT_NO_FATAL_FAILURE(device_solve(g, Algorithm::cuda_block_thomas_pcr, true, got));
      const auto be = backward_errors(g, got.x);
      const std::string what = "n " + std::to_string(n) + ", axis " + std::to_string(axis);
      EXPECT_EQ(got.info[1], row + 1) << what;
      for (std::int64_t s = 0; s < g.count(); ++s) {
        if (s == 1) continue;
        EXPECT_EQ(got.info[s], 0) << what << ", system " << s;
        EXPECT_LE(be[s], 16 * eps) << what << ", system " << s;
      }
    }
  }
}

}  // namespace
}  // namespace triax::test
