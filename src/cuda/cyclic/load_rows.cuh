#pragma once
// How a block of the cyclic family reads its system into shared memory (block_cyclic.cuh; the
// bench's staging bound reads it the same way). Every row is in flight at once: asynchronous
// copies (cp.async) go from global to shared memory without passing through registers, so the
// loads need none. Through registers (a thread's rows held, then stored), the kernel took 88
// (float) and 128 (double, with spills) registers, which left 2 blocks of 256 threads per SM:
// 512 systems of 512 rows ran in two waves (Nsight Compute on an H200, 2026-11-28).
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/cyclic/block_steps.cuh"

namespace triax::detail::cuda::cyclic {

/// Rows [0, n) of the system whose coefficient arrays start at a, b, c, d (row strides ra, rb,
/// rc, rd) into `rows`. a[0] and c[n-1] are never read (the caller's array may end before them):
/// they are stored as 0, which the algorithms expect there. The caller waits at a barrier before
/// any thread reads another's rows.
template <class T>
__device__ void load_rows_async(const RowArrays<T>& rows, const T* a, const T* b, const T* c,
                                const T* d, std::int64_t ra, std::int64_t rb, std::int64_t rc,
                                std::int64_t rd, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const int k = padded<T>(i);
    if (i > 0) {
      __pipeline_memcpy_async(rows.a + k, a + i * ra, sizeof(T));
    } else {
      rows.a[k] = T(0);
    }
    __pipeline_memcpy_async(rows.b + k, b + i * rb, sizeof(T));
    if (i + 1 < n) {
      __pipeline_memcpy_async(rows.c + k, c + i * rc, sizeof(T));
    } else {
      rows.c[k] = T(0);
    }
    __pipeline_memcpy_async(rows.d + k, d + i * rd, sizeof(T));
  }
  __pipeline_commit();
  __pipeline_wait_prior(0);
}

}  // namespace triax::detail::cuda::cyclic
