// Block tridiagonal rows: inputs generated once per case, the ?gbsv baseline and
// triax::BlockSolver on the cpu backend timed in the same process, in place (d becomes u); and
// what the GPU block rows (gpu_block_runner.cu) share with them (block_inputs.hpp).
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "block_baseline.hpp"
#include "block_case.hpp"
#include "block_inputs.hpp"
#include "cpu_baseline.hpp"
#include "host_memory.hpp"
#include "inputs.hpp"
#include "triax/block.hpp"

namespace triax::bench {

BlockCase paper_block_case(Precision precision, int m, std::int64_t p_divisor, int reps) {
  BlockCase c;
  c.precision = precision;
  c.m = m;
  const std::int64_t n = m <= 6 ? 128 : 96, p = m <= 6 ? 65536 : 32768;
  c.grid = {n, std::max<std::int64_t>(p / p_divisor, 1)};
  c.axis = 0;
  c.reps = reps;
  return c;
}

double block_thomas_flops(int m, std::int64_t n) {
  const double M = m;
  // LU of an M x M block without pivoting: for each column k, M - k - 1 multipliers and
  // 2 (M - k - 1)^2 for the update.
  double lu = 0;
  for (int j = 0; j < m; ++j) lu += j + 2.0 * j * j;
  const double per_rhs = 2 * M * M - M;  // forward (M(M-1)) and back (M(M-1) + M) substitution
  double f = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (i > 0) f += 2 * M * M * M + 2 * M * M;  // P = B - A C*, d - A d*
    f += lu + per_rhs * ((i + 1 < n ? M : 0) + 1);
    if (i + 1 < n) f += 2 * M * M;  // u[i] = d*[i] - C*[i] u[i+1]
  }
  return f;
}

namespace {

// Element offsets of each system's block row 0 (systems number the other grid dimensions,
// fastest first).
BlockSystems systems_of(const BlockCase& c, const BlockLayouts& l) {
  BlockSystems g;
  g.m = c.m;
  g.n = c.grid[c.axis];
  const int r = static_cast<int>(c.grid.size());
  std::int64_t count = 1;
  for (int k = 0; k < r; ++k)
    if (k != c.axis) count *= c.grid[k];
  std::vector<std::int64_t> bi(r + 2, 0), vi(r + 1, 0);
  for (std::int64_t s = 0; s < count; ++s) {
    std::int64_t rest = s;
    for (int k = 0; k < r; ++k) {
      const std::int64_t idx = k == c.axis ? 0 : rest % c.grid[k];
      if (k != c.axis) rest /= c.grid[k];
      bi[2 + k] = idx;
      vi[1 + k] = idx;
    }
    g.block_start.push_back(l.a.offset_of(bi));
    g.vector_start.push_back(l.d.offset_of(vi));
  }
  g.block_row_stride = l.a.stride(2 + c.axis);
  g.block_r = l.a.stride(0);
  g.block_c = l.a.stride(1);
  g.vector_row_stride = l.d.stride(1 + c.axis);
  g.vector_r = l.d.stride(0);
  return g;
}

// Random block diagonally dominant systems (packed array of blocks): entries uniform in
// [-1, 1), B's diagonal in [3M - 0.5, 3M + 0.5): each scalar row of the whole matrix is then
// strictly dominant (the other 3M - 1 entries sum to less than 3M - 1).
template <class T>
void generate_blocks(int m, std::int64_t points, T* a, T* b, T* c, T* d) {
  const std::int64_t mm = std::int64_t(m) * m;
#pragma omp parallel for schedule(static)
  for (std::int64_t p = 0; p < points; ++p) {
    for (std::int64_t e = 0; e < mm; ++e) {
      const std::uint64_t k = (static_cast<std::uint64_t>(p * mm + e) << 2) ^ (2027ull << 50);
      a[p * mm + e] = static_cast<T>(2 * uniform01(k) - 1);
      b[p * mm + e] = static_cast<T>(2 * uniform01(k + 1) - 1);
      c[p * mm + e] = static_cast<T>(2 * uniform01(k + 2) - 1);
    }
    for (int r = 0; r < m; ++r) {
      const std::uint64_t k = (static_cast<std::uint64_t>(p * m + r) << 2) ^ (2028ull << 50);
      b[p * mm + r * m + r] = static_cast<T>(3.0 * m - 0.5 + uniform01(k));
      d[p * m + r] = static_cast<T>(2 * uniform01(k + 1) - 1);
    }
  }
}

}  // namespace

BlockLayouts block_case_layouts(const BlockCase& c) {
  return c.interleaved ? BlockLayouts::interleaved(c.m, c.grid, c.axis)
                       : BlockLayouts::array_of_blocks(c.m, c.grid);
}

