#pragma once
// `--suite shapes`: the drawn shapes of shape_classes.hpp, timed on one backend. Every draw of a
// precision is a layout into one set of pools (a, b, c, d and an output, as large as the largest
// draw's allocation), filled once: a padded draw is the interior of its allocation at its base
// offset, a broadcast draw reads one system's coefficients for all. The Env is driver.hpp's, with
// two more members: copy_ms(dst, src, count), the time of a copy of count elements in the
// backend's memory (0 where not measured), and launch_floor_ms(), an empty launch (0 on the host).
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "driver.hpp"
#include "shape_classes.hpp"
#include "shape_report.hpp"

namespace triax::bench {

/// Element offsets of a draw's systems: system j's row i of an operand laid out like d, and of a
/// broadcast coefficient.
struct ShapeIndex {
  std::vector<std::int64_t> stride;  // of the allocation
  const ShapeDraw* d;
  explicit ShapeIndex(const ShapeDraw& draw) : d(&draw) {
    stride.resize(draw.allocated.size());
    std::int64_t s = 1;
    for (std::size_t k = 0; k < stride.size(); ++k) {
      stride[k] = s;
      s *= draw.allocated[k];
    }
  }
  /// Offset of row 0 of system j (the other dimensions in order, dimension 0 fastest).
  std::int64_t start(std::int64_t j) const {
    std::int64_t o = d->base_offset;
    for (std::size_t k = 0; k < stride.size(); ++k) {
      std::int64_t i = 0;
      if (static_cast<int>(k) != d->axis) {
        i = j % d->extents[k];
        j /= d->extents[k];
      }
      o += (d->begin[k] + i) * stride[k];
    }
    return o;
  }
  std::int64_t row_stride() const { return stride[d->axis]; }
};

/// The layouts of a draw (pointers are pool + base_offset for every operand).
inline OperandLayouts shape_layouts(const ShapeDraw& d) {
  const Layout grid = Layout::padded(d.extents, d.allocated, d.begin);
  if (!d.broadcast) return OperandLayouts(grid);
  std::vector<std::int64_t> strides(d.extents.size(), 0);
  strides[d.axis] = 1;
  const Layout coefficients = Layout::strided(d.extents, strides, 0);
  return OperandLayouts(coefficients, coefficients, coefficients, grid, grid);
}

/// Largest relative residual over up to 257 systems spread across the batch (at most ~2^22 rows
/// read), as sampled_residual but through the draw's layout. x = out - u0 in increment mode.
template <class T>
double shape_residual(const ShapeDraw& d, const T* a, const T* b, const T* c, const T* rhs,
                      const T* out, const T* u0) {
  const ShapeIndex ix(d);
  const std::int64_t n = d.n(), systems = d.systems();
  if (systems == 0) return 0;
  const std::int64_t want = std::max<std::int64_t>(1, std::min<std::int64_t>(257, (1 << 22) / n));
  const std::int64_t count = std::min(want, systems);
  const std::int64_t rs = ix.row_stride();
  double worst = 0;
#pragma omp parallel for reduction(max : worst) schedule(dynamic)
  for (std::int64_t s = 0; s < count; ++s) {
    const std::int64_t j = count == 1 ? 0 : s * (systems - 1) / (count - 1);
    const std::int64_t o0 = ix.start(j);
    const std::int64_t co0 = d.broadcast ? d.base_offset : o0, crs = d.broadcast ? 1 : rs;
    auto x = [&](std::int64_t i) {
      const std::int64_t o = o0 + i * rs;
      return double(out[o]) - (u0 ? double(u0[o]) : 0.0);
    };
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t o = o0 + i * rs, co = co0 + i * crs;
      double lhs = b[co] * x(i), scale = std::abs(b[co] * x(i)) + std::abs(double(rhs[o]));
      if (i > 0) {
        lhs += a[co] * x(i - 1);
        scale += std::abs(a[co] * x(i - 1));
      }
      if (i + 1 < n) {
        lhs += c[co] * x(i + 1);
        scale += std::abs(c[co] * x(i + 1));
      }
      const double r = std::abs(lhs - double(rhs[o])) / (scale > 0 ? scale : 1.0);
      worst = std::isnan(r) ? INFINITY : std::max(worst, r);
    }
  }
  return worst;
}

