#pragma once
// The streamed tile kernels (conv27, 2026-11-27; streamed_convert.cu says why): the runs of
// core/convert_tiles.hpp walked by resident blocks that load the next tile while
// they store the current one. device_convert picks them for the plans they were made for and
// keeps the others on their kernels; TRIAX_CUDA_CONVERT_V3=0 keeps every plan off them.
#include <cuda_runtime.h>

#include "core/convert_tiles.hpp"

namespace triax::detail {

/// Whether the streamed kernels may run (TRIAX_CUDA_CONVERT_V3 unset or not "0"; read once).
bool streamed_convert_enabled();

/// The runs plan d (d.runs) on the streamed runs kernel, elements of T (a float pair as double).
template <class T>
void launch_streamed_runs(const ConvertTiles& d, const T* src, T* dst, cudaStream_t s);

}  // namespace triax::detail