template <class T>
BlockInputs<T> make_block_inputs(const BlockCase& c) {
  const BlockLayouts layouts = block_case_layouts(c);
  const std::int64_t points = product(c.grid), mm = std::int64_t(c.m) * c.m;
  BlockInputs<T> in{layouts,
                    systems_of(c, layouts),
                    points,
                    host_array<T>(points * mm),
                    host_array<T>(points * mm),
                    host_array<T>(points * mm),
                    host_array<T>(points * c.m),
                    0};
  // Entries of point p lie at p * M^2 (blocks) and p * M (vectors) in both layouts: only the
  // order of the points differs, and the values do not depend on it.
  generate_blocks<T>(c.m, points, in.a.get(), in.b.get(), in.c.get(), in.d.get());
  in.flops = block_thomas_flops(c.m, in.systems.n) * static_cast<double>(in.systems.count());
  return in;
}
template BlockInputs<float> make_block_inputs(const BlockCase&);
template BlockInputs<double> make_block_inputs(const BlockCase&);

// Largest componentwise relative residual |A u- + B u + C u+ - d| / (|A||u-| + |B||u| + |C||u+|
// + |d|) over up to 64 systems spread across the batch.
template <class T>
double block_residual(const BlockSystems& g, const T* a, const T* b, const T* c, const T* d,
                      const T* u) {
  const std::int64_t samples = std::min<std::int64_t>(64, g.count());
  double worst = 0;
#pragma omp parallel for reduction(max : worst) schedule(dynamic)
  for (std::int64_t k = 0; k < samples; ++k) {
    const std::int64_t s = samples == 1 ? 0 : k * (g.count() - 1) / (samples - 1);
    auto uv = [&](std::int64_t i, int q) {
      return double(u[g.vector_start[s] + i * g.vector_row_stride + q * g.vector_r]);
    };
    for (std::int64_t i = 0; i < g.n; ++i) {
      const std::int64_t bo = g.block_start[s] + i * g.block_row_stride;
      for (int r = 0; r < g.m; ++r) {
        const double dv = d[g.vector_start[s] + i * g.vector_row_stride + r * g.vector_r];
        double lhs = -dv, scale = std::abs(dv);
        for (int q = 0; q < g.m; ++q) {
          const std::int64_t e = bo + r * g.block_r + q * g.block_c;
          const double t_b = b[e] * uv(i, q);
          lhs += t_b;
          scale += std::abs(t_b);
          if (i > 0) {
            const double t_a = a[e] * uv(i - 1, q);
            lhs += t_a;
            scale += std::abs(t_a);
          }
          if (i + 1 < g.n) {
            const double t_c = c[e] * uv(i + 1, q);
            lhs += t_c;
            scale += std::abs(t_c);
          }
        }
        const double res = std::abs(lhs) / (scale > 0 ? scale : 1.0);
        worst = std::isnan(res) ? INFINITY : std::max(worst, res);
      }
    }
  }
  return worst;
}
template double block_residual(const BlockSystems&, const float*, const float*, const float*,
                               const float*, const float*);
template double block_residual(const BlockSystems&, const double*, const double*, const double*,
                               const double*, const double*);

Row block_row(const BlockCase& c, const BlockSystems& g, std::size_t value_size,
              const std::string& backend, const std::string& algorithm) {
  Row r;
  r.backend = backend;
  r.algorithm = algorithm;
  r.precision = to_string(c.precision);
  r.mode = "inplace";
  r.extents = c.grid;
  r.axis = c.axis;
  r.n = g.n;
  r.systems = g.count();
  r.block_m = c.m;
  r.block_layout = c.interleaved ? "interleaved" : "array_of_blocks";
  r.bytes = block_row_values(c.m) * static_cast<double>(g.n * g.count()) *
            static_cast<double>(value_size);
  return r;
}

void finish_block_row(Row& r, const Timing& t, double flops, const CopyReference& copy) {
  r.median_ms = t.median_ms;
  r.min_ms = t.min_ms;
  r.max_ms = t.max_ms;
  r.gflops = r.median_ms > 0 ? flops / (r.median_ms * 1e-3) / 1e9 : 0;
  finish_row(r, copy);
}

