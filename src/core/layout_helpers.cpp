// triax::layouts: paper 002's layouts and their N-D forms, as strided layouts.
#include <cstdint>
#include <string>
#include <vector>

#include "triax/errors.hpp"
#include "triax/layouts.hpp"

namespace triax::layouts {
namespace {

constexpr const char* who = "triax::layouts: ";

void check_order(std::span<const std::int64_t> extents, std::span<const int> order) {
  if (order.size() != extents.size()) {
    throw invalid_argument(std::string(who) + "storage_order has " + std::to_string(order.size()) +
                           " entries but extents has " + std::to_string(extents.size()));
  }
  std::vector<bool> seen(extents.size(), false);
  for (std::size_t k = 0; k < order.size(); ++k) {
    const int d = order[k];
    if (d < 0 || d >= static_cast<int>(extents.size()) || seen[d]) {
      throw invalid_argument(std::string(who) + "storage_order[" + std::to_string(k) +
                             "] = " + std::to_string(d) +
                             " is out of range or repeated: it must be a permutation of 0.." +
                             std::to_string(static_cast<int>(extents.size()) - 1));
    }
    seen[d] = true;
  }
}

}  // namespace

Layout component(std::span<const std::int64_t> extents, std::span<const int> storage_order,
                 std::int64_t components, int where, std::int64_t k) {
  check_order(extents, storage_order);
  const int rank = static_cast<int>(extents.size());
  if (components < 1) {
    throw invalid_argument(std::string(who) + "components = " + std::to_string(components) +
                           " must be at least 1");
  }
  if (where < 0 || where > rank) {
    throw invalid_argument(std::string(who) + "where = " + std::to_string(where) +
                           " is outside 0.." + std::to_string(rank));
  }
  if (k < 0 || k >= components) {
    throw invalid_argument(std::string(who) + "component k = " + std::to_string(k) +
                           " is outside 0.." + std::to_string(components - 1));
  }
  for (std::size_t d = 0; d < extents.size(); ++d) {
    if (extents[d] < 0) {
      throw invalid_argument(std::string(who) + "extents[" + std::to_string(d) +
                             "] = " + std::to_string(extents[d]) + " is negative");
    }
  }
  std::vector<std::int64_t> strides(extents.size());
  std::int64_t stride = 1, offset = 0;
  for (int pos = 0; pos <= rank; ++pos) {
    if (pos == where) {
      offset = k * stride;
      if (__int128(stride) * components > INT64_MAX) {
        throw invalid_argument(std::string(who) + "components = " + std::to_string(components) +
                               " overflows 64 bits");
      }
      stride *= components;
    }
    if (pos == rank) break;
    strides[storage_order[pos]] = stride;
    // Every stride must fit in 64 bits (the layout's own checks see only the extents).
    if (__int128(stride) * extents[storage_order[pos]] > INT64_MAX) {
      throw invalid_argument(std::string(who) + "the array of " + std::to_string(components) +
                             " components overflows 64 bits at extents[" +
                             std::to_string(storage_order[pos]) +
                             "] = " + std::to_string(extents[storage_order[pos]]));
    }
    stride *= extents[storage_order[pos]];
  }
  return Layout::strided(extents, strides, offset);
}

Layout ordered(std::span<const std::int64_t> extents, std::span<const int> storage_order) {
  return component(extents, storage_order, 1, 0, 0);
}

OperandLayouts unified(std::span<const std::int64_t> extents, std::span<const int> storage_order,
                       int where) {
  const auto part = [&](std::int64_t k) {
    return component(extents, storage_order, 4, where, k);
  };
  return OperandLayouts(part(0), part(1), part(2), part(3), part(3));
}

Layout flat(std::int64_t n, std::int64_t count) { return ordered({n, count}, {0, 1}); }
Layout interleaved(std::int64_t n, std::int64_t count) { return ordered({n, count}, {1, 0}); }
OperandLayouts unified_vector(std::int64_t n, std::int64_t count) {
  const std::int64_t extents[] = {n, count};
  const int order[] = {1, 0};
  return unified(extents, order, 0);
}

}  // namespace triax::layouts
