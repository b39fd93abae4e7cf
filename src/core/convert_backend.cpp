// triax::layouts::convert: the host conversion (triax::convert) or the device one, after the
// checks both share.
#include <string>

#include "core/backend_plan.hpp"
#include "core/convert_checks.hpp"
#include "core/device_convert.hpp"
#include "triax/block.hpp"
#include "triax/errors.hpp"
#include "triax/layouts.hpp"

namespace triax::layouts {

template <class T>
void convert(Backend backend, const Layout& from, const T* src, const Layout& to, T* dst,
             void* stream) {
  switch (backend) {
    case Backend::reference:
    case Backend::cpu:
      triax::convert(from, src, to, dst);
      return;
    case Backend::cuda:
      if (!detail::cuda_compiled()) {
        throw not_compiled(
            "triax::layouts::convert: the cuda backend was not compiled into this build");
      }
      break;
    default:
      throw invalid_argument("triax::layouts::convert: backend = " +
                             std::to_string(static_cast<int>(backend)) + " is not a backend");
  }
  const std::string who = "triax::layouts::convert: ";
  detail::check_conversion(who, from, src, to, dst, sizeof(T));
  if (from.size() == 0) return;
  const void* pointers[] = {src, dst};
  const char* names[] = {"src", "dst"};
  for (int k = 0; k < 2; ++k) {
    if (detail::memory_space_of(pointers[k]) == detail::MemorySpace::host) {
      throw invalid_argument(who + "the cuda backend needs device memory, but " + names[k] +
                             " is a host pointer");
    }
  }
  detail::device_convert(from, src, to, dst, stream);
}

template TRIAX_API void convert<float>(Backend, const Layout&, const float*, const Layout&, float*,
                                       void*);
template TRIAX_API void convert<double>(Backend, const Layout&, const double*, const Layout&,
                                        double*, void*);

}  // namespace triax::layouts
