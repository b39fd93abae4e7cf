#pragma once
// A Transport that forwards to another and adds the seconds spent inside each call to a
// counter: how the plan splits the reduced phase into arithmetic and communication when a
// caller asked for phase times (triax::mpi::PhaseTimes). Lives on the stack of one solve (or of
// one half of an overlapped reduced solve: the pending operation is the inner transport's).

#include <chrono>

#include "dist/transport.hpp"

namespace triax::detail {

class TimedTransport final : public Transport {
 public:
  TimedTransport(Transport& inner, double& seconds) : inner_(inner), seconds_(seconds) {}

  int size() const override { return inner_.size(); }
  int position() const override { return inner_.position(); }
  void start_allgather(const void* sent, void* received, std::int64_t count, Scalar type) override {
    timed([&] { inner_.start_allgather(sent, received, count, type); });
  }
  void start_all_to_all(const void* sent, const std::int64_t* send_counts,
                        const std::int64_t* send_offsets, void* received,
                        const std::int64_t* receive_counts, const std::int64_t* receive_offsets,
                        Scalar type) override {
    timed([&] {
      inner_.start_all_to_all(sent, send_counts, send_offsets, received, receive_counts,
                              receive_offsets, type);
    });
  }
  void start_exchange(int distance, const void* send_lower, void* receive_lower,
                      const void* send_upper, void* receive_upper, std::int64_t count,
                      Scalar type) override {
    timed([&] {
      inner_.start_exchange(distance, send_lower, receive_lower, send_upper, receive_upper, count,
                            type);
    });
  }
  // The wait for an overlapped message counts as communication; the computation it overlapped
  // does not.
  void finish() override {
    timed([&] { inner_.finish(); });
  }
  void max_in_place(double* values, int count) override {
    timed([&] { inner_.max_in_place(values, count); });
  }
  void min_in_place(std::int64_t* values, std::int64_t count) override {
    timed([&] { inner_.min_in_place(values, count); });
  }

 private:
  template <class F>
  void timed(F&& f) {
    const auto start = std::chrono::steady_clock::now();
    f();
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  Transport& inner_;
  double& seconds_;
};

}  // namespace triax::detail
