#pragma once
// The transport of CPU ranks: host buffers through MPI on the line's own communicator, which the
// transport owns (made once by the plan, freed with it; no communicator per solve).

#include <mpi.h>

#include <vector>

#include "dist/transport.hpp"

namespace triax::detail {

class MpiTransport final : public Transport {
 public:
  /// Takes ownership of `line` (a communicator made for the plan), numbered in piece order.
  explicit MpiTransport(MPI_Comm line);
  ~MpiTransport() override;
  MpiTransport(const MpiTransport&) = delete;
  MpiTransport& operator=(const MpiTransport&) = delete;

  int size() const override { return size_; }
  int position() const override { return position_; }
  MPI_Comm communicator() const { return line_; }

  void start_allgather(const void* sent, void* received, std::int64_t count, Scalar type) override;
  void start_all_to_all(const void* sent, const std::int64_t* send_counts,
                        const std::int64_t* send_offsets, void* received,
                        const std::int64_t* receive_counts, const std::int64_t* receive_offsets,
                        Scalar type) override;
  void start_exchange(int distance, const void* send_lower, void* receive_lower,
                      const void* send_upper, void* receive_upper, std::int64_t count,
                      Scalar type) override;
  void finish() override;
  void max_in_place(double* values, int count) override;
  void min_in_place(std::int64_t* values, std::int64_t count) override;

 private:
  void expect_nothing_pending();

  MPI_Comm line_;
  int size_ = 0;
  int position_ = 0;
  // all_to_all's counts and offsets as MPI takes them (int), sized once here; MPI reads them
  // until the operation completes, so they live here, not on a stack.
  std::vector<int> send_counts_, send_offsets_, receive_counts_, receive_offsets_;
  // The requests of the operation in flight (an exchange has four), all completed by finish():
  // none outlives a solve.
  MPI_Request requests_[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL,
                              MPI_REQUEST_NULL};
  int pending_ = 0;
};

}  // namespace triax::detail
