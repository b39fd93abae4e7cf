#pragma once
// The reduced system with one row per rank (paper 003, Algorithm 6's form), solved by PCR across
// ranks or by Jacobi with the neighbours.
//
// The local passes leave two rows per piece p (reduce_piece): row 0, coupling the lower
// neighbour's last unknown, this piece's first x0 and its last y, and the last row, coupling x0,
// y and the upper neighbour's first unknown:
//     first: fa y[p-1] + fb x0[p] + fc y[p] = fd
//     last:  la x0[p] + lb y[p] + lc x0[p+1] = ld
// Row 0 gives x0[p] = e0 - ea y[p-1] - ec y[p] (ea = fa / fb, ec = fc / fb, e0 = fd / fb: the
// normalisation at the end of Algorithm 6). Put into the last row, with the upper neighbour's
// row 0 for x0[p+1], it leaves one row in the last unknowns alone:
//     -la ea y[p-1] + (lb - la ec - lc ea') y[p] - lc ec' y[p+1] = ld - la e0 - lc e0'
// (primes: piece p+1's). These P rows are tridiagonal over the line. Once y[p] is known, x0[p]
// needs only y[p-1] (one value from the lower neighbour). The first piece's fa and the last
// piece's lc are zero (the global system's a[0] and c[n-1] are never read), so nothing from
// beyond the line is needed; zeros stand in for it.
//
// Against two rows per rank: half the values in each PCR step or Jacobi message and P instead
// of 2P rows, for one more neighbour message before the reduced solve and one after.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/batch_loop.hpp"
#include "dist/local_passes.hpp"
#include "dist/reduced_methods.hpp"
#include "dist/transport.hpp"
#include "triax/mpi.hpp"

namespace triax::detail {

/// A piece's row 0 solved for its first unknown: x0 = e0 - ea y[p-1] - ec y[p].
template <class T>
struct FirstUnknown {
  T ea, ec, e0;
};

// The arithmetic of the one-row form, shared by the host methods below and the NCCL path's
// kernels (src/dist/gpu/gpu_path.cu).

/// Row 0 of a piece (the pair's first row), normalised.
template <class T>
TRIAX_HOST_DEVICE FirstUnknown<T> first_unknown(const ReducedRow<T>& f) {
  const T r = T(1) / f.b;
  return {f.a * r, f.c * r, f.d * r};
}

/// The piece's one row: its last row with its own row 0 (e) and the upper neighbour's (up) put
/// in for the first unknowns (zeros stand in for a missing upper neighbour: the last piece's
/// c is zero).
template <class T>
TRIAX_HOST_DEVICE ReducedRow<T> one_row_of(const ReducedRow<T>& l, const FirstUnknown<T>& e,
                                           const FirstUnknown<T>& up) {
  return {-l.a * e.ea, l.b - l.a * e.ec - l.c * up.ea, -l.c * up.ec,
          l.d - l.a * e.e0 - l.c * up.e0};
}

/// The piece's first unknown from its row 0, the lower neighbour's last unknown and its own.
template <class T>
TRIAX_HOST_DEVICE T first_of(const FirstUnknown<T>& e, T y_lower, T y) {
  return e.e0 - e.ea * y_lower - e.ec * y;
}

/// The buffers of the one-row methods, sized for the largest batch when the plan is made.
template <class T>
struct OneRowBuffers {
  std::vector<FirstUnknown<T>> first, first_from_lower, first_from_upper;
  std::vector<ReducedRow<T>> rows, rows_from_lower, rows_from_upper;
  std::vector<T> y, y_from_lower, y_from_upper;

