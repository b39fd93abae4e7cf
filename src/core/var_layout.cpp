// triax::VarLayout: the two storage forms of a variable-size batch, checked once when made.
#include <algorithm>
#include <limits>
#include <string>

#include "core/normalize.hpp"
#include "core/validate.hpp"
#include "core/var_problem.hpp"
#include "triax/errors.hpp"

namespace triax {
namespace {

constexpr const char* who = "triax::VarLayout: ";

void check_lengths(std::span<const std::int64_t> lengths, VarLayout::Data& d) {
  d.lengths.assign(lengths.begin(), lengths.end());
  for (std::size_t s = 0; s < lengths.size(); ++s) {
    if (lengths[s] < 0) {
      throw invalid_argument(std::string(who) + "lengths[" + std::to_string(s) +
                             "] = " + std::to_string(lengths[s]) + " is negative");
    }
    if (lengths[s] > std::numeric_limits<std::int64_t>::max() - d.total_rows) {
      throw invalid_argument(std::string(who) + "the lengths' sum overflows 64 bits at lengths[" +
                             std::to_string(s) + "] = " + std::to_string(lengths[s]));
    }
    d.total_rows += lengths[s];
    d.max_length = std::max(d.max_length, lengths[s]);
  }
}

}  // namespace

VarLayout VarLayout::back_to_back(std::span<const std::int64_t> lengths_in,
                                  std::span<const std::int64_t> offsets_in) {
  const std::vector<std::int64_t> lengths_host = detail::host_values(lengths_in);
  const std::vector<std::int64_t> offsets_host = detail::host_values(offsets_in);
  const std::span<const std::int64_t> lengths(lengths_host), offsets(offsets_host);
  auto d = std::make_shared<Data>();
  check_lengths(lengths, *d);
  if (offsets.size() != lengths.size()) {
    throw invalid_argument(std::string(who) + "offsets has " + std::to_string(offsets.size()) +
                           " entries but lengths has " + std::to_string(lengths.size()));
  }
  d->offsets.assign(offsets.begin(), offsets.end());
  std::vector<std::int64_t> order;
  order.reserve(offsets.size());
  for (std::size_t s = 0; s < offsets.size(); ++s) {
    if (offsets[s] < 0) {
      throw invalid_argument(std::string(who) + "offsets[" + std::to_string(s) +
                             "] = " + std::to_string(offsets[s]) + " is negative");
    }
    if (offsets[s] > std::numeric_limits<std::int64_t>::max() - lengths[s]) {
      throw invalid_argument(std::string(who) + "offsets[" + std::to_string(s) +
                             "] = " + std::to_string(offsets[s]) + " + lengths[" +
                             std::to_string(s) + "] overflows 64 bits");
    }
    if (lengths[s] > 0) order.push_back(static_cast<std::int64_t>(s));
    d->span = std::max(d->span, offsets[s] + lengths[s]);
  }
  // Systems of no rows cover nothing; the others must not share an element (the output would be
  // written twice), which sorted by offset means each starts at or after the previous one's end.
  std::sort(order.begin(), order.end(), [&](std::int64_t x, std::int64_t y) {
    return offsets[x] != offsets[y] ? offsets[x] < offsets[y] : x < y;
  });
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::int64_t s = order[k], lo = offsets[s], hi = lo + lengths[s];
    if (k > 0) {
      const std::int64_t prev = order[k - 1];
      if (lo < offsets[prev] + lengths[prev]) {
        throw invalid_argument(
            std::string(who) + "offsets[" + std::to_string(s) + "] = " + std::to_string(lo) +
            " starts inside system " + std::to_string(prev) + " (offsets[" +
            std::to_string(prev) + "] = " + std::to_string(offsets[prev]) + ", lengths[" +
            std::to_string(prev) + "] = " + std::to_string(lengths[prev]) +
            "): systems may not share rows");
      }
    }
    if (!d->runs.empty() && d->runs.back().second == lo) {
      d->runs.back().second = hi;
    } else {
      d->runs.emplace_back(lo, hi);
    }
  }
  return VarLayout(std::move(d));
}

