// One chunk of the Thomas-PCR hybrid (hybrid_math.cuh), every length a register chunk can hold:
// the chunk's rows are made from a known solution, including the unknowns just outside it, so
// its two reduced equations must hold for that solution, and chunk_back from the true end values
// must give back its interior. The kernel tests see these only through whole solves, where an
// error in one chunk length can hide behind the lengths the shapes happen to use.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "cuda/scalar/warp/hybrid_math.cuh"
#include "support/device_runner.hpp"

namespace triax::test {
namespace {

using detail::cuda::Row;

/// Per case: M rows (a, b, c, d) of which the first L are the chunk; out: first and last
/// equations (8 values), then x from chunk_back (M values).
template <class T, int M>
__global__ void reduce_chunks(const T* rows, const int* lengths, const T* ends, T* out, int cases) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= cases) return;
  const T* in = rows + std::size_t(i) * 4 * M;
  detail::cuda::RegisterRows<T, M> r;
#pragma unroll
  for (int k = 0; k < M; ++k) {
    r.a[k] = in[k];
    r.b[k] = in[M + k];
    r.c[k] = in[2 * M + k];
    r.d[k] = in[3 * M + k];
  }
  const int L = lengths[i];
  Row<T> first, last;
  detail::cuda::chunk_reduce<T>(r, L, first, last);
  detail::cuda::chunk_back<T>(r, L, ends[2 * i], ends[2 * i + 1]);
  T* o = out + std::size_t(i) * (8 + M);
  const T eq[8] = {first.sub, first.diag, first.sup, first.rhs,
                   last.sub,  last.diag,  last.sup,  last.rhs};
  for (int k = 0; k < 8; ++k) o[k] = eq[k];
#pragma unroll
  for (int k = 0; k < M; ++k) o[8 + k] = r.d[k];
}

struct Case {
  int L;
  std::vector<double> x;  // x_{-1} .. x_L: the chunk's unknowns and one outside each end
};

template <class T, int M>
void check_chunks(bool weakly_dominant) {
  std::mt19937_64 rng(20261124 + M + (weakly_dominant ? 1 : 0));
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Case> cases;
  std::vector<T> rows;
  std::vector<int> lengths;
  std::vector<T> ends;
  for (int L = 2; L <= M; ++L) {
    for (int rep = 0; rep < 64; ++rep) {
      Case cs{L, {}};
      for (int k = 0; k < L + 2; ++k) cs.x.push_back(u(rng));
      // Values are rounded to T first, so that d comes from exactly the rows the device gets;
      // d's own rounding is within the tolerance below.
      std::vector<T> a(M, T(0)), b(M, T(1)), c(M, T(0)), d(M, T(0));
      for (int k = 0; k < L; ++k) {
        a[k] = static_cast<T>(u(rng));
        c[k] = static_cast<T>(u(rng));
        const double margin = weakly_dominant ? 0.1 : 1.0 + std::abs(u(rng));
        const double sign = u(rng) < 0 ? -1.0 : 1.0;
        b[k] = static_cast<T>(sign * (std::abs(double(a[k])) + std::abs(double(c[k])) + margin));
      }
      for (int k = 0; k < L + 2; ++k) cs.x[k] = static_cast<T>(cs.x[k]);
      for (int k = 0; k < L; ++k) {
        d[k] = static_cast<T>(a[k] * cs.x[k] + b[k] * cs.x[k + 1] + c[k] * cs.x[k + 2]);
      }
      for (const auto* v : {&a, &b, &c, &d}) rows.insert(rows.end(), v->begin(), v->end());
      lengths.push_back(L);
      ends.push_back(static_cast<T>(cs.x[1]));
      ends.push_back(static_cast<T>(cs.x[L]));
      cases.push_back(std::move(cs));
    }
  }
  const int count = static_cast<int>(cases.size());
  std::vector<T> out(std::size_t(count) * (8 + M), std::numeric_limits<T>::quiet_NaN());
  DeviceBuffer<T> d_rows(rows), d_ends(ends), d_out(out);
  std::vector<int> lens(lengths);
  int* d_len = nullptr;
  TRIAX_TEST_CUDA_OK(cudaMalloc(&d_len, lens.size() * sizeof(int)));
  TRIAX_TEST_CUDA_OK(
      cudaMemcpy(d_len, lens.data(), lens.size() * sizeof(int), cudaMemcpyHostToDevice));
  ASSERT_TRUE(d_rows.get() && d_ends.get() && d_out.get());
  reduce_chunks<T, M>
      <<<(count + 127) / 128, 128>>>(d_rows.get(), d_len, d_ends.get(), d_out.get(), count);
  TRIAX_TEST_CUDA_OK(cudaGetLastError());
  TRIAX_TEST_CUDA_OK(cudaDeviceSynchronize());
  d_out.download(out);
  TRIAX_TEST_CUDA_OK(cudaFree(d_len));

  // Weakly dominant rows (margin 0.1) amplify rounding by up to about 2 / 0.1.
  const double eps = std::numeric_limits<T>::epsilon();
  const double tol = (weakly_dominant ? 100.0 * M : 16.0 * M) * eps;
  double worst = 0;
  int worst_case = -1;
  for (int i = 0; i < count; ++i) {
    const Case& cs = cases[i];
    const int L = cs.L;
    const T* o = out.data() + std::size_t(i) * (8 + M);
    const double* x = cs.x.data();  // x[k + 1] is the chunk's unknown k
    // first: sub x_{-1} + diag x_0 + sup x_{L-1} = rhs; last: sub x_0 + diag x_{L-1} +
    // sup x_L = rhs (a one-row system has no last equation to check).
    const double scale_f = std::abs(double(o[0])) + std::abs(double(o[1])) + std::abs(double(o[2]));
    const double scale_l = std::abs(double(o[4])) + std::abs(double(o[5])) + std::abs(double(o[6]));
    double err = std::abs(o[0] * x[0] + o[1] * x[1] + o[2] * x[L] - o[3]) / scale_f;
    err = std::max(err, std::abs(o[4] * x[1] + o[5] * x[L] + o[6] * x[L + 1] - o[7]) / scale_l);
    for (int k = 0; k < L; ++k) err = std::max(err, std::abs(double(o[8 + k]) - x[k + 1]));
    if (!(err <= worst)) {
      worst = std::isnan(err) ? std::numeric_limits<double>::infinity() : err;
      worst_case = i;
    }
  }
  EXPECT_LE(worst, tol) << "chunk of " << (worst_case >= 0 ? cases[worst_case].L : -1)
                        << " rows (capacity " << M << ")";
}

template <class T>
class ChunkReduce : public NeedsDevice<> {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ChunkReduce, ValueTypes);

TYPED_TEST(ChunkReduce, EquationsAndInteriorHoldForTheKnownSolution) {
  using T = TypeParam;
  for (bool weak : {false, true}) {
    SCOPED_TRACE(weak ? "weakly dominant" : "dominant");
    // The register capacities the kernels use (8, 16), and a small one.
    ASSERT_NO_FATAL_FAILURE((check_chunks<T, 4>(weak)));
    ASSERT_NO_FATAL_FAILURE((check_chunks<T, 8>(weak)));
    ASSERT_NO_FATAL_FAILURE((check_chunks<T, 16>(weak)));
  }
}

}  // namespace
}  // namespace triax::test
