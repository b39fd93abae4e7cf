#pragma once
// Device helpers of apps/compact_fd (compact_fd_cuda.cu), so that main.cpp stays plain C++.
#include <algorithm>
#include <cstddef>
#include <functional>
#include <vector>

namespace cfd {

bool cuda_device_present();
void* device_alloc(std::size_t bytes);
void device_free(void* p);
void copy_to_device(void* dst, const void* src, std::size_t bytes);
void copy_to_host(void* dst, const void* src, std::size_t bytes);
/// A device-to-device copy on the default stream.
void device_copy(void* dst, const void* src, std::size_t bytes);
/// Median of `repeats` timings (cudaEvents on the default stream) after one warm-up, in ms.
float time_ms(const std::function<void()>& work, int repeats);

}  // namespace cfd
