#pragma once
/// @file errors.hpp
/// The exceptions triax throws for misuse and for environment failures.
///
/// Numerical breakdown (a zero or non-finite pivot) is never an exception: it is reported per
/// system through the checked mode's `info` array (see Options::checked).

#include <stdexcept>
#include <string>

#include "triax/export.hpp"

namespace triax {

/// Base of every exception triax throws. Catch this to catch them all.
class TRIAX_API error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An argument was rejected before anything was written: a null pointer, a bad extent, an axis
/// out of range, overlapping operands, an overflowing layout, a misaligned pointer, a pointer in
/// the wrong memory space. The message names the argument and the value.
class TRIAX_API invalid_argument : public error {
 public:
  using error::error;
};

/// Memory for a plan (its workspace) could not be allocated. Raised instead of std::bad_alloc,
/// so that catching triax::error catches it.
class TRIAX_API out_of_memory : public error {
 public:
  using error::error;
};

/// The requested backend (or distributed layer) was not compiled into this build.
class TRIAX_API not_compiled : public error {
 public:
  using error::error;
};

/// A CUDA runtime or cuSPARSE call failed; the message carries the call text, file and line.
class TRIAX_API cuda_error : public error {
 public:
  using error::error;
};

/// An MPI or NCCL call failed; the message carries the call text, file and line.
class TRIAX_API mpi_error : public error {
 public:
  using error::error;
};

}  // namespace triax
