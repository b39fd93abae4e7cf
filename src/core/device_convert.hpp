#pragma once
// The CUDA side of triax::layouts::convert (src/cuda/convert), or its not_compiled stand-in.
#include "triax/layout.hpp"

namespace triax::detail {

/// Copies `src` (laid out as `from`) to `dst` (as `to`), both device memory, on `stream`.
/// Arguments already checked.
template <class T>
void device_convert(const Layout& from, const T* src, const Layout& to, T* dst, void* stream);

}  // namespace triax::detail
