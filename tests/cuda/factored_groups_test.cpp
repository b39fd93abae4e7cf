// triax::FactoredSolver with one matrix per group of systems on the cuda backend, against the
// general solver on the reference backend given the same a, b, c (support/factored_groups.hpp):
// every axis of 2-D and 3-D grids with ghost layers, 1..64 groups of matrices that converge fast,
// slowly and never, the Thomas and both CR algorithms, in place / separate / increment; checked
// mode with the group dimension the slowest (a breakdown in one group only). SKIPPED without a
// device; TRIAX_TEST_QUICK=1 runs fewer cases (compute-sanitizer).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "support/device_runner.hpp"
#include "support/factored_device.hpp"
#include "support/factored_groups.hpp"

namespace triax::test {
namespace {

template <class T>
class FactoredGroupsCuda : public NeedsDevice<> {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FactoredGroupsCuda, Precisions);

template <class T>
std::shared_ptr<FactoredSolver<T>> grouped_cuda_plan(const GroupedCase<T>& gc, cudaStream_t stream,
                                                     FactoredAlgorithm algorithm, bool checked) {
  return std::make_shared<FactoredSolver<T>>(Backend::cuda, gc.a.data(), gc.b.data(), gc.c.data(),
                                             gc.coefficients, gc.layouts, gc.axis,
                                             Options{.checked = checked, .stream = stream},
                                             algorithm);
}

// The grouped plan's solve (support/factored_device.hpp: device copies of the host buffers,
// padding and poison included, solved, copied back).
template <class T>
void solve_grouped_cuda(FactoredSolver<T>& s, FactoredDeviceScratch<T>& scratch,
                        const GroupedCase<T>& gc, Mode mode, std::vector<T>& d, std::vector<T>& x,
                        FactoredAlgorithm algorithm, bool checked = false,
                        std::vector<int>* info = nullptr) {
  ASSERT_EQ(s.group_count(), gc.groups);
  solve_factored_cuda_plan(s, scratch, algorithm, mode, checked, d, x, info);
}

// One solve with a plan of its own.
template <class T>
void run_grouped_cuda(const GroupedCase<T>& gc, Mode mode, std::vector<T>& d, std::vector<T>& x,
                      FactoredAlgorithm algorithm, bool checked = false,
                      std::vector<int>* info = nullptr) {
  FactoredDeviceScratch<T> scratch;
  auto plan = grouped_cuda_plan(gc, scratch.stream(), algorithm, checked);
  solve_grouped_cuda(*plan, scratch, gc, mode, d, x, algorithm, checked, info);
}

// One stream and buffers for the runner's life; one plan per (case, algorithm) for the modes.
template <class T>
GroupedRunner<T> cuda_runner() {
  auto scratch = std::make_shared<FactoredDeviceScratch<T>>();
  return [scratch](const GroupedCase<T>& gc, FactoredAlgorithm algorithm) -> FactoredModeRun<T> {
    auto plan = grouped_cuda_plan(gc, scratch->stream(), algorithm, false);
    return [scratch, plan, &gc, algorithm](Mode mode, std::vector<T>& d, std::vector<T>& x) {
      solve_grouped_cuda(*plan, *scratch, gc, mode, d, x, algorithm);
    };
  };
}

TYPED_TEST(FactoredGroupsCuda, MatchesGeneralSolver) {
  using T = TypeParam;
  // n = 1..32: the register kernel; 40 and 300: the staged and tiled ones.
  const std::vector<std::int64_t> sizes =
      quick_mode() ? std::vector<std::int64_t>{3, 40} : std::vector<std::int64_t>{1, 2, 7, 40, 300};
  const GroupedRunner<T> run = cuda_runner<T>();
  for (std::int64_t n : sizes) {
    for (const auto& gc : grouped_cases<T>(n, quick_mode())) {
      for (auto algorithm :
           {FactoredAlgorithm::cuda_thread_thomas, FactoredAlgorithm::cuda_block_cr_shared,
            FactoredAlgorithm::cuda_block_cr_global}) {
        check_grouped_against_reference(gc, run, algorithm);
        if (this->HasFatalFailure()) return;
      }
    }
  }
}

TYPED_TEST(FactoredGroupsCuda, CheckedModeSlowestGroupDimension) {
  using T = TypeParam;
  const std::int64_t n = 3;
  for (auto algorithm :
       {FactoredAlgorithm::cuda_thread_thomas, FactoredAlgorithm::cuda_block_cr_global}) {
    SCOPED_TRACE(std::string(to_string(algorithm)));
    auto gc = grouped_case<T>({5, n, 4}, 1, {2});
    plant_singular_group_one(gc, n);
    const Layout& l = gc.layouts.d;
    const std::int64_t count = 20;
    std::vector<T> d(buffer_size(l), T(0.5)), x(buffer_size(gc.layouts.x), T(1));
    std::vector<int> want(count, 0), got(count, -1);
    const int breakdown = algorithm == FactoredAlgorithm::cuda_thread_thomas ? 3 : 2;
    for (std::int64_t s = 0; s < count; ++s) {
      if (s / 5 == 1) {
        want[s] = breakdown;
      } else if (s % 3 == 0) {
        const std::int64_t row = s % n;
        d[row_of(l, 1, s, row)] = std::numeric_limits<T>::quiet_NaN();
        want[s] = static_cast<int>(row + 1);
      }
    }
    run_grouped_cuda(gc, Mode::separate, d, x, algorithm, true, &got);
    EXPECT_EQ(got, want);
    for (std::int64_t s = 5; s < 10; ++s) {
      for (std::int64_t i = 0; i < n; ++i)
        EXPECT_TRUE(std::isnan(x[row_of(gc.layouts.x, 1, s, i)]));
    }
  }
}

}  // namespace
}  // namespace triax::test
