// Layout constructors and their argument checks.
#include "triax/layout.hpp"

#include <algorithm>
#include <string>

#include "triax/errors.hpp"

namespace triax {
namespace {

void check_rank(std::size_t rank, const char* what) {
  if (rank < 1 || rank > static_cast<std::size_t>(max_rank)) {
    throw invalid_argument(std::string("triax::Layout: ") + what + " has rank " +
                           std::to_string(rank) + "; the rank must be 1.." +
                           std::to_string(max_rank));
  }
}

void check_nonnegative(std::span<const std::int64_t> values, const char* what) {
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (values[k] < 0) {
      throw invalid_argument(std::string("triax::Layout: ") + what + "[" + std::to_string(k) +
                             "] = " + std::to_string(values[k]) + " is negative");
    }
  }
}

// The element count must fit 64 bits (size() returns it), and so must the product of the
// extents other than 0: a plan's system count is a product of extents, and an empty array of
// 2^32 x 2^33 systems must not wrap to a small one.
void check_element_count(std::span<const std::int64_t> extents) {
  __int128 count = 1;
  for (const std::int64_t e : extents) {
    if (e == 0) continue;
    count *= e;
    if (count > INT64_MAX) {
      std::string list;
      for (std::size_t k = 0; k < extents.size(); ++k) {
        list += (k ? ", " : "") + std::to_string(extents[k]);
      }
      throw invalid_argument("triax::Layout: extents {" + list +
                             "}: the number of elements (the product of the extents other "
                             "than 0) overflows 64 bits");
    }
  }
}

}  // namespace

Layout Layout::strided(std::span<const std::int64_t> extents,
                       std::span<const std::int64_t> strides, std::int64_t offset) {
  check_rank(extents.size(), "extents");
  if (strides.size() != extents.size()) {
    throw invalid_argument("triax::Layout: strides has " + std::to_string(strides.size()) +
                           " entries but extents has " + std::to_string(extents.size()));
  }
  check_nonnegative(extents, "extents");
  check_element_count(extents);
  // Negative strides are not supported: reversing an axis is rarely needed and every kernel
  // would have to be audited for it.
  check_nonnegative(strides, "strides");
  if (offset < 0) {
    throw invalid_argument("triax::Layout: offset = " + std::to_string(offset) +
                           " is negative");
  }
  Layout l;
  l.rank_ = static_cast<int>(extents.size());
  for (int k = 0; k < l.rank_; ++k) {
    l.extents_[k] = extents[k];
    l.strides_[k] = strides[k];
  }
  l.offset_ = offset;
  return l;
}

Layout Layout::packed(std::span<const std::int64_t> extents) {
  check_rank(extents.size(), "extents");
  check_nonnegative(extents, "extents");
  Extents strides{};
  std::int64_t s = 1;
  for (std::size_t k = 0; k < extents.size(); ++k) {
    strides[k] = s;
    // An empty dimension still gets distinct strides after it (the array holds nothing anyway).
    // Saturate instead of overflowing; the plan's overflow check then rejects the layout.
    const std::int64_t e = std::max<std::int64_t>(extents[k], 1);
    s = s > INT64_MAX / e ? INT64_MAX : s * e;
  }
  return strided(extents, std::span<const std::int64_t>(strides.data(), extents.size()), 0);
}

Layout Layout::padded(std::span<const std::int64_t> extents,
                      std::span<const std::int64_t> allocated,
                      std::span<const std::int64_t> begin) {
  check_rank(extents.size(), "extents");
  if (allocated.size() != extents.size()) {
    throw invalid_argument("triax::Layout: allocated has " + std::to_string(allocated.size()) +
                           " entries but extents has " + std::to_string(extents.size()));
  }
  if (!begin.empty() && begin.size() != extents.size()) {
    throw invalid_argument("triax::Layout: begin has " + std::to_string(begin.size()) +
                           " entries but extents has " + std::to_string(extents.size()));
  }
  check_nonnegative(extents, "extents");
  check_nonnegative(allocated, "allocated");
  check_nonnegative(begin, "begin");
  Extents strides{};
  std::int64_t s = 1;
  __int128 offset = 0;  // 128 bits: a wrapped offset must not pass for a small one
  for (std::size_t k = 0; k < extents.size(); ++k) {
    const std::int64_t b = begin.empty() ? 0 : begin[k];
    const __int128 end = static_cast<__int128>(b) + extents[k];
    if (end > allocated[k]) {
      const std::string sum = end > INT64_MAX ? "more than 2^63 - 1"
                                              : std::to_string(static_cast<std::int64_t>(end));
      throw invalid_argument("triax::Layout: begin[" + std::to_string(k) + "] + extents[" +
                             std::to_string(k) + "] = " + std::to_string(b) + " + " +
                             std::to_string(extents[k]) + " = " + sum + " exceeds allocated[" +
                             std::to_string(k) + "] = " + std::to_string(allocated[k]));
    }
    strides[k] = s;
    offset += static_cast<__int128>(b) * s;
    if (offset > INT64_MAX) {
      throw invalid_argument("triax::Layout: the offset of the first interior point (begin[" +
                             std::to_string(k) + "] = " + std::to_string(b) +
                             " times the stride " + std::to_string(s) +
                             ", with the dimensions before it) overflows 64 bits");
    }
    const std::int64_t e = std::max<std::int64_t>(allocated[k], 1);
    s = s > INT64_MAX / e ? INT64_MAX : s * e;
  }
  return strided(extents, std::span<const std::int64_t>(strides.data(), extents.size()),
                 static_cast<std::int64_t>(offset));
}

std::int64_t Layout::size() const {
  std::int64_t n = 1;  // construction checked that the product fits
  for (int k = 0; k < rank_; ++k) n *= extents_[k];
  return n;
}

std::int64_t Layout::offset_of(std::span<const std::int64_t> index) const {
  std::int64_t off = offset_;
  for (int k = 0; k < rank_; ++k) off += index[k] * strides_[k];
  return off;
}

}  // namespace triax
