#pragma once
// Host entry of the chunk table kernel (chunk_table_kernel.cuh), for the cuda_hybrid plan.
#include <cuda_runtime.h>

#include "core/factored/chunk_table.hpp"
#include "core/problem.hpp"

namespace triax::detail::cuda {

/// x = A^{-1} d (x += A^{-1} d accumulating) for every system of p, the table `v` on the device.
/// Launches on `stream`; no allocation, no synchronisation. Under a KernelRehearsal only loads
/// the kernel.
template <class T>
void launch_chunk_table(const Problem& p, const ChunkView<T>& v, const T* d, T* x, bool accumulate,
                        cudaStream_t stream);

/// Loads the kernels this table's solves launch (both accumulate modes) without running them,
/// so that the caller's first solve does not (launch_kernel.hpp, KernelRehearsal).
template <class T>
void load_chunk_table_kernels(const Problem& p, const ChunkView<T>& v, cudaStream_t stream);

}  // namespace triax::detail::cuda