namespace {

template <class T>
void run_typed(const BlockCase& c, const CopyReference& copy, std::vector<Row>& rows) {
  BlockInputs<T> in = make_block_inputs<T>(c);
  const BlockLayouts& layouts = in.layouts;
  const BlockSystems& g = in.systems;
  const std::int64_t points = in.points, mm = std::int64_t(c.m) * c.m;
  const T *a = in.a.get(), *b = in.b.get(), *cc = in.c.get(), *d = in.d.get();
  auto out = host_array<T>(points * c.m);
  const std::size_t vector_bytes = static_cast<std::size_t>(points * c.m) * sizeof(T);
  parallel_copy(out.get(), d, vector_bytes);  // first touch
  auto base = [&](const std::string& backend, const std::string& algorithm) {
    return block_row(c, g, sizeof(T), backend, algorithm);
  };
  auto finish = [&](Row& r, const Timing& t) { finish_block_row(r, t, in.flops, copy); };

  Row baseline;
  if (c.baselines && lapack_available()) {
    baseline = base("lapack", gbsv_name<T>());
    std::int64_t failures = 0;
    const Timing t =
        lapack_gbsv_batch<T>(g, a, b, cc, d, out.get(), c.reps, flush_host_caches, &failures);
    baseline.residual = block_residual<T>(g, a, b, cc, d, out.get());
    if (failures) std::printf("  gbsv: %lld systems singular\n", static_cast<long long>(failures));
    finish(baseline, t);
    rows.push_back(baseline);
  } else if (c.baselines) {
    std::printf("  no ?gbsv baseline: triax-bench was built without LAPACKE\n");
  }

  BlockSolver<T> solver(Backend::cpu, c.m, layouts, c.axis);
  Row r = base("cpu", std::string(to_string(solver.algorithm())));
  r.automatic = true;
  const Timing t = measure(
      c.reps,
      [&] {
        parallel_copy(out.get(), d, vector_bytes);
        flush_host_caches();
      },
      [&] { solver.solve_in_place(a, b, cc, out.get()); }, [](auto& f) { return host_ms(f); });
  r.residual = block_residual<T>(g, a, b, cc, d, out.get());
  if (!baseline.algorithm.empty()) {
    r.baseline = baseline.algorithm;
    r.baseline_ms = baseline.median_ms;
  }
  finish(r, t);
  rows.push_back(r);

  // The layout conversions (triax::convert) of the block operand A, from this case's array of
  // blocks to structure of arrays and to the interleaved layout of the axis: bytes read + written
  // against the copy reference, as the copy counts them.
  const std::pair<const char*, BlockLayouts> targets[] = {
      {"convert_to_structure_of_arrays", BlockLayouts::structure_of_arrays(c.m, c.grid)},
      {"convert_to_interleaved", BlockLayouts::interleaved(c.m, c.grid, c.axis)}};
  auto converted = host_array<T>(points * mm);
  parallel_copy(converted.get(), a, static_cast<std::size_t>(points * mm) * sizeof(T));
  for (const auto& [name, to] : targets) {
    Row cr = base("cpu", name);
    cr.bytes = 2.0 * static_cast<double>(points * mm) * sizeof(T);
    const Timing ct = measure(
        c.reps, [] { flush_host_caches(); },
        [&] { triax::convert(layouts.a, a, to.a, converted.get()); },
        [](auto& f) { return host_ms(f); });
    cr.median_ms = ct.median_ms;
    cr.min_ms = ct.min_ms;
    cr.max_ms = ct.max_ms;
    finish_row(cr, copy);
    rows.push_back(cr);
  }
}

}  // namespace

void run_block_case(const BlockCase& c, const CopyReference& copy, std::vector<Row>& rows) {
  with_block_precision(c, [&](auto zero) { run_typed<decltype(zero)>(c, copy, rows); });
}

void print_block_header(bool bound) {
  std::printf(
      "\nblock tridiagonal rows (in place; effective bytes = (3M^2 + 2M) values per block "
      "row; GFLOP/s from Algorithm 12's flops, FMA = 2; cpu: array of blocks, baseline ?gbsv; "
      "cuda: interleaved at the paper's sizes, array of blocks on the 64^3 grid, baseline "
      "cuda_block_thread_thomas):\n");
  std::printf("%-8s %-30s %-6s %2s %-12s %4s %5s %7s %9s %8s %6s %8s %9s %7s %8s", "backend",
              "algorithm", "prec", "M", "grid", "axis", "n", "systems", "median_ms", "GB/s",
              "%copy", "GFLOP/s", "base_ms", "speedup", "resid");
  if (bound) std::printf(" %9s %10s %6s", "bound_ms", "bound_GB/s", "%bound");
  std::printf("\n");
}

void print_block_row(const Row& r) {
  std::string grid;
  for (std::size_t i = 0; i < r.extents.size(); ++i) {
    if (i) grid += 'x';
    grid += std::to_string(r.extents[i]);
  }
  std::printf("%-8s %-30s %-6s %2d %-12s %4d %5lld %7lld %9.3f %8.2f %6.1f %8.2f ",
              r.backend.c_str(), r.algorithm.c_str(), r.precision.c_str(), r.block_m, grid.c_str(),
              r.axis, static_cast<long long>(r.n), static_cast<long long>(r.systems), r.median_ms,
              r.gbps, r.pct_copy, r.gflops);
  if (r.baseline.empty()) {
    std::printf("%9s %7s ", "-", "-");
  } else {
    std::printf("%9.3f %6.2fx ", r.baseline_ms, r.speedup);
  }
  std::printf("%8.1e", r.residual);
  if (r.bound_ms > 0) std::printf(" %9.3f %10.2f %6.1f", r.bound_ms, r.bound_gbps, r.pct_bound);
  std::printf("\n");
  std::fflush(stdout);
}

}  // namespace triax::bench
