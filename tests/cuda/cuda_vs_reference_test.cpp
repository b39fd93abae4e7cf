// Every CUDA algorithm against the reference backend, on fresh random inputs with poisoned
// outputs: boundary sizes, every axis of 1-D..4-D arrays, padded, offset and broadcast layouts,
// the three output modes, float and double, a non-default stream; checked mode; pointers from
// the wrong memory space.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/device_runner.hpp"

namespace triax::test {
namespace {

template <class T>
class CudaVsReference : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  }
};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CudaVsReference, ValueTypes);

constexpr Algorithm cuda_algorithms[] = {Algorithm::automatic, Algorithm::cuda_thread_thomas,
                                         Algorithm::cuda_thread_thomas_shared_transpose,
                                         Algorithm::cuda_block_thomas_pcr};

// Runs the check for every algorithm whose plan accepts the layout (the transpose kernels take
// contiguous rows only).
template <class T>
void for_each_accepting(const OperandLayouts& layouts, int axis,
                        const std::function<void(Algorithm)>& check, bool checked = false) {
  for (Algorithm alg : cuda_algorithms) {
    bool accepted = true;
    try {
      Solver<T> probe(Backend::cuda, layouts, axis, {.algorithm = alg, .checked = checked});
    } catch (const invalid_argument&) {
      accepted = false;
    }
    if (accepted) check(alg);
  }
}
constexpr Mode modes[] = {Mode::in_place, Mode::separate, Mode::increment};

std::uint64_t seed_of(const std::string& name, int k) {
  return std::hash<std::string>{}(name) + 104729u * static_cast<std::uint64_t>(k);
}

TYPED_TEST(CudaVsReference, BoundarySizes) {
  using T = TypeParam;
  int k = 0;
  for (std::int64_t n : {1, 2, 3, 31, 32, 33, 63, 64, 65, 255, 256, 257, 383, 384, 385, 1023,
                         1024, 1025, 4096}) {
    const std::int64_t systems = n > 1000 ? 40 : 130;
    for (int axis = 0; axis < 2; ++axis) {
      const auto layout = axis == 0 ? Layout::packed({n, systems}) : Layout::packed({systems, n});
      for_each_accepting<T>(OperandLayouts(layout), axis, [&](Algorithm alg) {
        SCOPED_TRACE("n " + std::to_string(n) + ", " + std::string(to_string(alg)));
        expect_matches_reference<T>(OperandLayouts(layout), axis, Mode::separate,
                                    seed_of("sizes", ++k), cuda_runner<T>(alg));
      });
    }
  }
  expect_matches_reference<T>(OperandLayouts(Layout::packed({100000, 3})), 0, Mode::in_place,
                              seed_of("long", 1), cuda_runner<T>(Algorithm::automatic));
}

TYPED_TEST(CudaVsReference, EveryAxisLayoutAndMode) {
  using T = TypeParam;
  const std::vector<std::vector<std::int64_t>> shapes = {{37}, {33, 9}, {17, 5, 11}, {6, 7, 5, 4}};
  int k = 0;
  for (const auto& shape : shapes) {
    for (int axis = 0; axis < static_cast<int>(shape.size()); ++axis) {
      for (Mode mode : modes) {
        const OperandLayouts layouts(Layout::packed(shape));
        for_each_accepting<T>(layouts, axis, [&](Algorithm alg) {
          expect_matches_reference<T>(layouts, axis, mode, seed_of("axes", ++k),
                                      cuda_runner<T>(alg));
        });
      }
    }
  }
  const auto padded = Layout::padded({19, 10, 7}, {22, 12, 9}, {1, 1, 1});
  const auto other = Layout::padded({19, 10, 7}, {21, 13, 8}, {2, 0, 1});
  for (int axis = 0; axis < 3; ++axis) {
    const std::vector<std::int64_t> extents = {19, 10, 7};
    std::vector<std::int64_t> strides(3, 0);
    strides[axis] = 1;
    const auto coef = Layout::strided(extents, strides);
    for (Mode mode : modes) {
      const OperandLayouts mixed(padded, other, padded, other, padded);
      for_each_accepting<T>(mixed, axis, [&](Algorithm alg) {
        expect_matches_reference<T>(mixed, axis, mode, seed_of("padded", ++k),
                                    cuda_runner<T>(alg));
      });
      expect_matches_reference<T>(OperandLayouts(coef, coef, coef, other, padded), axis, mode,
                                  seed_of("broadcast", ++k), cuda_runner<T>(Algorithm::automatic));
    }
  }
}

TYPED_TEST(CudaVsReference, CheckedModeReportsBreakdown) {
  using T = TypeParam;
  constexpr std::int64_t n = 50, systems = 33;
  const auto layout = Layout::packed({systems, n});
  Batch<T> batch{OperandLayouts(layout)};
  batch.fill_random(77);
  batch.b[0 * systems + 5] = 0;    // system 5, row 0
  batch.a[12 * systems + 9] = 0;   // system 9, row 12: pivot b - a c' = 0
  batch.b[12 * systems + 9] = 0;
  DeviceBuffer<T> a(batch.a), b(batch.b), c(batch.c), d(batch.d), x(batch.x);
  std::vector<int> info(systems, -1);
  int* dinfo = nullptr;
  TRIAX_TEST_CUDA_OK(cudaMalloc(&dinfo, systems * sizeof(int)));
  for_each_accepting<T>(OperandLayouts(layout), 1, [&](Algorithm alg) {
    Solver<T> s(Backend::cuda, layout, 1, {.algorithm = alg, .checked = true});
    s.solve(a.get(), b.get(), c.get(), d.get(), x.get(), dinfo);
    TRIAX_TEST_CUDA_OK(cudaMemcpy(info.data(), dinfo, systems * sizeof(int), cudaMemcpyDeviceToHost));
    for (int k = 0; k < systems; ++k) {
      EXPECT_EQ(info[k], k == 5 ? 1 : k == 9 ? 13 : 0) << "system " << k << ", " << to_string(alg);
    }
  }, /*checked=*/true);
  cudaFree(dinfo);
}

TYPED_TEST(CudaVsReference, WrongMemorySpaceIsRejected) {
  using T = TypeParam;
  const auto layout = Layout::packed({16, 4});
  Batch<T> batch{OperandLayouts(layout)};
  batch.fill_random(5);
  DeviceBuffer<T> dd(batch.d);
  Solver<T> gpu(Backend::cuda, layout, 0);
  try {
    gpu.solve(batch.a.data(), batch.b.data(), batch.c.data(), dd.get(), dd.get());
    ADD_FAILURE() << "host pointers accepted by the cuda backend";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("a is a host pointer"), std::string::npos) << e.what();
  }
  Solver<T> cpu(Backend::cpu, layout, 0);
  std::vector<T> x = batch.x;
  try {
    cpu.solve(batch.a.data(), batch.b.data(), batch.c.data(), dd.get(), x.data());
    ADD_FAILURE() << "a device pointer accepted by the cpu backend";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("d is a device pointer"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace triax::test
