// MpiTransport: the Transport calls as MPI collectives and point-to-point messages.
#include "dist/mpi_transport.hpp"

#include <climits>
#include <string>
#include <utility>

#include "dist/mpi_check.hpp"

namespace triax::detail {
namespace {

MPI_Datatype datatype_of(Scalar type) {
  switch (type) {
    case Scalar::f32:
      return MPI_FLOAT;
    case Scalar::f64:
      return MPI_DOUBLE;
    case Scalar::i64:
      return MPI_INT64_T;
  }
  return MPI_DATATYPE_NULL;
}

// MPI counts are int. The plan checks its message sizes against this when it is made, so a
// solve never gets here with a larger one.
int message_count(std::int64_t count) {
  if (count < 0 || count > INT_MAX) {
    throw mpi_error("triax::mpi: a message of " + std::to_string(count) +
                    " values exceeds MPI's int count");
  }
  return static_cast<int>(count);
}

// Tags of the two directions of exchange(): a message sent upwards is received from below.
constexpr int tag_upwards = 1;
constexpr int tag_downwards = 2;

}  // namespace

MpiTransport::MpiTransport(MPI_Comm line) : line_(line) {
  TRIAX_MPI_CHECK(MPI_Comm_size(line_, &size_));
  TRIAX_MPI_CHECK(MPI_Comm_rank(line_, &position_));
  for (auto* v : {&send_counts_, &send_offsets_, &receive_counts_, &receive_offsets_}) {
    v->resize(static_cast<std::size_t>(size_));
  }
}

// Only an MPI error between a start and its finish leaves requests pending; waiting for them
// here could hang on peers that failed too, and MPI_Comm_free lets pending operations end.
MpiTransport::~MpiTransport() { TRIAX_MPI_CHECK_NOTHROW(MPI_Comm_free(&line_)); }

void MpiTransport::start_allgather(const void* sent, void* received, std::int64_t count,
                                   Scalar type) {
  expect_nothing_pending();
  const int n = message_count(count);
  TRIAX_MPI_CHECK(MPI_Iallgather(sent, n, datatype_of(type), received, n, datatype_of(type), line_,
                                 &requests_[0]));
  pending_ = 1;
}

void MpiTransport::start_all_to_all(const void* sent, const std::int64_t* send_counts,
                                    const std::int64_t* send_offsets, void* received,
                                    const std::int64_t* receive_counts,
                                    const std::int64_t* receive_offsets, Scalar type) {
  expect_nothing_pending();
  for (int p = 0; p < size_; ++p) {
    send_counts_[p] = message_count(send_counts[p]);
    send_offsets_[p] = message_count(send_offsets[p]);
    receive_counts_[p] = message_count(receive_counts[p]);
    receive_offsets_[p] = message_count(receive_offsets[p]);
  }
  TRIAX_MPI_CHECK(MPI_Ialltoallv(sent, send_counts_.data(), send_offsets_.data(), datatype_of(type),
                                 received, receive_counts_.data(), receive_offsets_.data(),
                                 datatype_of(type), line_, &requests_[0]));
  pending_ = 1;
}

void MpiTransport::start_exchange(int distance, const void* send_lower, void* receive_lower,
                                  const void* send_upper, void* receive_upper, std::int64_t count,
                                  Scalar type) {
  expect_nothing_pending();
  const int n = message_count(count);
  const MPI_Datatype t = datatype_of(type);
  const int lower = position_ - distance >= 0 ? position_ - distance : MPI_PROC_NULL;
  const int upper = position_ + distance < size_ ? position_ + distance : MPI_PROC_NULL;
  // pending_ counts the requests made so far, so that finish() completes them even where a
  // later post failed.
  TRIAX_MPI_CHECK(MPI_Irecv(receive_lower, n, t, lower, tag_upwards, line_, &requests_[0]));
  pending_ = 1;
  TRIAX_MPI_CHECK(MPI_Irecv(receive_upper, n, t, upper, tag_downwards, line_, &requests_[1]));
  pending_ = 2;
  TRIAX_MPI_CHECK(MPI_Isend(send_lower, n, t, lower, tag_downwards, line_, &requests_[2]));
  pending_ = 3;
  TRIAX_MPI_CHECK(MPI_Isend(send_upper, n, t, upper, tag_upwards, line_, &requests_[3]));
  pending_ = 4;
}

void MpiTransport::finish() {
  const int n = std::exchange(pending_, 0);
  if (n > 0) TRIAX_MPI_CHECK(MPI_Waitall(n, requests_, MPI_STATUSES_IGNORE));
}

void MpiTransport::expect_nothing_pending() {
  // A method that started an operation and did not finish it before the next: a bug here, not
  // the caller's.
  if (pending_ != 0) {
    throw mpi_error(
        "triax::mpi: internal error: a message was started while another was in "
        "flight");
  }
}

void MpiTransport::max_in_place(double* values, int count) {
  TRIAX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_MAX, line_));
}

void MpiTransport::min_in_place(std::int64_t* values, std::int64_t count) {
  TRIAX_MPI_CHECK(
      MPI_Allreduce(MPI_IN_PLACE, values, message_count(count), MPI_INT64_T, MPI_MIN, line_));
}

}  // namespace triax::detail
