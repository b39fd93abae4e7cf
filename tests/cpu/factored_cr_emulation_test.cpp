// The CUDA CR kernels' block code (src/cuda/factored/cr_block.cuh, staging.cuh) compiled for the
// host and run by std::threads standing in for a block's threads, __syncthreads as a
// std::barrier: checks, without a GPU, that the kernels' work mapping (items to rows and lanes,
// the level slots, the compressed coefficient lookups, the batched staging in both orders)
// solves every lane of a group of systems as cpu_cr does. The GPU suite (FactoredCrCuda) runs
// the kernels themselves.
#include <gtest/gtest.h>

#include <barrier>
#include <cstdint>
#include <memory>
#include <random>
#include <thread>
#include <vector>

namespace triax_emulated_block {
struct Index {
  unsigned x = 0;
};
inline thread_local Index threadIdx;
inline Index blockDim;
inline std::barrier<>* block_barrier = nullptr;
}  // namespace triax_emulated_block

using triax_emulated_block::blockDim;
using triax_emulated_block::threadIdx;
#define __device__
#define __ldg(p) (*(p))
#define __syncthreads() triax_emulated_block::block_barrier->arrive_and_wait()
#include "cuda/factored/cr_block.cuh"
#include "cuda/factored/staging.cuh"
#undef __syncthreads
#undef __ldg
#undef __device__

#include "support/factored_cases.hpp"

namespace triax::test {
namespace {

/// Runs body() on `threads` host threads as one block.
template <class Body>
void run_block(unsigned threads, Body body) {
  std::barrier<> bar(static_cast<std::ptrdiff_t>(threads));
  triax_emulated_block::block_barrier = &bar;
  blockDim.x = threads;
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      threadIdx.x = t;
      body();
    });
  }
  for (auto& th : pool) th.join();
  triax_emulated_block::block_barrier = nullptr;
}

template <class T>
class FactoredCrEmulation : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FactoredCrEmulation, Precisions);

TYPED_TEST(FactoredCrEmulation, BlockSolvesEveryLaneAsCpuCr) {
  using T = TypeParam;
  using detail::cuda_factored_cr::SharedRows;
  for (std::int64_t n : {1, 2, 3, 5, 8, 17, 33, 64, 100, 257}) {
    for (int shift : {0, 2, 3, 5}) {
      const int lanes = 1 << shift;
      for (int valid : {lanes, lanes > 1 ? lanes - 1 : 1}) {
        for (const auto& m : factored_matrices<T>(n, true)) {
          for (bool rows_fast : {true, false}) {
            SCOPED_TRACE(m.name + " n=" + std::to_string(n) + " lanes=" + std::to_string(lanes) +
                         " valid=" + std::to_string(valid) + (rows_fast ? " rows" : " lanes"));
            // d: `valid` systems as the columns of a packed n x valid array (axis 0) or the
            // rows of valid x n (axis 1), read and written through the staging order.
            const Layout l = rows_fast ? Layout::packed({n, valid}) : Layout::packed({valid, n});
            const int axis = rows_fast ? 0 : 1;
            std::vector<T> d(l.size());
            std::mt19937_64 gen(test_seed(n * 64 + lanes));
            std::uniform_real_distribution<double> u(-1, 1);
            for (auto& v : d) v = T(u(gen));
            std::vector<T> want(l.size(), T(0)), dd = d;
            FactoredGrid g{"2d", {}, axis, FactoredLayouts(l)};
            run_factored_host(Backend::cpu, m, g, Mode::separate, dd, want, {}, nullptr,
                              FactoredAlgorithm::cpu_cr);
            const auto table = detail::cr_matrix(m.a.data(), m.b.data(), m.c.data(), n);
            const detail::CrView<T> v = table.view();
            const int pitch = lanes == 1 ? 1 : lanes + 1;
            std::vector<T> tile(static_cast<std::size_t>(n * pitch),
                                std::numeric_limits<T>::quiet_NaN());
            std::vector<T> got(l.size(), std::numeric_limits<T>::quiet_NaN());
            auto at = [&](std::int64_t i, int j) { return rows_fast ? j * n + i : i * valid + j; };
            // Row stride 1 (rows_fast) or lanes contiguous: the order the kernels pick.
            const bool order = rows_fast;
            run_block(32, [&] {
              const SharedRows<T> rows{tile.data(), pitch};
              detail::cuda_factored::stage_elements<8>(
                  n, shift, valid, order, [&](std::int64_t i, int j) { return d[at(i, j)]; },
                  [&](std::int64_t i, int j, T x) { rows.at(i, j) = x; });
              triax_emulated_block::block_barrier->arrive_and_wait();
              detail::cuda_factored_cr::cr_block(v, rows, shift, valid);
              detail::cuda_factored::stage_elements<8>(
                  n, shift, valid, order, [&](std::int64_t i, int j) { return rows.at(i, j); },
                  [&](std::int64_t i, int j, T x) { got[at(i, j)] = x; });
            });
            ASSERT_TRUE(outputs_match(l, got, want, 4.0));
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace triax::test
