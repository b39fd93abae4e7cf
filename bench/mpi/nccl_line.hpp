#pragma once
// A detail::Transport over NCCL for --bound's messages (comm_bound.hpp): the point-to-point and
// allgather calls gpu_path.cu's NCCL reduced solve makes, queued on a stream. finish() waits
// for nothing: as in the solve, the stream orders the calls, and the caller waits for the
// stream once at the end.
#include <mpi.h>

#include <memory>

#include "dist/transport.hpp"

namespace triax::bench::mpi {

/// NCCL over the ranks of `line` (a collective over it; the communicator is only read here).
/// Throws std::runtime_error where the bench was built without NCCL.
std::unique_ptr<triax::detail::Transport> make_nccl_line(MPI_Comm line, void* stream);

}  // namespace triax::bench::mpi
