#pragma once
// Checks that end the same way on every rank. A rank whose own arguments are bad must not simply
// throw: the others would wait in the next collective call for ever. So each rank records what
// it found (a Verdict), and agree() turns the verdicts into one outcome: if any rank failed,
// every rank throws the same exception, with the first failing rank's message.

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace triax::detail {

/// What one rank's checks found.
struct Verdict {
  enum class Kind : int { fine = 0, invalid_argument, out_of_memory, mpi_error, other };
  Kind kind = Kind::fine;
  std::string message;

  bool failed() const { return kind != Kind::fine; }
};

/// Runs a rank's checks and records what they threw (triax errors by kind, std::bad_alloc as
/// out_of_memory, anything else as other).
template <class Checks>
Verdict verdict_of(Checks&& checks);

/// Collective over comm: returns when every rank's verdict is fine; otherwise every rank throws
/// the exception of the lowest failing rank, "<who>: rank R: <its message>". One
/// MPI_Allreduce when all is fine.
void agree(MPI_Comm comm, const Verdict& verdict, const char* who);

/// Collective over comm: whether every rank passed the same values (compared elementwise, by
/// the minimum and maximum over the ranks). On a mismatch, returns the names and ranges of the
/// values that differ ("axis: 0 on some ranks, 1 on others"), identical on every rank.
std::string disagreements(MPI_Comm comm, const std::vector<std::int64_t>& values,
                          const std::vector<std::string>& names);

}  // namespace triax::detail

#include "dist/collective_checks.inl"