VarLayout VarLayout::back_to_back(std::span<const std::int64_t> lengths_in) {
  const std::vector<std::int64_t> lengths = detail::host_values(lengths_in);
  std::vector<std::int64_t> offsets(lengths.size());
  std::int64_t next = 0;
  for (std::size_t s = 0; s < lengths.size(); ++s) {
    offsets[s] = next;
    // Negative lengths and overflow are reported by the general form.
    if (lengths[s] > 0 && next <= std::numeric_limits<std::int64_t>::max() - lengths[s]) {
      next += lengths[s];
    }
  }
  return back_to_back(lengths, offsets);
}

VarLayout VarLayout::padded(const OperandLayouts& layouts, int axis,
                            std::span<const std::int64_t> lengths_in) {
  const std::vector<std::int64_t> lengths_host = detail::host_values(lengths_in);
  const std::span<const std::int64_t> lengths(lengths_host);
  auto d = std::make_shared<Data>();
  detail::validate_layouts(layouts, axis);
  check_lengths(lengths, *d);
  d->layouts = layouts;
  d->fixed = detail::normalize(layouts, axis);
  if (static_cast<std::int64_t>(lengths.size()) != d->fixed.count) {
    throw invalid_argument(std::string(who) + "lengths has " + std::to_string(lengths.size()) +
                           " entries but the layouts hold " + std::to_string(d->fixed.count) +
                           " systems along axis " + std::to_string(axis));
  }
  for (std::size_t s = 0; s < lengths.size(); ++s) {
    if (lengths[s] > d->fixed.n) {
      throw invalid_argument(std::string(who) + "lengths[" + std::to_string(s) +
                             "] = " + std::to_string(lengths[s]) + " exceeds the axis extent " +
                             std::to_string(d->fixed.n) + " of the padded layouts");
    }
  }
  const Layout* all[] = {&layouts.a, &layouts.b, &layouts.c, &layouts.d, &layouts.x};
  for (const Layout* l : all) {
    if (l->size() == 0) continue;
    std::int64_t last = l->offset();
    for (int k = 0; k < l->rank(); ++k) last += (l->extent(k) - 1) * l->stride(k);
    d->span = std::max(d->span, last + 1);
  }
  return VarLayout(std::move(d));
}

std::int64_t VarLayout::count() const { return static_cast<std::int64_t>(data_->lengths.size()); }
std::int64_t VarLayout::length(std::int64_t s) const {
  if (s < 0 || s >= count()) {
    throw invalid_argument(std::string(who) + "system s = " + std::to_string(s) +
                           " is outside 0.." + std::to_string(count() - 1));
  }
  return data_->lengths[static_cast<std::size_t>(s)];
}
std::int64_t VarLayout::offset(std::int64_t s) const {
  if (data_->padded()) {
    throw invalid_argument(std::string(who) + "offset(" + std::to_string(s) +
                           ") asked of a padded layout (systems are placed by its layouts)");
  }
  length(s);  // range check
  return data_->offsets[static_cast<std::size_t>(s)];
}
bool VarLayout::is_padded() const { return data_->padded(); }
std::int64_t VarLayout::total_rows() const { return data_->total_rows; }
std::int64_t VarLayout::max_length() const { return data_->max_length; }
std::int64_t VarLayout::span() const { return data_->span; }

namespace detail {

std::vector<std::int64_t> split_by_rows(const std::vector<std::int64_t>& lengths, int parts) {
  const auto count = static_cast<std::int64_t>(lengths.size());
  __int128 total = 0;
  for (const std::int64_t n : lengths) total += n + 1;
  std::vector<std::int64_t> bounds(static_cast<std::size_t>(parts) + 1, count);
  bounds[0] = 0;
  std::int64_t s = 0;
  __int128 done = 0;
  for (int t = 1; t < parts; ++t) {
    const __int128 target = total * t / parts;
    while (s < count && done + lengths[static_cast<std::size_t>(s)] + 1 <= target) {
      done += lengths[static_cast<std::size_t>(s)] + 1;
      ++s;
    }
    bounds[static_cast<std::size_t>(t)] = s;
  }
  return bounds;
}

}  // namespace detail
}  // namespace triax
