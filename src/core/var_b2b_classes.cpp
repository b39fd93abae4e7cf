// Length classes of a back-to-back variable batch (var_b2b_classes.hpp).
#include "core/var_b2b_classes.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

namespace triax::detail {

namespace {

/// Index of the class of a system of n rows (1 <= n <= max_rows): P = min_P << k.
int class_of(std::int64_t n) {
  int k = 0;
  while (std::int64_t(B2BPlan::M) * (B2BPlan::min_P << k) < n) ++k;
  return k;
}

}  // namespace

B2BPlan plan_b2b_classes(const std::vector<std::int64_t>& lengths,
                         const std::vector<std::int64_t>& offsets,
                         std::int64_t min_class_systems) {
  constexpr int kinds = 6;  // P = 8, 16, 32, 64, 128, 256
  static_assert((B2BPlan::min_P << (kinds - 1)) == B2BPlan::max_P);
  std::vector<std::vector<std::size_t>> members(kinds);
  B2BPlan plan;
  for (std::size_t s = 0; s < lengths.size(); ++s) {
    const std::int64_t n = lengths[s];
    if (n <= 0) continue;
    if (n > B2BPlan::max_rows) {
      plan.rest.push_back(static_cast<std::int64_t>(s));
      continue;
    }
    members[static_cast<std::size_t>(class_of(n))].push_back(s);
  }
  // Small classes move up into the next non-empty one; the largest non-empty class stays.
  int last = -1;
  for (int k = 0; k < kinds; ++k) {
    if (!members[static_cast<std::size_t>(k)].empty()) last = k;
  }
  for (int k = 0; k < last; ++k) {
    auto& here = members[static_cast<std::size_t>(k)];
    if (here.empty() || static_cast<std::int64_t>(here.size()) >= min_class_systems) continue;
    auto& up = members[static_cast<std::size_t>(k + 1)];
    // Keep the batch's order within the merged class.
    std::vector<std::size_t> merged;
    merged.reserve(here.size() + up.size());
    std::size_t i = 0, j = 0;
    while (i < here.size() || j < up.size()) {
      if (j == up.size() || (i < here.size() && here[i] < up[j])) {
        merged.push_back(here[i++]);
      } else {
        merged.push_back(up[j++]);
      }
    }
    up.swap(merged);
    here.clear();
  }
  for (int k = 0; k < kinds; ++k) {
    const auto& m = members[static_cast<std::size_t>(k)];
    if (m.empty()) continue;
    B2BClass c;
    c.P = B2BPlan::min_P << k;
    c.first = static_cast<std::int64_t>(plan.entries.size());
    c.count = static_cast<std::int64_t>(m.size());
    for (const std::size_t s : m) {
      plan.entries.push_back({offsets[s], lengths[s]});
      if (lengths[s] > c.longest) c.longest = lengths[s];
    }
    plan.classes.push_back(c);
  }
  return plan;
}

namespace {
constexpr std::pair<B2BVariant, std::string_view> variant_names[] = {
    {B2BVariant::base, "base"},
    {B2BVariant::ahead, "ahead"},
    {B2BVariant::prefetch, "prefetch"}};
}  // namespace

B2BVariant parse_b2b_variant(const char* name) {
  if (name == nullptr || *name == '\0') return B2BVariant::base;
  std::string known;
  for (const auto& [v, text] : variant_names) {
    if (text == name) return v;
    known += (known.empty() ? "" : ", ") + std::string(text);
  }
  throw std::invalid_argument("TRIAX_CUDA_VAR_B2B_VARIANT: unknown value '" + std::string(name) +
                              "' (one of " + known + ")");
}

std::string_view to_string(B2BVariant v) {
  for (const auto& [value, text] : variant_names) {
    if (value == v) return text;
  }
  return "?";
}

B2BTiles plan_b2b_tiles(const std::vector<std::int64_t>& lengths,
                        const std::vector<std::int64_t>& offsets,
                        const std::vector<std::int64_t>& systems) {
  B2BTiles t;
  for (const std::int64_t s : systems) {
    const std::int64_t n = lengths[static_cast<std::size_t>(s)];
    if (n > B2BTiles::max_long_rows) {
      t.rest.push_back(s);
      continue;
    }
    // Tiles of nearly equal rows, none above tile_rows: every tile's 32 chunks then have 7 or 8
    // rows (n > 2048 gives at least 9 tiles of at least 227 rows), never the one-row chunk that
    // the hybrid reserves for a one-row system.
    const std::int64_t count = (n + B2BTiles::tile_rows - 1) / B2BTiles::tile_rows;
    const std::int64_t q = n / count, rem = n % count;
    t.reduced_offsets.push_back(t.reduced_rows);
    t.reduced_lengths.push_back(2 * count);
    std::int64_t row = 0;
    for (std::int64_t k = 0; k < count; ++k) {
      const std::int64_t rows = q + (k < rem ? 1 : 0);
      t.tiles.push_back({offsets[static_cast<std::size_t>(s)] + row, t.reduced_rows + 2 * k,
                         static_cast<std::int32_t>(rows),
                         static_cast<std::int32_t>((k == 0 ? 1 : 0) | (k + 1 == count ? 2 : 0))});
      row += rows;
    }
    t.reduced_rows += 2 * count;
  }
  return t;
}

}  // namespace triax::detail
