// launch_kernel under a KernelRehearsal (what a CUDA plan does when it is made, to load its
// kernels before the first solve) loads the kernel and runs nothing; outside one it launches.
#include <gtest/gtest.h>

#include "cuda/launch/launch_kernel.hpp"
#include "support/device_runner.hpp"

namespace triax::test {
namespace {

__global__ void store_value(int* out, int value) { *out = value; }

TEST(KernelRehearsal, LoadsWithoutLaunchingThenLaunches) {
  TRIAX_NEED_DEVICE();
  using detail::cuda::KernelRehearsal;
  using detail::cuda::launch_kernel;
  int* flag = nullptr;
  TRIAX_TEST_CUDA_OK(cudaMalloc(&flag, sizeof(int)));
  TRIAX_TEST_CUDA_OK(cudaMemset(flag, 0, sizeof(int)));
  int host = -1;
  {
    KernelRehearsal rehearsal;
    EXPECT_TRUE(KernelRehearsal::active());
    {
      KernelRehearsal nested;  // nesting keeps the outer one in force when it ends
    }
    EXPECT_TRUE(KernelRehearsal::active());
    launch_kernel(store_value, 1, 1, 0, nullptr, flag, 7);
    TRIAX_TEST_CUDA_OK(cudaDeviceSynchronize());
    TRIAX_TEST_CUDA_OK(cudaMemcpy(&host, flag, sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT_EQ(host, 0) << "a rehearsed launch ran the kernel";
  }
  EXPECT_FALSE(KernelRehearsal::active());
  launch_kernel(store_value, 1, 1, 0, nullptr, flag, 7);
  TRIAX_TEST_CUDA_OK(cudaDeviceSynchronize());
  TRIAX_TEST_CUDA_OK(cudaMemcpy(&host, flag, sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT_EQ(host, 7);
  TRIAX_TEST_CUDA_OK(cudaFree(flag));
}

}  // namespace
}  // namespace triax::test
