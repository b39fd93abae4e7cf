#pragma once
// The library plans of one Python plan, one per CUDA stream: a triax plan runs on the stream it
// was made with, and Python callers pass theirs per call. The CPU ignores streams, so one plan
// serves every call there. Shared by Plan, FactoredPlan and VarPlan.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <variant>
#include <vector>

#include "triax/options.hpp"

namespace triax::python {

template <class Solver>
class PerStreamSolvers {
 public:
  bool empty() const { return entries_.empty(); }
  Solver& front() { return entries_.front().solver; }
  const Solver& front() const { return entries_.front().solver; }

  /// The plan for `stream`, made by make(stream) the first time a CUDA stream is seen.
  template <class Make>
  Solver& for_stream(Backend backend, std::uintptr_t stream, Make&& make) {
    if (!entries_.empty() && backend != Backend::cuda) return entries_.front().solver;
    for (Entry& e : entries_) {
      if (e.stream == stream) return e.solver;
    }
    entries_.push_back({stream, make(stream)});
    return entries_.back().solver;
  }

  /// The workspace of every plan held.
  std::size_t workspace_bytes() const {
    std::size_t bytes = 0;
    for (const Entry& e : entries_) {
      bytes += std::visit([](const auto& s) { return s.workspace_bytes(); }, e.solver);
    }
    return bytes;
  }

 private:
  struct Entry {
    std::uintptr_t stream;
    Solver solver;
  };
  std::vector<Entry> entries_;
};

}  // namespace triax::python
