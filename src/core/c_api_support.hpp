#pragma once
// What the C API's translation units share: exceptions turned into status codes (with the
// message kept per thread for triax_last_error) and the C structs turned into C++ ones.
#include <exception>
#include <new>
#include <span>
#include <string>
#include <variant>

#include "triax/triax.h"
#include "triax/triax.hpp"

namespace triax::capi {

/// The message of the last failed call on this thread.
std::string& last_error();

template <class F>
triax_status guarded(F&& f) {
  std::string& last_error = triax::capi::last_error();
  try {
    f();
    last_error.clear();
    return TRIAX_SUCCESS;
  } catch (const triax::invalid_argument& e) {
    last_error = e.what();
    return TRIAX_INVALID_ARGUMENT;
  } catch (const triax::not_compiled& e) {
    last_error = e.what();
    return TRIAX_NOT_COMPILED;
  } catch (const triax::cuda_error& e) {
    last_error = e.what();
    return TRIAX_CUDA_ERROR;
  } catch (const triax::mpi_error& e) {
    last_error = e.what();
    return TRIAX_MPI_ERROR;
  } catch (const triax::out_of_memory& e) {
    last_error = e.what();
    return TRIAX_OUT_OF_MEMORY;
  } catch (const std::bad_alloc&) {
    last_error = "triax: out of memory";
    return TRIAX_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    last_error = e.what();
    return TRIAX_INTERNAL_ERROR;
  } catch (...) {
    last_error = "triax: unknown exception";
    return TRIAX_INTERNAL_ERROR;
  }
}

/// The solver of type Solver (the precision of the call) in a C handle whose `solver` is a
/// variant over both precisions; `who` names the calls in the messages.
template <class Solver, class Handle>
Solver& solver_in(Handle* plan, const char* who) {
  if (plan == nullptr) throw triax::invalid_argument(std::string(who) + ": plan is null");
  auto* s = std::get_if<Solver>(&plan->solver);
  if (s == nullptr) {
    throw triax::invalid_argument(std::string(who) +
                                  ": the plan was made for the other precision (_f and _d must match)");
  }
  return *s;
}

/// `name` is the argument as the caller's function names it (messages say "who: name->rank").
inline triax::Layout to_layout(const triax_layout* l, const char* who = "triax_plan_create",
                               const char* name = "layout") {
  if (l == nullptr) throw triax::invalid_argument(std::string(who) + ": " + name + " is null");
  if (l->rank < 1 || l->rank > triax::max_rank) {
    throw triax::invalid_argument(std::string(who) + ": " + name + "->rank = " + std::to_string(l->rank) +
                                  "; the rank must be 1..8");
  }
  return triax::Layout::strided(std::span<const int64_t>(l->extents, l->rank),
                                std::span<const int64_t>(l->strides, l->rank), l->offset);
}

inline triax::Backend to_backend(triax_backend backend, const char* who) {
  if (backend < TRIAX_BACKEND_REFERENCE || backend > TRIAX_BACKEND_CUDA) {
    throw triax::invalid_argument(std::string(who) + ": backend = " +
                                  std::to_string(static_cast<int>(backend)) + " is not a backend");
  }
  return static_cast<triax::Backend>(backend);
}

inline triax::Options to_options(const triax_options* o, const char* who = "triax_plan_create") {
  triax::Options opt;
  if (o == nullptr) return opt;
  if (o->algorithm < 0 ||
      triax::to_string(static_cast<triax::Algorithm>(o->algorithm)) == "unknown") {
    throw triax::invalid_argument(std::string(who) + ": options->algorithm = " +
                                  std::to_string(o->algorithm) + " is not an algorithm");
  }
  opt.algorithm = static_cast<triax::Algorithm>(o->algorithm);
  opt.checked = o->checked != 0;
  opt.stream = o->stream;
  opt.num_threads = o->num_threads;
  return opt;
}

}  // namespace triax::capi
