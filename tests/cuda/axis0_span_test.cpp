// The axis-0 aligned-span path (Mapping::chunk_span, aligned_span.cuh) against the reference
// backend, with the staged path it replaces (TRIAX_CUDA_AXIS0_ALIGNED=0) run on the same cases:
// odd and even lengths from 1 to past the fused limit, packed, with ghost layers, with base
// pointers one element past a 16-byte boundary, x laid out apart from d, the three output modes.
// The harness poisons input padding with NaN and output padding with a sentinel that must come
// back bit for bit (support/compare.hpp), so a stray read or store of the rounded-out vectors
// shows; every other case allocates each operand exactly from its lowest to its highest element,
// its first element `shift` past the allocation's start, so that a read past the operand's ends
// leaves the allocation (compute-sanitizer memcheck, .deps/call_gpux26.sh). Every test reports
// SKIPPED without a device.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "support/device_runner.hpp"
#include "support/quick_mode.hpp"
#include "support/scoped_env.hpp"

namespace triax::test {
namespace {

template <class T>
class CudaAxis0Span : public NeedsDevice<> {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CudaAxis0Span, ValueTypes);

// cuda_runner with every operand `shift` elements past a 256-byte boundary: base pointers that
// are not 16-byte aligned (shift 1 .. V - 1) as well as aligned ones. Exact: each allocation
// holds only the operand's elements from its lowest (`shift` past the allocation's start) to its
// highest (the allocation's last), so a read past either end leaves it (memcheck reports it).
template <class T>
Runner<T> shifted_runner(Algorithm algorithm, int shift, bool exact) {
  return [=](const OperandLayouts& layouts, int axis, Mode mode, Batch<T>& batch) {
    typename DeviceOperands<T>::Lows from{};
    if (exact) {  // strides are >= 0: the lowest element is at the layout's offset
      from = {layouts.a.offset(), layouts.b.offset(), layouts.c.offset(), layouts.d.offset(),
              layouts.x.offset()};
    }
    const DeviceOperands<T> o(batch.a, batch.b, batch.c, batch.d, batch.x, shift, from);
    ASSERT_TRUE(o.allocated()) << "cudaMalloc failed";
    Solver<T> solver(Backend::cuda, layouts, axis, {.algorithm = algorithm});
    solve_in_mode(solver, mode, std::tuple(o.a(), o.b(), o.c()), o.d(), o.x());
    TRIAX_TEST_CUDA_OK(cudaDeviceSynchronize());
    TRIAX_TEST_CUDA_OK(cudaGetLastError());
    o.download(batch.d, batch.x);
  };
}

constexpr Algorithm hybrid_algorithms[] = {Algorithm::automatic, Algorithm::cuda_warp_thomas_pcr,
                                           Algorithm::cuda_block_thomas_pcr};

// Lengths 1 .. 300 sampled (a fresh draw each run, with the edges always in), and a few past one
// block's rows (16-row float chunks, the long path).
std::vector<std::int64_t> lengths(std::uint64_t seed) {
  std::set<std::int64_t> n = {1, 2, 3, 4, 5, 7, 9, 15, 17, 31, 33, 63, 65, 127, 129, 255, 257, 300};
  std::mt19937_64 rng(seed);
  const int draws = quick_mode() ? 6 : 24;
  for (int k = 0; k < draws; ++k) n.insert(1 + static_cast<std::int64_t>(rng() % 300));
  if (!quick_mode()) n.insert({1001, 2049, 3000, 4097});
  return {n.begin(), n.end()};
}

template <class T>
void run_cases(const char* aligned) {
  ScopedEnv env("TRIAX_CUDA_AXIS0_ALIGNED", aligned);
  std::random_device rd;
  const std::uint64_t draw = rd();
  SCOPED_TRACE("TRIAX_CUDA_AXIS0_ALIGNED=" + std::string(aligned) + ", draw " +
               std::to_string(draw));
  int k = 0;
  for (std::int64_t n : lengths(draw)) {
    const std::int64_t systems = n > 1000 ? 19 : 37;  // partial warps and blocks
    const auto packed = Layout::packed({n, systems});
    const auto ghost = Layout::padded({n, systems}, {n + 2, systems + 2}, {1, 1});
    const auto shifted = Layout::padded({n, systems}, {n + 1, systems}, {1, 0});
    const auto wide = Layout::padded({n, systems}, {n + 5, systems + 1}, {3, 1});
    const OperandLayouts cases[] = {OperandLayouts(packed), OperandLayouts(ghost),
                                    OperandLayouts(shifted),
                                    OperandLayouts(ghost, ghost, ghost, ghost, shifted),
                                    OperandLayouts(shifted, wide, ghost, packed, wide)};
    for (const OperandLayouts& layouts : cases) {
      for (Algorithm alg : hybrid_algorithms) {
        bool accepted = true;
        try {
          Solver<T> probe(Backend::cuda, layouts, 0, {.algorithm = alg});
        } catch (const invalid_argument&) {
          accepted = false;
        }
        if (!accepted) continue;
        SCOPED_TRACE("n " + std::to_string(n) + ", " + std::string(to_string(alg)) + ", k " +
                     std::to_string(k));
        const int shift = (k / 3) % (16 / static_cast<int>(sizeof(T)));
        const Mode mode = all_modes[k % 3];
        const bool exact = k % 2 == 0;
        SCOPED_TRACE(exact ? "exact allocations" : "whole buffers");
        ++k;
        expect_matches_reference<T>(layouts, 0, mode, draw + 7919u * k,
                                    shifted_runner<T>(alg, shift, exact));
      }
    }
  }
}

TYPED_TEST(CudaAxis0Span, AlignedSpanMatchesReference) { run_cases<TypeParam>("1"); }

TYPED_TEST(CudaAxis0Span, StagedPathMatchesReference) { run_cases<TypeParam>("0"); }

}  // namespace
}  // namespace triax::test
