// Splitting a factored batch into groups of systems that share a matrix (groups.hpp).
#include "core/factored/groups.hpp"

#include <algorithm>
#include <string>

#include "triax/errors.hpp"

namespace triax::detail {
namespace {

Layout with_group_extents_one(const Layout& l, const std::vector<int>& dims) {
  std::vector<std::int64_t> extents(l.rank()), strides(l.rank());
  for (int k = 0; k < l.rank(); ++k) {
    extents[k] = l.extent(k);
    strides[k] = l.stride(k);
  }
  for (int k : dims) extents[k] = 1;
  return Layout::strided(extents, strides, l.offset());
}

}  // namespace

GroupSplit split_groups(const Layout& coefficients, const Layout& d, const Layout& x, int axis,
                        const char* who) {
  const std::string w(who);
  if (coefficients.rank() != d.rank()) {
    throw invalid_argument(w + ": coefficients.rank = " + std::to_string(coefficients.rank()) +
                           " differs from d's rank " + std::to_string(d.rank()));
  }
  GroupSplit s;
  for (int k = 0; k < d.rank(); ++k) {
    const std::int64_t e = coefficients.extent(k);
    // Off the axis an extent of 1 broadcasts (NumPy's rule); anything else must be d's extent,
    // or coordinates of d would have no coefficient (or coefficients no system).
    if (e != d.extent(k) && !(k != axis && e == 1)) {
      throw invalid_argument(w + ": coefficients.extent[" + std::to_string(k) +
                             "] = " + std::to_string(e) + " differs from d's extent[" +
                             std::to_string(k) + "] = " + std::to_string(d.extent(k)) +
                             (k == axis ? " (the axis)" : " (give d's extent, or 1 to share)"));
    }
    if (k != axis && e > 1 && coefficients.stride(k) != 0) s.dims.push_back(k);
  }
  s.count = 1;
  for (int k : s.dims) {
    s.count *= d.extent(k);
    if (s.count > max_factored_groups) {
      throw invalid_argument(w + ": coefficients give more than " +
                             std::to_string(max_factored_groups) +
                             " groups of systems (a matrix per system is triax::Solver's work)");
    }
  }
  s.systems_per_group = 1;
  int slowest_free = -1;
  for (int k = 0; k < d.rank(); ++k) {
    if (k == axis) continue;
    bool grouped = false;
    for (int g : s.dims) grouped = grouped || g == k;
    if (!grouped) {
      s.systems_per_group *= d.extent(k);
      if (d.extent(k) > 1) slowest_free = k;
    }
  }
  for (int g : s.dims) s.info_contiguous = s.info_contiguous && g > slowest_free;
  s.d = with_group_extents_one(d, s.dims);
  s.x = with_group_extents_one(x, s.dims);
  s.offset_d.resize(static_cast<std::size_t>(s.count));
  s.offset_x.resize(static_cast<std::size_t>(s.count));
  s.offset_coefficients.resize(static_cast<std::size_t>(s.count));
  for (std::int64_t g = 0; g < s.count; ++g) {
    // The group's coordinates in mixed radix over its dimensions, the lowest fastest (as info).
    std::int64_t rest = g, od = 0, ox = 0, oc = coefficients.offset();
    for (int k : s.dims) {
      const std::int64_t i = rest % d.extent(k);
      rest /= d.extent(k);
      od += i * d.stride(k);
      ox += i * x.stride(k);
      oc += i * coefficients.stride(k);
    }
    s.offset_d[g] = od;
    s.offset_x[g] = ox;
    s.offset_coefficients[g] = oc;
  }
  return s;
}

std::vector<std::int64_t> group_info_index(const GroupSplit& s, const Layout& d, int axis) {
  std::vector<std::int64_t> index(static_cast<std::size_t>(s.count * s.systems_per_group));
  std::int64_t total = 1;
  for (int k = 0; k < d.rank(); ++k) {
    if (k != axis) total *= d.extent(k);
  }
  for (std::int64_t api = 0; api < total; ++api) {
    // Split the API index into the group's and the free dimensions' mixed-radix digits.
    std::int64_t rest = api, g = 0, gw = 1, j = 0, jw = 1;
    for (int k = 0; k < d.rank(); ++k) {
      if (k == axis) continue;
      const std::int64_t i = rest % d.extent(k);
      rest /= d.extent(k);
      bool grouped = false;
      for (int gd : s.dims) grouped = grouped || gd == k;
      if (grouped) {
        g += i * gw;
        gw *= d.extent(k);
      } else {
        j += i * jw;
        jw *= d.extent(k);
      }
    }
    index[static_cast<std::size_t>(g * s.systems_per_group + j)] = api;
  }
  return index;
}

template <class T>
std::optional<FactorTable<T>> unify_tables(const std::vector<const FactorTable<T>*>& tables,
                                           std::int64_t systems_per_group, std::size_t max_bytes) {
  if (tables.empty() || systems_per_group <= 0) return std::nullopt;
  const FactorTable<T>& first = *tables.front();
  const std::int64_t n = first.n;
  if (n == 0) return std::nullopt;
  std::int64_t head = 0, tail = 0;
  for (const FactorTable<T>* t : tables) {
    if (t->breakdown != 0 || t->scaled != first.scaled || t->scale[0] != first.scale[0] ||
        t->scale[1] != first.scale[1]) {
      return std::nullopt;
    }
    head = std::max(head, t->head);
    tail = std::max(tail, t->tail);
  }
  if (head + tail >= n) {  // no row left for a limit: store every row (FactorTable's convention)
    head = n;
    tail = 0;
  }
  const std::int64_t stored = head + 1 + tail;
  const auto values = static_cast<std::size_t>(3 * stored) * tables.size();
  if (values * sizeof(T) > max_bytes) return std::nullopt;
  FactorTable<T> u;
  u.n = n;
  u.head = head;
  u.tail = tail;
  u.scaled = first.scaled;
  u.scale[0] = first.scale[0];
  u.scale[1] = first.scale[1];
  u.compressed = head < n;
  u.group_systems = systems_per_group;
  u.group_stride = 3 * stored;
  u.rows.reserve(values);
  for (const FactorTable<T>* t : tables) {
    const FactorView<T> v = t->view();
    auto push = [&](std::int64_t i) {
      const T* r = v.rows + 3 * v.index(i);
      u.rows.insert(u.rows.end(), r, r + 3);
    };
    for (std::int64_t i = 0; i < head; ++i) push(i);
    push(head < n - tail ? head : n - 1);  // the limit, or an unused copy of the last row
    for (std::int64_t i = n - tail; i < n; ++i) push(i);
  }
  return u;
}

template std::optional<FactorTable<float>> unify_tables(
    const std::vector<const FactorTable<float>*>&, std::int64_t, std::size_t);
template std::optional<FactorTable<double>> unify_tables(
    const std::vector<const FactorTable<double>*>&, std::int64_t, std::size_t);

}  // namespace triax::detail
