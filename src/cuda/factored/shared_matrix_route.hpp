#pragma once
// triax::Solver's route for a batch whose systems all share one matrix (a, b, c with every batch
// stride 0) on the GPU: at each solve a build kernel reads the matrix and, where it differs from
// the one of the last build, one warp builds its chunk table in the plan's workspace
// (core/factored/chunk_table_lanes.hpp); the chunk table kernels then apply it, so that
// a row costs a load of d, five multiply-adds and a store of x, as with a FactoredSolver. The
// build checks what the factored plan checks on the host (a pivot or value that breaks down,
// interior rows not diagonally dominant) and, where it refuses the table, writes Thomas'
// factors of the whole matrix instead, which the table kernels then solve with (ChunkFallback):
// no host round trip, no other kernel. When the route runs: route.hpp, shared_matrix_route().
#include <cuda_runtime.h>

#include <cstddef>

#include "core/problem.hpp"

namespace triax::detail::cuda {

/// Whether a, b and c are one matrix for every system of p (every batch stride 0) and n fits a
/// chunk table: the plan then reserves the route's workspace.
bool shared_matrix_possible(const Problem& p);

/// Whether an unchecked solve of p takes the route (TRIAX_CUDA_SHARED_MATRIX, the rule).
template <class T>
bool shared_matrix_takes(const Problem& p);

/// Device bytes of the route (the table, the fallback factors, the matrix of the last build, the
/// flags), a multiple of 256. The plan zeroes them when it is made.
template <class T>
std::size_t shared_matrix_workspace(const Problem& p);

/// Enqueues the build and the solve on the stream; `workspace`: shared_matrix_workspace bytes.
template <class T>
void shared_matrix_solve(const Problem& p, const Operands<T>& ops, void* workspace,
                         cudaStream_t stream);

}  // namespace triax::detail::cuda
