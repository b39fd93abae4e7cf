#include "core/convert_checks.hpp"

#include <cstdint>
#include <cstdio>
#include <utility>

#include "triax/errors.hpp"

namespace triax::detail {
namespace {

// The byte range [lo, hi) a layout spans.
std::pair<std::uintptr_t, std::uintptr_t> span_of(const void* p, const Layout& l, std::size_t e) {
  std::int64_t hi = l.offset();
  for (int k = 0; k < l.rank(); ++k) hi += (l.extent(k) - 1) * l.stride(k);
  const auto base = reinterpret_cast<std::uintptr_t>(p);
  return {base + static_cast<std::uintptr_t>(l.offset()) * e,
          base + (static_cast<std::uintptr_t>(hi) + 1) * e};
}

}  // namespace

void check_conversion(const std::string& who, const Layout& from, const void* src, const Layout& to,
                      const void* dst, std::size_t element_size) {
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
  const auto s = span_of(src, from, element_size), d = span_of(dst, to, element_size);
  if (s.first < d.second && d.first < s.second) {
    char text[80];
    std::snprintf(text, sizeof text, "dst = %p overlaps src = %p", dst, src);
    throw invalid_argument(who + text);
  }
}

}  // namespace triax::detail