  explicit OneRowBuffers(std::int64_t count) {
    const auto n = static_cast<std::size_t>(count);
    for (auto* v : {&first, &first_from_lower, &first_from_upper}) v->resize(n);
    for (auto* v : {&rows, &rows_from_lower, &rows_from_upper}) v->resize(n);
    for (auto* v : {&y, &y_from_lower, &y_from_upper}) v->resize(n);
  }
};

/// Builds this rank's one row per system (buf.rows) from its reduced pairs: row 0 normalised,
/// the upper neighbour's received, both put into the last row. One neighbour message, which
/// begin_one_row_system starts (the half that overlaps other batches' local passes, as the
/// begin_* halves of reduced_methods.hpp) and finish_one_row_system completes.
template <class T>
void begin_one_row_system(Transport& t, const ReducedPair<T>* pairs, std::int64_t count,
                          OneRowBuffers<T>& buf, int threads) {
  for_each_item(count, threads,
                [&](std::int64_t s, int) { buf.first[s] = first_unknown(pairs[s].first); });
  // The last piece has no upper neighbour (and its lc is zero): zeros stand in.
  if (t.position() + 1 >= t.size()) {
    std::fill_n(buf.first_from_upper.begin(), count, FirstUnknown<T>{T(0), T(0), T(0)});
  }
  // exchange() goes both ways; only what comes down from the upper neighbour is used.
  t.start_exchange(1, buf.first.data(), buf.first_from_lower.data(), buf.first.data(),
                   buf.first_from_upper.data(), 3 * count, scalar_of<T>());
}

template <class T>
void finish_one_row_system(Transport& t, const ReducedPair<T>* pairs, std::int64_t count,
                           OneRowBuffers<T>& buf, int threads) {
  t.finish();
  for_each_item(count, threads, [&](std::int64_t s, int) {
    buf.rows[s] = one_row_of(pairs[s].last, buf.first[s], buf.first_from_upper[s]);
  });
}

/// With every piece's last unknown in buf.y: each piece's first from its row 0 and the lower
/// neighbour's last (one neighbour message), into ends (first, last per system).
template <class T>
void one_row_ends(Transport& t, T* ends, std::int64_t count, OneRowBuffers<T>& buf, int threads) {
  // The first piece has no lower neighbour (and its ea is zero): zero stands in.
  if (t.position() == 0) std::fill_n(buf.y_from_lower.begin(), count, T(0));
  t.exchange(1, buf.y.data(), buf.y_from_lower.data(), buf.y.data(), buf.y_from_upper.data(), count,
             scalar_of<T>());
  for_each_item(count, threads, [&](std::int64_t s, int) {
    ends[2 * s] = first_of(buf.first[s], buf.y_from_lower[s], buf.y[s]);
    ends[2 * s + 1] = buf.y[s];
  });
}

/// PCR across ranks over the P one-row systems: steps at distance 1, 2, 4, ... < P, each with
/// both neighbours that far; rows beyond the line act as identity rows. Starts after
/// begin_one_row_system.
template <class T>
void complete_one_row_pcr(Transport& t, const ReducedPair<T>* pairs, T* ends, std::int64_t count,
                          OneRowBuffers<T>& buf, int threads) {
  constexpr ReducedRow<T> identity{T(0), T(1), T(0), T(0)};
  const int me = t.position(), ranks = t.size();
  finish_one_row_system(t, pairs, count, buf, threads);
  for (int distance = 1; distance < ranks; distance *= 2) {
    // Sides beyond the line are not received: identity rows stand in.
    if (me - distance < 0) std::fill_n(buf.rows_from_lower.begin(), count, identity);
    if (me + distance >= ranks) std::fill_n(buf.rows_from_upper.begin(), count, identity);
    t.exchange(distance, buf.rows.data(), buf.rows_from_lower.data(), buf.rows.data(),
               buf.rows_from_upper.data(), 4 * count, scalar_of<T>());
    for_each_item(count, threads, [&](std::int64_t s, int) {
      buf.rows[s] = pcr_combine(buf.rows_from_lower[s], buf.rows[s], buf.rows_from_upper[s]);
    });
  }
  for_each_item(count, threads,
                [&](std::int64_t s, int) { buf.y[s] = buf.rows[s].d / buf.rows[s].b; });
  one_row_ends(t, ends, count, buf, threads);
}

template <class T>
void solve_one_row_pcr(Transport& t, const ReducedPair<T>* pairs, T* ends, std::int64_t count,
                       OneRowBuffers<T>& buf, int threads) {
  begin_one_row_system(t, pairs, count, buf, threads);
  complete_one_row_pcr(t, pairs, ends, count, buf, threads);
}

/// Jacobi over the P one-row systems: each iteration takes both neighbours' last unknowns of
/// the previous iteration and solves this rank's row. Starts from zero; stops as
/// solve_reduced_jacobi does (options' tolerance, iterations and convergence check). Starts
/// after begin_one_row_system.
template <class T>
triax::mpi::JacobiReport complete_one_row_jacobi(Transport& t, const ReducedPair<T>* pairs, T* ends,
                                                 std::int64_t count, OneRowBuffers<T>& buf,
                                                 const triax::mpi::Options& options, int threads) {
  const double tolerance = options.jacobi_tolerance > 0 ? options.jacobi_tolerance
                                                        : 4.0 * std::numeric_limits<T>::epsilon();
  finish_one_row_system(t, pairs, count, buf, threads);
  std::fill_n(buf.y.begin(), count, T(0));
  // Beyond the line nothing is received; the rows there have no coupling, zero stands in.
  std::fill_n(buf.y_from_lower.begin(), count, T(0));
  std::fill_n(buf.y_from_upper.begin(), count, T(0));
  triax::mpi::JacobiReport report;
  double change_and_scale[2] = {0, 0};
  const auto measure = [&] {
    t.max_in_place(change_and_scale, 2);
    const auto [change, scale] = change_and_scale;
    report.relative_change = scale > 0 ? change / scale : (change > 0 ? INFINITY : 0.0);
    report.converged = report.relative_change <= tolerance;
  };
  for (int iteration = 1; iteration <= options.jacobi_iterations; ++iteration) {
    t.exchange(1, buf.y.data(), buf.y_from_lower.data(), buf.y.data(), buf.y_from_upper.data(),
               count, scalar_of<T>());
    double change = 0, scale = 0;
    // Serial over systems, as solve_reduced_jacobi: a reduction across threads would cost more
    // than the few rows it spreads.
    for (std::int64_t s = 0; s < count; ++s) {
      const ReducedRow<T>& r = buf.rows[s];
      const T next = (r.d - r.a * buf.y_from_lower[s] - r.c * buf.y_from_upper[s]) / r.b;
      change = std::max(change, std::abs(double(next) - double(buf.y[s])));
      scale = std::max(scale, std::abs(double(next)));
      // A NaN never converges.
      if (std::isnan(next)) change = INFINITY;
      buf.y[s] = next;
    }
    report.iterations = iteration;
    change_and_scale[0] = change;
    change_and_scale[1] = scale;
    if (options.jacobi_check_convergence) {
      measure();
      if (report.converged) break;
    }
  }
  if (!options.jacobi_check_convergence) measure();
  one_row_ends(t, ends, count, buf, threads);
  return report;
}

template <class T>
triax::mpi::JacobiReport solve_one_row_jacobi(Transport& t, const ReducedPair<T>* pairs, T* ends,
                                              std::int64_t count, OneRowBuffers<T>& buf,
                                              const triax::mpi::Options& options, int threads) {
  begin_one_row_system(t, pairs, count, buf, threads);
  return complete_one_row_jacobi(t, pairs, ends, count, buf, options, threads);
}

}  // namespace triax::detail
