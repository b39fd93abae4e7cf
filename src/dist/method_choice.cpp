// The methods' names and the automatic choice.
#include "dist/method_choice.hpp"

namespace triax {
namespace mpi {

std::string_view to_string(Method method) {
  switch (method) {
    case Method::automatic:
      return "automatic";
    case Method::allgather:
      return "allgather";
    case Method::gather_scatter:
      return "gather_scatter";
    case Method::pcr:
      return "pcr";
    case Method::jacobi:
      return "jacobi";
  }
  return "unknown";
}

std::string_view to_string(Transport transport) {
  switch (transport) {
    case Transport::automatic:
      return "automatic";
    case Transport::host_staging:
      return "host_staging";
    case Transport::cuda_aware_mpi:
      return "cuda_aware_mpi";
    case Transport::nccl:
      return "nccl";
  }
  return "unknown";
}

std::string_view to_string(ReducedRows rows) {
  switch (rows) {
    case ReducedRows::two_per_rank:
      return "two_per_rank";
    case ReducedRows::one_per_rank:
      return "one_per_rank";
  }
  return "unknown";
}

}  // namespace mpi

namespace detail {

triax::mpi::Method choose_method(triax::mpi::Method requested, int ranks,
                                 triax::mpi::ReducedRows rows) {
  if (requested != triax::mpi::Method::automatic) return requested;
  // One row per rank runs with pcr and jacobi only; pcr is the exact one.
  if (rows == triax::mpi::ReducedRows::one_per_rank) return triax::mpi::Method::pcr;
  // Up to 8 ranks one collective moves 16 or fewer reduced rows per system and every rank solves
  // them at once; beyond, PCR's log P neighbour steps avoid the collective (paper 003's
  // argument). Not measured on our machines yet: docs/algorithms.md says so.
  constexpr int allgather_up_to = 8;
  return ranks <= allgather_up_to ? triax::mpi::Method::allgather : triax::mpi::Method::pcr;
}

}  // namespace detail
}  // namespace triax
