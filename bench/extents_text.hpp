#pragma once
// Extents and process grids as the command lines write them: {256, 128} -> "256x128".
#include <string>
#include <vector>

namespace triax::bench {

template <class V>
std::string extents_text(const std::vector<V>& e) {
  std::string s;
  for (std::size_t i = 0; i < e.size(); ++i) {
    if (i) s += 'x';
    s += std::to_string(e[i]);
  }
  return s;
}

}  // namespace triax::bench
