#pragma once
// The reduced system's four methods (paper 003): allgather, gather-scatter, PCR across ranks and
// Jacobi with the neighbours. Each takes this rank's reduced rows of every system (one
// ReducedPair per system) and returns the values of this rank's two reduced unknowns per system
// (first, last), through a Transport and buffers the plan sized (ReducedBuffers); none allocates.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/batch_loop.hpp"
#include "dist/local_passes.hpp"
#include "dist/transport.hpp"
#include "triax/mpi.hpp"

namespace triax::detail {

/// Gather-scatter's share of the systems: P groups of consecutive systems, group q gathered,
/// solved and scattered by position q, so that the reduced work is spread over the line.
struct SystemGroups {
  int ranks;
  std::int64_t count;
  std::int64_t start(int q) const { return count * q / ranks; }
  std::int64_t size(int q) const { return start(q + 1) - start(q); }
};

/// The reduced-system buffers of a plan, sized for its method when it is made.
template <class T>
struct ReducedBuffers {
  // allgather: every piece's rows of every system; gather-scatter: every piece's rows of this
  // position's group, and the ends solved for them.
  std::vector<ReducedPair<T>> gathered;
  std::vector<T> scattered;
  // gather-scatter's all-to-all counts and offsets, in values: rows out and in, ends out and in.
  std::vector<std::int64_t> rows_out_counts, rows_out_offsets, rows_in_counts, rows_in_offsets;
  std::vector<std::int64_t> ends_out_counts, ends_out_offsets, ends_in_counts, ends_in_offsets;
  std::vector<ReducedPair<T>> pcr_rows, receive_lower, receive_upper;
  std::vector<T> jacobi_lower, jacobi_upper, jacobi_from_lower, jacobi_from_upper;

  ReducedBuffers(triax::mpi::Method method, int ranks, std::int64_t count) {
    const auto all = static_cast<std::size_t>(ranks) * static_cast<std::size_t>(count);
    const auto own = static_cast<std::size_t>(count);
    switch (method) {
      case triax::mpi::Method::allgather:
        gathered.resize(all);
        break;
      case triax::mpi::Method::gather_scatter:
        size_gather_scatter(ranks, count);
        break;
      case triax::mpi::Method::pcr:
        for (auto* v : {&pcr_rows, &receive_lower, &receive_upper}) v->resize(own);
        break;
      case triax::mpi::Method::jacobi:
        for (auto* v : {&jacobi_lower, &jacobi_upper, &jacobi_from_lower, &jacobi_from_upper}) {
          v->resize(own);
        }
        break;
      case triax::mpi::Method::automatic:
        break;
    }
  }

  // Sized for the largest batch (no group of it or of a smaller batch exceeds count / ranks
  // rounded up); the counts are set per batch (set_gather_scatter_counts).
  void size_gather_scatter(int ranks, std::int64_t count) {
    const std::int64_t mine = (count + ranks - 1) / ranks;
    gathered.resize(static_cast<std::size_t>(ranks * mine));
    scattered.resize(static_cast<std::size_t>(2 * ranks * mine));
    for (auto* v : {&rows_out_counts, &rows_out_offsets, &rows_in_counts, &rows_in_offsets,
                    &ends_out_counts, &ends_out_offsets, &ends_in_counts, &ends_in_offsets}) {
      v->resize(static_cast<std::size_t>(ranks));
    }
  }

