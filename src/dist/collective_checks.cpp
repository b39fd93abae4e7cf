// agree() and disagreements(): outcomes of checks made equal on every rank.
#include "dist/collective_checks.hpp"

#include <string_view>

#include "dist/mpi_check.hpp"

namespace triax::detail {
namespace {

[[noreturn]] void throw_as(Verdict::Kind kind, const std::string& message) {
  switch (kind) {
    case Verdict::Kind::out_of_memory:
      throw out_of_memory(message);
    case Verdict::Kind::mpi_error:
      throw mpi_error(message);
    case Verdict::Kind::invalid_argument:
    default:
      throw invalid_argument(message);
  }
}

// The message without the plan's name in front (agree() puts it back once, with the rank): the
// local checks are triax::Solver's, or the distributed plan's own.
std::string without_plan_name(const std::string& message, std::string_view who) {
  for (const std::string_view name : {std::string_view("triax::Solver"), who}) {
    if (message.starts_with(name) && message.substr(name.size()).starts_with(": ")) {
      return message.substr(name.size() + 2);
    }
  }
  return message;
}

}  // namespace

void agree(MPI_Comm comm, const Verdict& verdict, const char* who) {
  int rank = 0, size = 0;
  TRIAX_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  TRIAX_MPI_CHECK(MPI_Comm_size(comm, &size));
  int first_failing = verdict.failed() ? rank : size;
  TRIAX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &first_failing, 1, MPI_INT, MPI_MIN, comm));
  if (first_failing == size) return;
  // The first failing rank tells the others its kind and message.
  std::string message = without_plan_name(verdict.message, who);
  int header[2] = {static_cast<int>(verdict.kind), static_cast<int>(message.size())};
  TRIAX_MPI_CHECK(MPI_Bcast(header, 2, MPI_INT, first_failing, comm));
  message.resize(static_cast<std::size_t>(header[1]));
  TRIAX_MPI_CHECK(MPI_Bcast(message.data(), header[1], MPI_CHAR, first_failing, comm));
  throw_as(static_cast<Verdict::Kind>(header[0]),
           std::string(who) + ": rank " + std::to_string(first_failing) + ": " + message);
}

std::string disagreements(MPI_Comm comm, const std::vector<std::int64_t>& values,
                          const std::vector<std::string>& names) {
  // One reduction for both ends: the minimum of v and of -v.
  std::vector<std::int64_t> lows_and_negated_highs(2 * values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    lows_and_negated_highs[i] = values[i];
    lows_and_negated_highs[values.size() + i] = -values[i];
  }
  TRIAX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, lows_and_negated_highs.data(),
                                static_cast<int>(lows_and_negated_highs.size()), MPI_INT64_T,
                                MPI_MIN, comm));
  std::string found;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::int64_t low = lows_and_negated_highs[i];
    const std::int64_t high = -lows_and_negated_highs[values.size() + i];
    if (low == high) continue;
    if (!found.empty()) found += "; ";
    found += names[i] + ": " + std::to_string(low) + " on some ranks, " + std::to_string(high) +
             " on others";
  }
  return found;
}

}  // namespace triax::detail
