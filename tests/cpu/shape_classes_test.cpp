// Every CPU algorithm against the reference backend on the shape classes of triax-bench's
// `--suite shapes`, drawn small and afresh each run (TRIAX_TEST_SEED=s repeats a run): odd
// lengths along every axis of 2-D to 5-D arrays, ghost layers and misaligned starts (the padding
// holds a sentinel that must come back untouched), 1 to thousands of systems, few long systems,
// broadcast coefficients, separate output and increment mode.
#include <gtest/gtest.h>

#include "cpu/host_solvers.hpp"
#include "support/shape_draws.hpp"

namespace triax::test {
namespace {

template <class T>
class CpuShapeClasses : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CpuShapeClasses, ValueTypes);

TYPED_TEST(CpuShapeClasses, MatchReference) {
  using T = TypeParam;
  const std::uint64_t seed = shape_seed();
  SCOPED_TRACE("TRIAX_TEST_SEED=" + std::to_string(seed));
  const bench::ShapeCounts counts{12, 10, 8, 3, 10};
  const bench::Precision want = sizeof(T) == 4 ? bench::Precision::f32 : bench::Precision::f64;
  int k = 0;
  for (const ShapeDraw& d : bench::draw_shapes(seed, small_shape_budget(), counts)) {
    if (d.precision != want) continue;
    SCOPED_TRACE(draw_name(d));
    for (const HostSolver& s : thomas_solvers) {
      if (s.backend != Backend::cpu) continue;
      SCOPED_TRACE(s.name());
      const OperandLayouts layouts = draw_layouts(d);
      try {
        Solver<T> probe(s.backend, layouts, d.axis, {.algorithm = s.algorithm});
      } catch (const invalid_argument&) {
        continue;  // a forced algorithm that does not take this layout
      }
      expect_matches_reference<T>(layouts, d.axis, test_mode(d.mode), seed + ++k,
                                  host_runner<T>(s.backend, s.algorithm));
    }
  }
}

}  // namespace
}  // namespace triax::test
