#pragma once
// The CPU baseline: LAPACK ?gtsv (OpenBLAS through LAPACKE) per system, OpenMP across systems.
#include <cstdint>
#include <span>
#include <string>

#include "stats.hpp"

namespace triax::bench {

/// Whether the bench was built with LAPACKE.
bool lapack_available();

/// "lapacke_sgtsv" or "lapacke_dgtsv".
template <class T>
std::string lapack_name();

/// Times `reps` batches (median) after warm-up. Timed per system: gathering a, b, c, d at the
/// axis stride into per-thread contiguous work arrays (gtsv overwrites them, so the copy is
/// inherent), LAPACKE_?gtsv_work, and scattering the solution into `out`. `prepare` runs
/// untimed before each batch. Returns the number of systems gtsv reported as singular through
/// `failures`.
template <class T>
Timing lapack_gtsv_batch(std::span<const std::int64_t> extents, int axis, const T* a, const T* b,
                         const T* c, const T* d, T* out, int reps, void (*prepare)(),
                         std::int64_t* failures);

}  // namespace triax::bench
