// triax::VarSolver with lengths passed per solve, on the host backends: a plan made for one
// padded layout's lengths solves other lengths within its bound (each system its first lengths[s]
// rows), against the reference backend given a layout of those lengths; the plan reused with
// several; every bad lengths array rejected before anything is written.
#include <gtest/gtest.h>

#include <vector>

#include "support/var_batches.hpp"
#include "triax/layouts.hpp"

namespace triax::test {
namespace {

/// Solves with a plan made for `plan` and the batch's own lengths passed per solve.
template <class T>
VarRunner<T> per_solve_runner(Backend backend, const VarLayout& plan, int threads = 0) {
  return [=](VarBatch<T>& v, Mode mode, int* info) {
    std::vector<std::int64_t> lengths(static_cast<std::size_t>(v.layout.count()));
    for (std::size_t s = 0; s < lengths.size(); ++s) lengths[s] = v.layout.length(s);
    VarSolver<T> solver(backend, plan, {.checked = info != nullptr, .num_threads = threads});
    solve_in_mode(solver, mode, std::tuple(v.a.data(), v.b.data(), v.c.data()), v.d.data(),
                  v.x.data(), lengths, info);
  };
}

template <class T>
class VarBatchSolveLengths : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(VarBatchSolveLengths, Types);

TYPED_TEST(VarBatchSolveLengths, PaddedLayoutsEveryModeAndBackend) {
  using T = TypeParam;
  const std::int64_t n = 70, count = 93;
  const auto plan_lengths = mixed_lengths(test_seed(), count, n);
  const std::pair<const char*, OperandLayouts> cases[] = {
      {"flat", OperandLayouts(layouts::flat(n, count))},
      {"interleaved", OperandLayouts(layouts::interleaved(n, count))},
      {"unified", layouts::unified_vector(n, count)}};
  for (const auto& [name, l] : cases) {
    SCOPED_TRACE(name);
    const VarLayout plan = VarLayout::padded(l, 0, plan_lengths);
    // Two other draws of lengths within the bound, on the same plan, and all zero.
    for (const std::uint64_t seed : {1, 2}) {
      VarBatch<T> v(VarLayout::padded(l, 0, mixed_lengths(test_seed(seed), count, n)), l, 0);
      v.fill(test_seed(seed + 10));
      for (const Mode m : all_modes) {
        expect_var_matches_reference(v, m, per_solve_runner<T>(Backend::cpu, plan, 3));
        expect_var_matches_reference(v, m, per_solve_runner<T>(Backend::reference, plan));
      }
      expect_var_matches_reference(v, Mode::separate, per_solve_runner<T>(Backend::cpu, plan),
                                   /*checked=*/true);
    }
    VarBatch<T> none(VarLayout::padded(l, 0, std::vector<std::int64_t>(count, 0)), l, 0);
    expect_var_matches_reference(none, Mode::in_place, per_solve_runner<T>(Backend::cpu, plan));
  }
}

TYPED_TEST(VarBatchSolveLengths, BadLengthsRejectedBeforeAnythingIsWritten) {
  using T = TypeParam;
  const std::int64_t n = 20, count = 9;
  const auto plan_lengths = mixed_lengths(test_seed(), count, n);
  const OperandLayouts l(layouts::interleaved(n, count));
  VarBatch<T> v(VarLayout::padded(l, 0, plan_lengths), l, 0);
  v.fill(test_seed(1));
  const std::vector<T> d0 = v.d, x0 = v.x;
  VarSolver<T> s(Backend::cpu, v.layout);
  std::vector<std::int64_t> lengths = plan_lengths;
  const auto expect_rejected = [&](std::span<const std::int64_t> bad) {
    EXPECT_THROW(s.solve_in_place(v.a.data(), v.b.data(), v.c.data(), v.d.data(), bad),
                 invalid_argument);
    EXPECT_THROW(s.solve(v.a.data(), v.b.data(), v.c.data(), v.d.data(), v.x.data(), bad),
                 invalid_argument);
    EXPECT_TRUE(same_bits(v.d, d0));
    EXPECT_TRUE(same_bits(v.x, x0));
  };
  lengths[4] = n + 1;  // beyond the layout's longest
  expect_rejected(lengths);
  lengths[4] = -1;
  expect_rejected(lengths);
  lengths[4] = 0;
  expect_rejected(std::span<const std::int64_t>(lengths).first(count - 1));  // one too few
  try {
    lengths[4] = n + 1;
    s.solve_in_place(v.a.data(), v.b.data(), v.c.data(), v.d.data(), lengths);
    ADD_FAILURE() << "no exception";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("lengths[4] = 21"), std::string::npos) << e.what();
  }
  // Back to back: the offsets follow from the lengths, so there are none to pass.
  VarBatch<T> b2b(VarLayout::back_to_back(plan_lengths));
  b2b.fill(test_seed(2));
  const std::vector<T> bd0 = b2b.d;
  VarSolver<T> sb(Backend::cpu, b2b.layout);
  EXPECT_THROW(sb.solve_in_place(b2b.a.data(), b2b.b.data(), b2b.c.data(), b2b.d.data(),
                                 std::span<const std::int64_t>(plan_lengths)),
               invalid_argument);
  EXPECT_TRUE(same_bits(b2b.d, bd0));
}

}  // namespace
}  // namespace triax::test
