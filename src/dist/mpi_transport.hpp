#pragma once
// The transport of CPU ranks: host buffers through MPI on the line's own communicator, which the
// transport owns (made once by the plan, freed with it; no communicator per solve).

#include <mpi.h>

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

  void allgather(const void* sent, void* received, std::int64_t count, Scalar type) override;
  void gather(const void* sent, void* received, std::int64_t count, Scalar type, int root) override;
  void scatter(const void* sent, void* received, std::int64_t count, Scalar type,
               int root) override;
  void exchange(int distance, const void* send_lower, void* receive_lower, const void* send_upper,
                void* receive_upper, std::int64_t count, Scalar type) override;
  void max_in_place(double* values, int count) override;
  void min_in_place(std::int64_t* values, std::int64_t count) override;

 private:
  MPI_Comm line_;
  int size_ = 0;
  int position_ = 0;
};

}  // namespace triax::detail
