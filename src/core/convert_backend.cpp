// triax::layouts::convert: the host conversion (triax::convert) or the device one, after the
// checks both share.
#include <cstdio>
#include <string>

#include "core/backend_plan.hpp"
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
    case Backend::cpu: triax::convert(from, src, to, dst); return;
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
  if (from.rank() != to.rank()) {
    throw invalid_argument(who + "layout from has rank " + std::to_string(from.rank()) +
                           " but to has rank " + std::to_string(to.rank()));
  }
  for (int k = 0; k < from.rank(); ++k) {
    if (from.extent(k) != to.extent(k)) {
      throw invalid_argument(who + "layout to has extent[" + std::to_string(k) +
                             "] = " + std::to_string(to.extent(k)) + " but from has " +
                             std::to_string(from.extent(k)));
    }
  }
  if (from.size() == 0) return;
  if (src == nullptr) throw invalid_argument(who + "pointer src is null");
  if (dst == nullptr) throw invalid_argument(who + "pointer dst is null");
  for (int k = 0; k < to.rank(); ++k) {
    if (to.stride(k) == 0 && to.extent(k) > 1) {
      throw invalid_argument(who + "layout to has stride[" + std::to_string(k) +
                             "] = 0 with extent " + std::to_string(to.extent(k)) +
                             ": an element would be written more than once");
    }
  }
  const auto span = [](const void* p, const Layout& l) {
    std::int64_t hi = l.offset();
    for (int k = 0; k < l.rank(); ++k) hi += (l.extent(k) - 1) * l.stride(k);
    const auto b = reinterpret_cast<std::uintptr_t>(p);
    return std::pair{b + static_cast<std::uintptr_t>(l.offset()) * sizeof(T),
                     b + (static_cast<std::uintptr_t>(hi) + 1) * sizeof(T)};
  };
  const auto s = span(src, from), d = span(dst, to);
  if (s.first < d.second && d.first < s.second) {
    char text[80];
    std::snprintf(text, sizeof text, "dst = %p overlaps src = %p", static_cast<void*>(dst),
                  static_cast<const void*>(src));
    throw invalid_argument(who + text);
  }
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
