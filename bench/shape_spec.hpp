#pragma once
// `triax-bench --suite shapes --shape SPEC`: a draw given on the command line instead of the seeded
// ones, so that one question (a rule's edge, an A/B of a switch) is timed on the shapes it concerns
// with the suite's layouts, bytes and report. SPEC is PRECISION:EXTENTS:AXIS[:FLAGS], e.g.
// float:294x511x289:1:bcast or double:300x240x240:0:ghost1,offset,separate, with FLAGS a comma
// list of bcast (a, b, c one system's, for every system), ghostK (K ghost layers each side of
// every dimension), offset (the base pointer one element off a 16-byte boundary), separate or
// increment (the mode; in place by default).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "shape_classes.hpp"

namespace triax::bench {

/// The draw SPEC describes; std::invalid_argument naming SPEC and the part at fault otherwise.
inline ShapeDraw parse_shape_draw(std::string_view spec) {
  const auto fail = [&](const std::string& why) {
    return std::invalid_argument("--shape '" + std::string(spec) + "': " + why);
  };
  std::vector<std::string> parts;
  for (std::size_t at = 0;;) {
    const std::size_t colon = spec.find(':', at);
    parts.emplace_back(spec.substr(at, colon == std::string_view::npos ? colon : colon - at));
    if (colon == std::string_view::npos) break;
    at = colon + 1;
  }
  if (parts.size() < 3 || parts.size() > 4) {
    throw fail("expected PRECISION:EXTENTS:AXIS[:FLAGS]");
  }
  const auto number = [&](const std::string& text, const char* what) {
    std::size_t used = 0;
    long long v = -1;
    try {
      v = std::stoll(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (text.empty() || used != text.size() || v < 0) {
      throw fail(std::string("bad ") + what + " '" + text + "'");
    }
    return static_cast<std::int64_t>(v);
  };
  Precision precision;
  if (parts[0] == "float") {
    precision = Precision::f32;
  } else if (parts[0] == "double") {
    precision = Precision::f64;
  } else {
    throw fail("precision '" + parts[0] + "' is not float or double");
  }
  std::vector<std::int64_t> extents;
  for (std::size_t at = 0;;) {
    const std::size_t x = parts[1].find('x', at);
    const std::string part = parts[1].substr(at, x == std::string::npos ? x : x - at);
    const std::int64_t e = number(part, "extent");
    if (e < 1) throw fail("extents must be at least 1");
    extents.push_back(e);
    if (x == std::string::npos) break;
    at = x + 1;
  }
  const std::int64_t axis = number(parts[2], "axis");
  if (axis >= static_cast<std::int64_t>(extents.size())) {
    throw fail("axis " + parts[2] + " is not an axis of " + parts[1]);
  }
  bool broadcast = false;
  std::int64_t ghosts = 0, offset = 0;
  Mode mode = Mode::in_place;
  if (parts.size() == 4) {
    for (std::size_t at = 0;;) {
      const std::size_t comma = parts[3].find(',', at);
      const std::string flag =
          parts[3].substr(at, comma == std::string::npos ? comma : comma - at);
      if (flag == "bcast") {
        broadcast = true;
      } else if (flag == "offset") {
        offset = 1;
      } else if (flag == "separate") {
        mode = Mode::separate;
      } else if (flag == "increment") {
        mode = Mode::increment;
      } else if (flag.rfind("ghost", 0) == 0 && flag.size() > 5) {
        ghosts = number(flag.substr(5), "ghost count");
      } else {
        throw fail("unknown flag '" + flag + "'");
      }
      if (comma == std::string::npos) break;
      at = comma + 1;
    }
  }
  const ShapeClass klass = broadcast                      ? ShapeClass::operands
                           : ghosts > 0 || offset > 0 ? ShapeClass::padded
                                                      : ShapeClass::lengths;
  ShapeDraw d = shape_detail::packed_draw(klass, precision, extents, static_cast<int>(axis));
  for (std::size_t k = 0; k < extents.size(); ++k) {
    d.allocated[k] += 2 * ghosts;
    d.begin[k] = ghosts;
  }
  d.base_offset = offset;
  d.mode = mode;
  d.broadcast = broadcast;
  return d;
}

}  // namespace triax::bench
