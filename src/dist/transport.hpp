#pragma once
// The boundary between the reduced-system methods and how ranks talk. Every method is written
// against this interface; MpiTransport (mpi_transport.hpp) moves host buffers through MPI. GPU
// ranks will add transports here (host staging over MPI, CUDA-aware MPI, NCCL) without changing
// the methods: the buffers a method hands over are plain arrays of one value type.

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace triax::detail {

/// The value types that travel: the reduced rows (float or double) and checked mode's int64
/// row indices.
enum class Scalar { f32, f64, i64 };

template <class T>
constexpr Scalar scalar_of() {
  if constexpr (sizeof(T) == 4)
    return Scalar::f32;
  else if constexpr (std::is_same_v<T, double>)
    return Scalar::f64;
  else
    return Scalar::i64;
}

/// One line of ranks that share systems, numbered 0 .. size() - 1 in the order of their pieces.
/// Every call is collective over the line (exchange() over the ranks it names), counts are in
/// values of `type`, and no call allocates.
class Transport {
 public:
  virtual ~Transport() = default;
  virtual int size() const = 0;
  virtual int position() const = 0;

  // The messages of a reduced solve come in two halves: start_*() posts them and returns at
  // once, finish() waits until they are complete (and the received buffers are written). In
  // between, the caller may compute on anything but the buffers in flight: that is how the
  // plan overlaps one batch's messages with another batch's local passes. One operation is in
  // flight per transport at a time (start_* with one pending is a logic error); the blocking
  // forms below are a start and its finish.

  /// Every rank's `count` values, in position order, into `received` (size() * count values).
  virtual void start_allgather(const void* sent, void* received, std::int64_t count,
                               Scalar type) = 0;
  /// Personalised all-to-all: sends values [send_offsets[p], + send_counts[p]) of `sent` to
  /// each position p and puts what position p sent here at receive_offsets[p] of `received`.
  /// Each array has size() entries.
  virtual void start_all_to_all(const void* sent, const std::int64_t* send_counts,
                                const std::int64_t* send_offsets, void* received,
                                const std::int64_t* receive_counts,
                                const std::int64_t* receive_offsets, Scalar type) = 0;
  /// Sends `count` values to the positions `position() - distance` and `position() + distance`
  /// and receives as many from each; a side beyond the line is skipped (its buffer is left as
  /// it was). Both sides travel at once.
  virtual void start_exchange(int distance, const void* send_lower, void* receive_lower,
                              const void* send_upper, void* receive_upper, std::int64_t count,
                              Scalar type) = 0;
  /// Completes the operation started last (nothing where none is pending).
  virtual void finish() = 0;

  void allgather(const void* sent, void* received, std::int64_t count, Scalar type) {
    start_allgather(sent, received, count, type);
    finish();
  }
  void all_to_all(const void* sent, const std::int64_t* send_counts,
                  const std::int64_t* send_offsets, void* received,
                  const std::int64_t* receive_counts, const std::int64_t* receive_offsets,
                  Scalar type) {
    start_all_to_all(sent, send_counts, send_offsets, received, receive_counts, receive_offsets,
                     type);
    finish();
  }
  void exchange(int distance, const void* send_lower, void* receive_lower, const void* send_upper,
                void* receive_upper, std::int64_t count, Scalar type) {
    start_exchange(distance, send_lower, receive_lower, send_upper, receive_upper, count, type);
    finish();
  }
  /// Elementwise maximum over the line, in place.
  virtual void max_in_place(double* values, int count) = 0;
  /// Elementwise minimum over the line, in place.
  virtual void min_in_place(std::int64_t* values, std::int64_t count) = 0;
};

}  // namespace triax::detail