/// Times every draw of precision T on `backend`; prints and appends one ShapeRow per draw that ran.
/// `counts_from_bytes`: a row counts towards the bars from this many effective bytes.
template <class T, class Env>
void run_shapes(const std::vector<ShapeDraw>& draws, Backend backend, int reps,
                const CopyReference& copy, double counts_from_bytes, Env& env,
                std::vector<ShapeRow>& rows) {
  const Precision precision = sizeof(T) == 4 ? Precision::f32 : Precision::f64;
  std::int64_t pool = 0;
  for (const ShapeDraw& d : draws)
    if (d.precision == precision) pool = std::max(pool, d.span());
  if (pool == 0) return;
  auto ha = host_array<T>(pool), hb = host_array<T>(pool), hc = host_array<T>(pool),
       hd = host_array<T>(pool);
  const std::int64_t pool_extent[1] = {pool};
  generate<T>(pool_extent, ha.get(), hb.get(), hc.get(), hd.get());
  const T *a = env.upload(ha.get(), pool), *b = env.upload(hb.get(), pool),
          *c = env.upload(hc.get(), pool), *d_pool = env.upload(hd.get(), pool);
  T* out = env.scratch(pool);
  const double floor_ms = env.launch_floor_ms();

  for (const ShapeDraw& d : draws) {
    if (d.precision != precision) continue;
    const std::int64_t off = d.base_offset, span = d.span();
    ShapeRow sr;
    Row& r = sr.row;
    r.backend = to_string(backend);
    r.automatic = true;
    r.precision = to_string(precision);
    r.mode = to_string(d.mode);
    r.extents = d.extents;
    r.axis = d.axis;
    r.n = d.n();
    r.systems = d.systems();
    r.bytes = shape_bytes(d);
    sr.shape_class = to_string(d.klass);
    sr.shape = describe(d);
    sr.counts = r.bytes >= counts_from_bytes;
    sr.floor_ms = floor_ms;
    std::unique_ptr<Solver<T>> solver;
    try {
      solver = std::make_unique<Solver<T>>(backend, shape_layouts(d), d.axis,
                                           env.options(Algorithm::automatic));
    } catch (const error& e) {
      std::printf("  %s %s: no plan: %s\n", sr.shape_class.c_str(), sr.shape.c_str(), e.what());
      continue;
    }
    r.algorithm = to_string(solver->algorithm());
    const T *pa = a + off, *pb = b + off, *pc = c + off, *pd = d_pool + off;
    T* px = out + off;
    auto prepare = [&] {
      if (d.mode != Mode::separate) env.copy(out, d_pool, span);  // d (in place) or u0 = d
      env.flush();
    };
    auto solve = [&] {
      switch (d.mode) {
        case Mode::in_place: solver->solve_in_place(pa, pb, pc, px); break;
        case Mode::separate: solver->solve(pa, pb, pc, pd, px); break;
        case Mode::increment: solver->solve_increment(pa, pb, pc, pd, px); break;
      }
    };
    try {
      set_timing(r, measure(reps, prepare, solve, [&](auto& f) { return env.time_one(f); }));
      r.residual = shape_residual<T>(d, ha.get(), hb.get(), hc.get(), hd.get(),
                                     env.fetch(out, span), d.mode == Mode::increment ? hd.get() : nullptr);
    } catch (const error& e) {
      std::printf("  FAILED %s %s: %s\n", sr.shape_class.c_str(), sr.shape.c_str(), e.what());
      continue;
    }
    // A copy of the same bytes, half of them read and half written; where half is more than a
    // pool holds, a pool's copy scaled (these rows are large: the copy's time is linear there).
    const auto half = static_cast<std::int64_t>(r.bytes / 2 / sizeof(T));
    const std::int64_t moved = std::min(half, pool);
    if (moved > 0) sr.copy_same_ms = env.copy_ms(out, d_pool, moved) * double(half) / double(moved);
    finish_row(r, copy);
    sr.pct_stream = copy.stream_gbps > 0 ? 100.0 * r.gbps / copy.stream_gbps : 0;
    print_shape_row(sr);
    rows.push_back(sr);
  }
}

}  // namespace triax::bench
