#pragma once
// The bandwidth reference measured in the same run: the faster of the candidate copies of one
// large buffer into another, counting bytes read + bytes written (2 x size).
#include <string>

#include "case.hpp"

namespace triax::bench {

/// std::memcpy and an OpenMP-parallel copy over two buffers of `gib` GiB; median of `reps`.
/// Also times the stream reference (CopyReference::stream_gbps) over four arrays of gib / 4.
CopyReference measure_host_copy(double gib, int reps);

/// The processor's model name (from /proc/cpuinfo), with the OpenMP thread count.
std::string host_description();

}  // namespace triax::bench
