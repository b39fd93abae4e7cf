// Every CUDA algorithm against the reference backend on the shape classes of triax-bench's
// `--suite shapes`, drawn small and afresh each run (TRIAX_TEST_SEED=s repeats a run; fewer
// draws with TRIAX_TEST_QUICK=1): odd lengths along every axis of 2-D to 5-D arrays, ghost layers
// and misaligned starts (the padding holds a sentinel that must come back untouched), 1 to
// thousands of systems, few long systems, broadcast coefficients, separate output and increment
// mode.
#include <gtest/gtest.h>

#include <string>

#include "support/device_runner.hpp"
#include "support/quick_mode.hpp"
#include "support/shape_draws.hpp"

namespace triax::test {
namespace {

template <class T>
class CudaShapeClasses : public NeedsDevice<> {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CudaShapeClasses, ValueTypes);

constexpr Algorithm shape_algorithms[] = {Algorithm::automatic,
                                          Algorithm::cuda_thread_thomas,
                                          Algorithm::cuda_thread_thomas_shared_transpose,
                                          Algorithm::cuda_thread_thomas_shuffle_transpose,
                                          Algorithm::cuda_warp_thomas_pcr,
                                          Algorithm::cuda_block_thomas_pcr};

TYPED_TEST(CudaShapeClasses, MatchReference) {
  using T = TypeParam;
  const std::uint64_t seed = shape_seed();
  SCOPED_TRACE("TRIAX_TEST_SEED=" + std::to_string(seed));
  const bench::ShapeCounts counts =
      quick_mode() ? bench::ShapeCounts{3, 3, 2, 1, 5} : bench::ShapeCounts{16, 12, 10, 4, 10};
  const bench::Precision want = sizeof(T) == 4 ? bench::Precision::f32 : bench::Precision::f64;
  int k = 0;
  for (const ShapeDraw& d : bench::draw_shapes(seed, small_shape_budget(), counts)) {
    if (d.precision != want) continue;
    SCOPED_TRACE(draw_name(d));
    const OperandLayouts layouts = draw_layouts(d);
    for (Algorithm alg : shape_algorithms) {
      try {
        Solver<T> probe(Backend::cuda, layouts, d.axis, {.algorithm = alg});
      } catch (const invalid_argument&) {
        continue;  // a forced algorithm that does not take this layout
      }
      SCOPED_TRACE(to_string(alg));
      expect_matches_reference<T>(layouts, d.axis, test_mode(d.mode), seed + ++k,
                                  cuda_runner<T>(alg));
    }
  }
}

}  // namespace
}  // namespace triax::test
