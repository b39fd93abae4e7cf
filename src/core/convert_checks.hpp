#pragma once
// The argument checks every conversion between two layouts shares (triax::convert on the host,
// triax::layouts::convert on any backend), with the caller's name in each message.
#include <cstddef>
#include <string>

#include "triax/layout.hpp"

namespace triax::detail {

/// Throws triax::invalid_argument, the message starting with `who`, for layouts of different
/// ranks or extents, a null src or dst (unless there is nothing to copy), a destination that
/// writes an element twice (stride 0 over an extent > 1) or source and destination spans that
/// overlap.
void check_conversion(const std::string& who, const Layout& from, const void* src, const Layout& to,
                      const void* dst, std::size_t element_size);

}  // namespace triax::detail
