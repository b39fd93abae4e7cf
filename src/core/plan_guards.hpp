#pragma once
// The checks every plan type (triax::Solver, triax::BlockSolver) makes around a solve that do
// not depend on what it solves: thread counts, one solve at a time, moved-from plans, and
// pointers in the backend's memory space.

#include <atomic>
#include <memory>
#include <string>

#include "core/backend_plan.hpp"
#include "triax/errors.hpp"
#include "triax/options.hpp"

namespace triax::detail {

/// More threads than any machine triax runs on has cores: a larger request is a mistake, and
/// creating its threads could end the process (libgomp exits when it cannot).
inline constexpr int max_threads = 1024;

inline void check_thread_count(const Options& options, const char* who) {
  if (options.num_threads < 0 || options.num_threads > max_threads) {
    throw invalid_argument(std::string(who) + ": options.num_threads = " +
                           std::to_string(options.num_threads) + " is outside 0.." +
                           std::to_string(max_threads) + " (0 = OpenMP's default)");
  }
}

/// Held for the length of one solve. A plan owns one workspace, so a second thread solving on
/// it at the same time would share it and get wrong answers: it is refused instead.
class OneSolveAtATime {
 public:
  OneSolveAtATime(std::atomic<bool>& busy, const char* who) : busy_(busy) {
    if (busy_.exchange(true, std::memory_order_acquire)) {
      throw invalid_argument(std::string(who) +
                             ": this plan is already solving on another thread; a plan serves "
                             "one solve at a time (make one plan per thread)");
    }
  }
  ~OneSolveAtATime() { busy_.store(false, std::memory_order_release); }
  OneSolveAtATime(const OneSolveAtATime&) = delete;
  OneSolveAtATime& operator=(const OneSolveAtATime&) = delete;

 private:
  std::atomic<bool>& busy_;
};

/// A moved-from plan holds nothing: using it is an error, not a crash.
template <class Impl>
Impl& live(const std::unique_ptr<Impl>& impl, const char* who) {
  if (!impl) {
    throw invalid_argument(std::string(who) +
                           ": this plan was moved from and holds nothing; assign a plan to it "
                           "before using it");
  }
  return *impl;
}

/// Each non-null pointer must be in the backend's memory space (device for cuda, host
/// otherwise) where the runtime can tell.
/// `d_name` names the fourth pointer (f for a stencil solve's input).
inline void check_memory_space(Backend backend, const void* const (&pointers)[6],
                               const char* who, const char* d_name = "d") {
  const char* const names[] = {"a", "b", "c", d_name, "x", "info"};
  const bool want_device = backend == Backend::cuda;
  for (int i = 0; i < 6; ++i) {
    if (pointers[i] == nullptr) continue;
    const MemorySpace s = memory_space_of(pointers[i]);
    if (s == MemorySpace::unknown) continue;
    if (want_device && s != MemorySpace::device) {
      throw invalid_argument(std::string(who) + ": the cuda backend needs device memory, but " +
                             names[i] + " is a host pointer");
    }
    if (!want_device && s == MemorySpace::device) {
      throw invalid_argument(std::string(who) + ": the " + std::string(to_string(backend)) +
                             " backend needs host memory, but " + names[i] +
                             " is a device pointer");
    }
  }
}

}  // namespace triax::detail
