#pragma once
// Random, diagonally dominant inputs on a packed N-D array, generated in parallel on the host,
// and a sampled residual check of a solution. One template across precisions.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

namespace triax::bench {

/// Counter-based random numbers: the same inputs whatever the thread count.
inline double uniform01(std::uint64_t counter) {
  std::uint64_t z = counter + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

inline std::int64_t product(std::span<const std::int64_t> e) {
  std::int64_t p = 1;
  for (auto v : e) p *= v;
  return p;
}

/// Systems along `axis` of a packed array: n rows at stride s; system j starts at
/// (j % s) + (j / s) * s * n.
struct AxisGeometry {
  std::int64_t n, stride, systems;
  AxisGeometry(std::span<const std::int64_t> extents, int axis)
      : n(extents[axis]),
        stride(product(extents.first(axis))),
        systems(n == 0 ? 0 : product(extents) / n) {}
  std::int64_t start(std::int64_t j) const { return j % stride + (j / stride) * stride * n; }
};

/// a, c uniform in [-1, 1), b in [2.5, 3.5) (so |b| > |a| + |c|), d in [-1, 1). a is zero on the
/// first row and c on the last row along every axis, so that baselines which read them
/// (cuSPARSE) and triax (which ignores them) solve the same systems whichever axis is chosen.
template <class T>
struct Element {
  T a, b, c, d;
};

/// The values of element i of the packed array, before the ends are zeroed: a function of the
/// seed and i alone, so that a block of the array (triax-bench-mpi) draws the same values.
template <class T>
Element<T> element_at(std::uint64_t seed, std::int64_t i) {
  const std::uint64_t k = (seed << 40) ^ (static_cast<std::uint64_t>(i) << 2);
  return {static_cast<T>(2 * uniform01(k) - 1), static_cast<T>(2.5 + uniform01(k + 1)),
          static_cast<T>(2 * uniform01(k + 2) - 1), static_cast<T>(2 * uniform01(k + 3) - 1)};
}

template <class T>
void generate(std::span<const std::int64_t> extents, T* a, T* b, T* c, T* d,
              std::uint64_t seed = 2026) {
  const std::int64_t total = product(extents);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < total; ++i) {
    const Element<T> e = element_at<T>(seed, i);
    a[i] = e.a, b[i] = e.b, c[i] = e.c, d[i] = e.d;
  }
  for (int axis = 0; axis < static_cast<int>(extents.size()); ++axis) {
    const AxisGeometry g(extents, axis);
    if (g.n == 0) continue;
#pragma omp parallel for schedule(static)
    for (std::int64_t j = 0; j < g.systems; ++j) {
      a[g.start(j)] = T(0);
      c[g.start(j) + (g.n - 1) * g.stride] = T(0);
    }
  }
}

/// Largest relative residual |A x - d| / (|a||x-| + |b||x| + |c||x+| + |d|) over `samples`
/// systems spread across the batch. In increment mode pass u0 (the output before the solve):
/// x = out - u0.
template <class T>
double sampled_residual(std::span<const std::int64_t> extents, int axis, const T* a, const T* b,
                        const T* c, const T* d, const T* out, const T* u0 = nullptr,
                        std::int64_t samples = 257) {
  const AxisGeometry g(extents, axis);
  if (g.systems == 0) return 0;
  const std::int64_t count = std::min(samples, g.systems);
  auto x = [&](std::int64_t o) {
    return static_cast<double>(out[o]) - (u0 ? static_cast<double>(u0[o]) : 0.0);
  };
  double worst = 0;
#pragma omp parallel for reduction(max : worst) schedule(dynamic)
  for (std::int64_t s = 0; s < count; ++s) {
    const std::int64_t j = count == 1 ? 0 : s * (g.systems - 1) / (count - 1);
    const std::int64_t o0 = g.start(j);
    for (std::int64_t i = 0; i < g.n; ++i) {
      const std::int64_t o = o0 + i * g.stride;
      double lhs = b[o] * x(o), scale = std::abs(b[o] * x(o)) + std::abs(double(d[o]));
      if (i > 0) {
        lhs += a[o] * x(o - g.stride);
        scale += std::abs(a[o] * x(o - g.stride));
      }
      if (i + 1 < g.n) {
        lhs += c[o] * x(o + g.stride);
        scale += std::abs(c[o] * x(o + g.stride));
      }
      const double r = std::abs(lhs - double(d[o])) / (scale > 0 ? scale : 1.0);
      worst = std::isnan(r) ? INFINITY : std::max(worst, r);
    }
  }
  return worst;
}

}  // namespace triax::bench
