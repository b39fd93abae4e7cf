#pragma once
/// @file options.hpp
/// Backends, algorithms and the options of a plan.

#include <string_view>

#include "triax/export.hpp"

namespace triax {

/// Where a plan runs. A backend that was not compiled into this build throws triax::not_compiled
/// when a plan for it is made.
enum class Backend {
  reference,  ///< plain, obviously correct solvers on the host (long double Thomas, dense LU)
  cpu,        ///< OpenMP across systems, SIMD within a strip of systems
  cuda,       ///< NVIDIA GPUs; every pointer must be device memory
};

/// The algorithm a plan runs. `automatic` picks by backend, axis, system length, batch size
/// and precision; every other value forces that algorithm, and a plan rejects one that does not
/// belong to its backend or cannot handle its layout (triax::invalid_argument).
///
/// The name says who cooperates on one system and what they run (docs/algorithms.md).
enum class Algorithm {
  automatic,
  reference_thomas,    ///< Thomas accumulated in long double, one system at a time
  reference_dense_lu,  ///< dense Gaussian elimination with partial pivoting; n <= 1024 only
  cpu_thomas,          ///< vectorised across neighbouring systems (any axis; best for axes >= 1)
  cpu_thomas_transpose,  ///< local transpose of square tiles (paper 000, s.5): picked for rows
                         ///< contiguous in d and x (axis 0 of packed arrays); correct on any axis
  cuda_thread_thomas,            ///< one thread per system, reading rows at the system stride
  cuda_thread_thomas_shared_transpose,   ///< axis 0: transpose through shared memory (Alg. 8)
  cuda_thread_thomas_shuffle_transpose,  ///< axis 0: transpose through warp shuffles (Alg. 9);
                                         ///< d and x with contiguous rows only
  cuda_warp_thomas_pcr,   ///< Thomas-PCR hybrid (Alg. 10 on axis 0, 11 on axes >= 1): chunks
                          ///< of rows in registers, at most 32 chunk threads per system, the
                          ///< reduced system by PCR over shuffles; n <= 512 (float) / 256 (double)
  cuda_block_thomas_pcr,  ///< the same hybrid with up to 256 chunk threads per system, and for
                          ///< longer systems a reduce / solve-reduced / finish pass (any n)
  // Later algorithms are appended, so that the values above (the C API's numbers) stay.
  cpu_thomas_partitioned,  ///< each system cut into chunks that different threads solve, joined
                           ///< by a small reduced system: few long systems (n >= 16384)
  // The cyclic family (paper 001; docs/algorithms.md, "The cyclic family"): no pivoting, any n,
  // checked mode reports zero pivots and RD's overflow per system.
  cpu_cr,       ///< cyclic reduction, one system at a time (a clear reference, not tuned)
  cpu_pcr,      ///< parallel cyclic reduction
  cpu_rd,       ///< recursive doubling (a scan of 3 x 3 steps); overflows on diagonally
                ///< dominant systems of more than a few dozen rows
  cpu_cr_pcr,   ///< CR down to a reduced system, PCR on it, CR back substitution
  cpu_cr_rd,    ///< CR down to a reduced system, RD on it, CR back substitution
  cuda_cr,      ///< one thread block per system in shared memory; n <= 4096 float / 2048 double
  cuda_pcr,     ///< as cuda_cr
  cuda_rd,      ///< as cuda_cr
  cuda_cr_pcr,  ///< as cuda_cr
  cuda_cr_rd,   ///< as cuda_cr
};

/// The name of an algorithm, as written in this header (e.g. "cpu_thomas").
TRIAX_API std::string_view to_string(Algorithm algorithm);
/// The name of a backend ("reference", "cpu", "cuda").
TRIAX_API std::string_view to_string(Backend backend);

/// Options of a plan.
struct Options {
  /// Which algorithm; automatic by default.
  Algorithm algorithm = Algorithm::automatic;
  /// Checked mode: every solve must be given an `info` array (one int per system, in the memory
  /// space of the backend) and fills it LAPACK style: 0 = the system was solved with finite
  /// pivots and finite results; i + 1 = row i (0-based) is where it broke down: a zero or
  /// non-finite pivot or a non-finite eliminated right-hand side in the forward pass, or, if the
  /// forward pass was clean, the last row whose solution came out non-finite.
  ///
  /// Without checked mode the solvers do no checking: a breakdown is never hidden, because IEEE
  /// arithmetic carries the zero or non-finite pivot into the solution as inf or NaN, but it is
  /// not reported either. Use checked mode where inputs may be singular.
  bool checked = false;
  /// CUDA backend: the cudaStream_t to run on (nullptr = the legacy default stream).
  void* stream = nullptr;
  /// CPU and reference backends: the number of OpenMP threads, 0..1024 (0 = OpenMP's default).
  /// A solve with one thread, or called inside an OpenMP parallel region, runs on the calling
  /// thread.
  int num_threads = 0;
};

}  // namespace triax
