#pragma once
// Every MPI call of triax::mpi goes through TRIAX_MPI_CHECK, which throws triax::mpi_error with
// the call's text, file, line and MPI's own description of the error code. Communicators made by
// triax return errors instead of aborting (MPI_ERRORS_RETURN is set on them), so the check sees
// them. TRIAX_MPI_CHECK_NOTHROW is for destructors: it reports on stderr and carries on.

#include <mpi.h>

#include <cstdio>
#include <string>

#include "triax/errors.hpp"

namespace triax::detail {

inline std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<std::size_t>(length));
}

[[noreturn]] inline void throw_mpi_error(int code, const char* call, const char* file, int line) {
  throw mpi_error(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                  mpi_error_text(code));
}

}  // namespace triax::detail

#define TRIAX_MPI_CHECK(call)                                                       \
  do {                                                                              \
    const int triax_mpi_code_ = (call);                                             \
    if (triax_mpi_code_ != MPI_SUCCESS)                                             \
      ::triax::detail::throw_mpi_error(triax_mpi_code_, #call, __FILE__, __LINE__); \
  } while (0)

#define TRIAX_MPI_CHECK_NOTHROW(call)                                                    \
  do {                                                                                   \
    const int triax_mpi_code_ = (call);                                                  \
    if (triax_mpi_code_ != MPI_SUCCESS)                                                  \
      std::fprintf(stderr, "triax: %s failed at %s:%d: %s\n", #call, __FILE__, __LINE__, \
                   ::triax::detail::mpi_error_text(triax_mpi_code_).c_str());            \
  } while (0)