  /// The all-to-all counts and offsets for a batch of `count` systems; returns this position's
  /// group size.
  std::int64_t set_gather_scatter_counts(int ranks, int position, std::int64_t count) {
    const SystemGroups groups{ranks, count};
    const std::int64_t mine = groups.size(position);
    for (int q = 0; q < ranks; ++q) {
      // Rows of group q go to position q; this group's rows come from every position.
      rows_out_counts[q] = 8 * groups.size(q);
      rows_out_offsets[q] = 8 * groups.start(q);
      rows_in_counts[q] = 8 * mine;
      rows_in_offsets[q] = 8 * q * mine;
      // The ends travel back the other way.
      ends_out_counts[q] = 2 * mine;
      ends_out_offsets[q] = 2 * q * mine;
      ends_in_counts[q] = 2 * groups.size(q);
      ends_in_offsets[q] = 2 * groups.start(q);
    }
    return mine;
  }
};

/// Thomas over system s of the gathered reduced rows (piece q's pair of system s at
/// gathered[q * count + s]); the solution replaces each row's d.
template <class T>
TRIAX_HOST_DEVICE void thomas_over_gathered(ReducedPair<T>* gathered, int ranks, std::int64_t count,
                                            std::int64_t s) {
  const auto row = [&](int j) -> ReducedRow<T>& {
    ReducedPair<T>& pair = gathered[j / 2 * count + s];
    return j % 2 == 0 ? pair.first : pair.last;
  };
  const int rows = 2 * ranks;
  // Forward: c and d become c' and d' of the eliminated upper bidiagonal system (unit diagonal).
  T c_prev = 0, d_prev = 0;
  for (int j = 0; j < rows; ++j) {
    ReducedRow<T>& r = row(j);
    const T inverse = T(1) / (r.b - r.a * c_prev);
    r.c *= inverse;
    r.d = (r.d - r.a * d_prev) * inverse;
    c_prev = r.c;
    d_prev = r.d;
  }
  for (int j = rows - 2; j >= 0; --j) row(j).d -= row(j).c * row(j + 1).d;
}

// Each method comes in two halves (the plan overlaps them with other batches' local passes):
// begin_* does what comes before the first message and starts it; complete_* waits for it and
// does the rest, every later message included. solve_* runs both back to back. The halves do
// the arithmetic of the whole in the same order, so an overlapped solve equals a plain one bit
// for bit. Between the halves the caller must leave `rows` and the buffers alone.

/// Allgather: every rank gathers every piece's rows and solves every system.
template <class T>
void begin_reduced_allgather(Transport& t, const ReducedPair<T>* rows, std::int64_t count,
                             ReducedBuffers<T>& buf) {
  t.start_allgather(rows, buf.gathered.data(), 8 * count, scalar_of<T>());
}

template <class T>
void complete_reduced_allgather(Transport& t, T* ends, std::int64_t count, ReducedBuffers<T>& buf,
                                int threads) {
  t.finish();
  const int me = t.position();
  for_each_item(count, threads, [&](std::int64_t s, int) {
    thomas_over_gathered(buf.gathered.data(), t.size(), count, s);
    const ReducedPair<T>& mine = buf.gathered[me * count + s];
    ends[2 * s] = mine.first.d;
    ends[2 * s + 1] = mine.last.d;
  });
}

template <class T>
void solve_reduced_allgather(Transport& t, const ReducedPair<T>* rows, T* ends, std::int64_t count,
                             ReducedBuffers<T>& buf, int threads) {
  begin_reduced_allgather(t, rows, count, buf);
  complete_reduced_allgather(t, ends, count, buf, threads);
}

/// Gather-scatter: each position gathers every piece's rows of its group of systems, solves
/// them and sends each piece its ends back (two all-to-all exchanges; the first is the one that
/// overlaps).
template <class T>
void begin_reduced_gather_scatter(Transport& t, const ReducedPair<T>* rows, std::int64_t count,
                                  ReducedBuffers<T>& buf) {
  buf.set_gather_scatter_counts(t.size(), t.position(), count);
  t.start_all_to_all(rows, buf.rows_out_counts.data(), buf.rows_out_offsets.data(),
                     buf.gathered.data(), buf.rows_in_counts.data(), buf.rows_in_offsets.data(),
                     scalar_of<T>());
}

template <class T>
void complete_reduced_gather_scatter(Transport& t, T* ends, std::int64_t count,
                                     ReducedBuffers<T>& buf, int threads) {
  const int ranks = t.size();
  const std::int64_t mine = SystemGroups{ranks, count}.size(t.position());
  t.finish();
  for_each_item(mine, threads, [&](std::int64_t s, int) {
    thomas_over_gathered(buf.gathered.data(), ranks, mine, s);
    for (int q = 0; q < ranks; ++q) {
      const ReducedPair<T>& pair = buf.gathered[q * mine + s];
      buf.scattered[2 * (q * mine + s)] = pair.first.d;
      buf.scattered[2 * (q * mine + s) + 1] = pair.last.d;
    }
  });
  t.all_to_all(buf.scattered.data(), buf.ends_out_counts.data(), buf.ends_out_offsets.data(), ends,
               buf.ends_in_counts.data(), buf.ends_in_offsets.data(), scalar_of<T>());
}

template <class T>
void solve_reduced_gather_scatter(Transport& t, const ReducedPair<T>* rows, T* ends,
                                  std::int64_t count, ReducedBuffers<T>& buf, int threads) {
  begin_reduced_gather_scatter(t, rows, count, buf);
  complete_reduced_gather_scatter(t, ends, count, buf, threads);
}

/// One PCR step on row `self`: its couplings to `lower` and `upper` (the rows a stride away)
/// are eliminated, leaving couplings twice as far.
template <class T>
TRIAX_HOST_DEVICE ReducedRow<T> pcr_combine(const ReducedRow<T>& lower, const ReducedRow<T>& self,
                                            const ReducedRow<T>& upper) {
  const T k_lower = self.a / lower.b;
  const T k_upper = self.c / upper.b;
  return {-k_lower * lower.a, self.b - k_lower * lower.c - k_upper * upper.a, -k_upper * upper.c,
          self.d - k_lower * lower.d - k_upper * upper.d};
}

/// Sides beyond the line are not received: identity rows stand in for a PCR step at
/// `distance`.
template <class T>
void pcr_identities_beyond(const Transport& t, int distance, ReducedBuffers<T>& buf) {
  constexpr ReducedRow<T> identity{T(0), T(1), T(0), T(0)};
  constexpr ReducedPair<T> identities{identity, identity};
  if (t.position() - distance < 0)
    std::fill(buf.receive_lower.begin(), buf.receive_lower.end(), identities);
  if (t.position() + distance >= t.size())
    std::fill(buf.receive_upper.begin(), buf.receive_upper.end(), identities);
}

/// PCR across ranks over the 2P reduced rows: the first step (stride 1) pairs each rank's rows
/// with its neighbours' nearest rows; every later step (stride 2t) with both rows of the ranks t
/// away, t = 1, 2, 4, ... < P. Rows beyond the line act as identity rows.
template <class T>
void begin_reduced_pcr(Transport& t, const ReducedPair<T>* rows, std::int64_t count,
                       ReducedBuffers<T>& buf) {
  std::copy_n(rows, count, buf.pcr_rows.data());
  ReducedPair<T>* w = buf.pcr_rows.data();
  // Stride 1: row "first" needs the lower rank's "last"; row "last" the upper rank's "first".
  pcr_identities_beyond(t, 1, buf);
  t.start_exchange(1, w, buf.receive_lower.data(), w, buf.receive_upper.data(), 8 * count,
                   scalar_of<T>());
}

template <class T>
void complete_reduced_pcr(Transport& t, T* ends, std::int64_t count, ReducedBuffers<T>& buf,
                          int threads) {
  const int ranks = t.size();
  ReducedPair<T>* w = buf.pcr_rows.data();
  t.finish();
  for_each_item(count, threads, [&](std::int64_t s, int) {
    const ReducedPair<T> old = w[s];
    w[s].first = pcr_combine(buf.receive_lower[s].last, old.first, old.last);
    w[s].last = pcr_combine(old.first, old.last, buf.receive_upper[s].first);
  });
  for (int distance = 1; distance < ranks; distance *= 2) {
    pcr_identities_beyond(t, distance, buf);
    t.exchange(distance, w, buf.receive_lower.data(), w, buf.receive_upper.data(), 8 * count,
               scalar_of<T>());
    for_each_item(count, threads, [&](std::int64_t s, int) {
      const ReducedPair<T> old = w[s];
      w[s].first = pcr_combine(buf.receive_lower[s].first, old.first, buf.receive_upper[s].first);
      w[s].last = pcr_combine(buf.receive_lower[s].last, old.last, buf.receive_upper[s].last);
    });
  }
  for_each_item(count, threads, [&](std::int64_t s, int) {
    ends[2 * s] = w[s].first.d / w[s].first.b;
    ends[2 * s + 1] = w[s].last.d / w[s].last.b;
  });
}

template <class T>
void solve_reduced_pcr(Transport& t, const ReducedPair<T>* rows, T* ends, std::int64_t count,
                       ReducedBuffers<T>& buf, int threads) {
  begin_reduced_pcr(t, rows, count, buf);
  complete_reduced_pcr(t, ends, count, buf, threads);
}

/// Block Jacobi across ranks: each iteration takes the neighbours' nearest unknowns from the
/// previous iteration and solves this rank's 2 x 2 block exactly. Starts from zero; the first
/// iteration's message (the zeros) is the one that overlaps.
template <class T>
void begin_reduced_jacobi(Transport& t, T* ends, std::int64_t count, ReducedBuffers<T>& buf) {
  std::fill_n(ends, 2 * count, T(0));
  // Beyond the line nothing is received; the rows there have no coupling, zero stands in.
  std::fill(buf.jacobi_from_lower.begin(), buf.jacobi_from_lower.end(), T(0));
  std::fill(buf.jacobi_from_upper.begin(), buf.jacobi_from_upper.end(), T(0));
  std::fill_n(buf.jacobi_lower.begin(), count, T(0));
  std::fill_n(buf.jacobi_upper.begin(), count, T(0));
  t.start_exchange(1, buf.jacobi_lower.data(), buf.jacobi_from_lower.data(),
                   buf.jacobi_upper.data(), buf.jacobi_from_upper.data(), count, scalar_of<T>());
}

template <class T>
triax::mpi::JacobiReport complete_reduced_jacobi(Transport& t, const ReducedPair<T>* rows, T* ends,
                                                 std::int64_t count, ReducedBuffers<T>& buf,
                                                 const triax::mpi::Options& options) {
  const double tolerance = options.jacobi_tolerance > 0 ? options.jacobi_tolerance
                                                        : 4.0 * std::numeric_limits<T>::epsilon();
  triax::mpi::JacobiReport report;
  double change_and_scale[2] = {0, 0};
  const auto measure = [&] {
    t.max_in_place(change_and_scale, 2);
    const auto [change, scale] = change_and_scale;
    report.relative_change = scale > 0 ? change / scale : (change > 0 ? INFINITY : 0.0);
    report.converged = report.relative_change <= tolerance;
  };
  for (int iteration = 1; iteration <= options.jacobi_iterations; ++iteration) {
    if (iteration == 1) {
      t.finish();  // begin_reduced_jacobi started the first iteration's message
    } else {
      for (std::int64_t s = 0; s < count; ++s) {
        buf.jacobi_lower[s] = ends[2 * s];
        buf.jacobi_upper[s] = ends[2 * s + 1];
      }
      t.exchange(1, buf.jacobi_lower.data(), buf.jacobi_from_lower.data(), buf.jacobi_upper.data(),
                 buf.jacobi_from_upper.data(), count, scalar_of<T>());
    }
    double change = 0, scale = 0;
    // Serial over systems: the reduced rows are few, and a reduction across threads would cost
    // more than it saves.
    for (std::int64_t s = 0; s < count; ++s) {
      const ReducedRow<T>& f = rows[s].first;
      const ReducedRow<T>& l = rows[s].last;
      const T rhs_first = f.d - f.a * buf.jacobi_from_lower[s];
      const T rhs_last = l.d - l.c * buf.jacobi_from_upper[s];
      const T inverse_det = T(1) / (f.b * l.b - f.c * l.a);
      const T first = (rhs_first * l.b - f.c * rhs_last) * inverse_det;
      const T last = (f.b * rhs_last - l.a * rhs_first) * inverse_det;
      change = std::max({change, std::abs(double(first) - double(ends[2 * s])),
                         std::abs(double(last) - double(ends[2 * s + 1]))});
      scale = std::max({scale, std::abs(double(first)), std::abs(double(last))});
      // A NaN never converges.
      if (std::isnan(first) || std::isnan(last)) change = INFINITY;
      ends[2 * s] = first;
      ends[2 * s + 1] = last;
    }
    report.iterations = iteration;
    change_and_scale[0] = change;
    change_and_scale[1] = scale;
    if (options.jacobi_check_convergence) {
      measure();
      if (report.converged) return report;
    }
  }
  if (!options.jacobi_check_convergence) measure();
  return report;
}

template <class T>
triax::mpi::JacobiReport solve_reduced_jacobi(Transport& t, const ReducedPair<T>* rows, T* ends,
                                              std::int64_t count, ReducedBuffers<T>& buf,
                                              const triax::mpi::Options& options) {
  begin_reduced_jacobi(t, ends, count, buf);
  return complete_reduced_jacobi(t, rows, ends, count, buf, options);
}

}  // namespace triax::detail
