// The hybrid's pivot reciprocal (hardware approximation plus Newton steps, hybrid_math.cuh)
// against the correctly rounded 1 / x of the host: within one ulp wherever the result is a normal
// number, over random mantissas and exponents of both signs, powers of two and their
// neighbours; and the documented answers at the edges (a breakdown must never look finite).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "cuda/scalar/warp/hybrid_math.cuh"
#include "support/device_runner.hpp"

namespace triax::test {
namespace {

template <class T>
__global__ void reciprocals(const T* x, T* r, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) r[i] = detail::cuda::reciprocal(x[i]);
}

/// r[i] = reciprocal(x[i]) on the device (r is poisoned with NaN first).
template <class T>
void device_reciprocals(const std::vector<T>& x, std::vector<T>& r) {
  const int count = static_cast<int>(x.size());
  T* dx = nullptr;
  T* dr = nullptr;
  TRIAX_TEST_CUDA_OK(cudaMalloc(&dx, x.size() * sizeof(T)));
  TRIAX_TEST_CUDA_OK(cudaMalloc(&dr, x.size() * sizeof(T)));
  TRIAX_TEST_CUDA_OK(cudaMemcpy(dx, x.data(), x.size() * sizeof(T), cudaMemcpyHostToDevice));
  TRIAX_TEST_CUDA_OK(cudaMemset(dr, 0xff, x.size() * sizeof(T)));
  reciprocals<T><<<(count + 255) / 256, 256>>>(dx, dr, count);
  TRIAX_TEST_CUDA_OK(cudaGetLastError());
  r.assign(x.size(), T(0));
  TRIAX_TEST_CUDA_OK(cudaMemcpy(r.data(), dr, x.size() * sizeof(T), cudaMemcpyDeviceToHost));
  TRIAX_TEST_CUDA_OK(cudaFree(dx));
  TRIAX_TEST_CUDA_OK(cudaFree(dr));
}

/// Distance in units in the last place between two finite values of one sign.
template <class T>
std::int64_t ulps_apart(T a, T b) {
  using Bits = std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>;
  Bits ia, ib;
  std::memcpy(&ia, &a, sizeof(T));
  std::memcpy(&ib, &b, sizeof(T));
  return std::llabs(static_cast<long long>(ia) - static_cast<long long>(ib));
}

template <class T>
class PivotReciprocal : public NeedsDevice<> {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(PivotReciprocal, ValueTypes);

TYPED_TEST(PivotReciprocal, WithinOneUlpWhereTheResultIsNormal) {
  using T = TypeParam;
  using L = std::numeric_limits<T>;
  // Inputs whose reciprocal is a normal number: |x| in [2^(min_exponent-1) .. 2^(max_exponent-2)].
  const int lo = L::min_exponent, hi = L::max_exponent - 2;
  std::mt19937_64 rng(20261124);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(lo, hi);
  std::vector<T> x;
  for (int k = 0; k < 200000; ++k) {
    const T v = std::ldexp(static_cast<T>(mantissa(rng)), exponent(rng));
    x.push_back(k % 2 ? -v : v);
  }
  for (int e = lo; e <= hi; ++e) {
    const T p = std::ldexp(T(1), e);
    for (T v : {p, std::nextafter(p, T(0)), std::nextafter(p, L::infinity())}) {
      x.push_back(v);
      x.push_back(-v);
    }
  }
  std::vector<T> r;
  ASSERT_NO_FATAL_FAILURE(device_reciprocals(x, r));
  std::int64_t worst = 0;
  std::size_t worst_at = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const T exact = T(1) / x[i];
    if (!(std::fpclassify(exact) == FP_NORMAL)) continue;
    const std::int64_t d = std::isfinite(r[i]) && std::signbit(r[i]) == std::signbit(exact)
                               ? ulps_apart(r[i], exact)
                               : std::numeric_limits<std::int64_t>::max();
    if (d > worst) {
      worst = d;
      worst_at = i;
    }
  }
  EXPECT_LE(worst, 1) << "1/" << x[worst_at] << ": " << r[worst_at] << " against "
                      << T(1) / x[worst_at];
}

TYPED_TEST(PivotReciprocal, BreakdownsAreNotFinite) {
  using T = TypeParam;
  using L = std::numeric_limits<T>;
  const std::vector<T> x = {T(0), -T(0), L::infinity(), -L::infinity(), L::quiet_NaN()};
  std::vector<T> r;
  ASSERT_NO_FATAL_FAILURE(device_reciprocals(x, r));
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_FALSE(std::isfinite(r[i])) << "1/" << x[i] << " gave " << r[i];
  }
}

}  // namespace
}  // namespace triax::test
