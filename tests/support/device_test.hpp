#pragma once
// The GPU suite runs everywhere it builds: without a usable CUDA device every test reports
// SKIPPED. Fixtures derive from NeedsDevice<>; tests without a fixture of their own start with
// TRIAX_NEED_DEVICE().
#include <cuda_runtime.h>
#include <gtest/gtest.h>

namespace triax::test {

/// True when a CUDA device can be used.
inline bool cuda_device_present() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return count > 0;
}

#define TRIAX_NEED_DEVICE() \
  if (!::triax::test::cuda_device_present()) GTEST_SKIP() << "no CUDA device"

/// A fixture (over ::testing::Test or a TestWithParam) whose tests skip without a device.
template <class Base = ::testing::Test>
class NeedsDevice : public Base {
 protected:
  void SetUp() override { TRIAX_NEED_DEVICE(); }
};

}  // namespace triax::test
