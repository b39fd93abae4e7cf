#pragma once
// Host entry of the chunk table kernel (chunk_table_kernel.cuh), for the cuda_hybrid plan.
#include <cuda_runtime.h>

#include "core/factored/chunk_table.hpp"
#include "core/problem.hpp"
#include "triax/stencil.hpp"

namespace triax::detail::cuda {

/// x = A^{-1} d (x += A^{-1} d accumulating) for every system of p, the table `v` on the device.
/// Launches on `stream`; no allocation, no synchronisation. Under a KernelRehearsal only loads
/// the kernel. `fb`: where the table may have been refused on the device (ChunkFallback).
template <class T>
void launch_chunk_table(const Problem& p, const ChunkView<T>& v, const T* d, T* x, bool accumulate,
                        cudaStream_t stream, const ChunkFallback<T>& fb = {});

/// x = A^{-1} (B f) for every system of p in one pass: the kernels form B f from f (laid out by
/// p.map[op_d], not overlapping x) in registers. Same launch rules as launch_chunk_table.
template <class T>
void launch_chunk_table_stencil(const Problem& p, const ChunkView<T>& v, const Stencil<T>& B,
                                const T* f, T* x, cudaStream_t stream);

/// Loads the kernels this table's solves launch (both accumulate modes, and the stencil's)
/// without running them, so that the caller's first solve does not (launch_kernel.hpp,
/// KernelRehearsal).
template <class T>
void load_chunk_table_kernels(const Problem& p, const ChunkView<T>& v, cudaStream_t stream);

}  // namespace triax::detail::cuda
