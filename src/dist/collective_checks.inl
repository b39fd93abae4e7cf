// verdict_of: the template part of collective_checks.hpp.
#include <new>

#include "triax/errors.hpp"

namespace triax::detail {

template <class Checks>
Verdict verdict_of(Checks&& checks) {
  try {
    checks();
    return {};
  } catch (const invalid_argument& e) {
    return {Verdict::Kind::invalid_argument, e.what()};
  } catch (const out_of_memory& e) {
    return {Verdict::Kind::out_of_memory, e.what()};
  } catch (const std::bad_alloc&) {
    return {Verdict::Kind::out_of_memory, "a buffer could not be allocated"};
  } catch (const mpi_error& e) {
    return {Verdict::Kind::mpi_error, e.what()};
  } catch (const std::exception& e) {
    return {Verdict::Kind::other, e.what()};
  }
}

}  // namespace triax::detail
