#include "cpu_bound.hpp"

#include <omp.h>

#include <algorithm>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace triax::bench::mpi {
namespace {

template <class T>
MPI_Datatype mpi_value() {
  return sizeof(T) == 4 ? MPI_FLOAT : MPI_DOUBLE;
}

constexpr int tag_lo = 31, tag_hi = 32;

/// Values computed a chunk at a time into an L1 buffer, then stored: so that the stores can be
/// non-temporal (no read for ownership of x or the workspace) where that is faster.
template <class T>
constexpr std::int64_t chunk = 2048 / static_cast<std::int64_t>(sizeof(T));

template <class T>
void store(T* dst, const T* src, std::int64_t len, bool streaming) {
#if defined(__SSE2__)
  if (streaming) {
    constexpr std::int64_t per = 16 / static_cast<std::int64_t>(sizeof(T));
    std::int64_t k = 0;
    for (; k < len && reinterpret_cast<std::uintptr_t>(dst + k) % 16 != 0; ++k) dst[k] = src[k];
    for (; k + per <= len; k += per) {
      if constexpr (sizeof(T) == 4) {
        _mm_stream_ps(reinterpret_cast<float*>(dst + k),
                      _mm_loadu_ps(reinterpret_cast<const float*>(src + k)));
      } else {
        _mm_stream_pd(reinterpret_cast<double*>(dst + k),
                      _mm_loadu_pd(reinterpret_cast<const double*>(src + k)));
      }
    }
    for (; k < len; ++k) dst[k] = src[k];
    return;
  }
#endif
  (void)streaming;
  std::copy(src, src + len, dst);
}

void fence(bool streaming) {
#if defined(__SSE2__)
  if (streaming) _mm_sfence();
#endif
  (void)streaming;
}

}  // namespace

template <class T>
CpuBound<T>::CpuBound(const std::vector<std::int64_t>& extents, int axis, std::int64_t batches,
                      bool overlap, int threads, MPI_Comm cart)
    : batches_(std::max<std::int64_t>(1, batches)), overlap_(overlap), threads_(threads),
      cart_(cart) {
  std::int64_t total = 1;
  for (std::size_t k = 0; k < extents.size(); ++k) {
    total *= extents[k];
    if (static_cast<int>(k) < axis) stride_ *= extents[k];
  }
  n_ = extents[static_cast<std::size_t>(axis)];
  count_ = n_ > 0 ? total / n_ : 0;
  batches_ = std::min(batches_, std::max<std::int64_t>(1, count_));
  // The plan's batches: systems [first, first + size) in order (dist_solver.cpp). System
  // s = o S + j (S = stride_) has row i at o S n + i S + j: a batch covering whole o is one run,
  // else one run of its j a row.
  std::int64_t largest = 0;
  runs_.resize(static_cast<std::size_t>(batches_));
  for (std::int64_t k = 0; k < batches_; ++k) {
    const std::int64_t first = batch_start(k), end = batch_start(k + 1), S = stride_;
    largest = std::max(largest, end - first);
    std::vector<Run>& runs = runs_[static_cast<std::size_t>(k)];
    const auto add = [&](std::int64_t b, std::int64_t size) {
      if (size <= 0) return;
      if (!runs.empty() && runs.back().begin + runs.back().size == b) {
        runs.back().size += size;
      } else {
        runs.push_back({b, size});
      }
    };
    for (std::int64_t o = first / S; o * S < end; ++o) {
      const std::int64_t jlo = std::max<std::int64_t>(first - o * S, 0);
      const std::int64_t jhi = std::min(end - o * S, S);
      if (jlo == 0 && jhi == S) {
        add(o * S * n_, S * n_);
      } else {
        for (std::int64_t i = 0; i < n_; ++i) add(o * S * n_ + i * S + jlo, jhi - jlo);
      }
    }
  }
  work_.assign(static_cast<std::size_t>(3 * total), T(0));
  rows_.assign(static_cast<std::size_t>(8 * count_), T(0));
  from_lo_.assign(static_cast<std::size_t>(8 * largest), T(0));
  from_hi_.assign(static_cast<std::size_t>(8 * largest), T(0));
  MPI_Cart_shift(cart_, axis, 1, &lo_, &hi_);
}

template <class T>
std::int64_t CpuBound<T>::batch_start(std::int64_t k) const {
  return k == 0 ? 0 : count_ - (count_ * (batches_ - k)) / batches_;
}

/// body(thread's sum slot, offset, length) over the batch's runs, the thread's even share of
/// them in memory order; returns through rows_ the threads' sums (so nothing is dead code).
template <class T>
template <class Body>
void CpuBound<T>::for_each_part(std::int64_t k, Body&& body) {
  const std::vector<Run>& runs = runs_[static_cast<std::size_t>(k)];
  std::int64_t total = 0;
  for (const Run& r : runs) total += r.size;
  T sum = T(0);
#pragma omp parallel num_threads(threads_) reduction(+ : sum)
  {
    const std::int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    std::int64_t lo = total * t / nt, hi = total * (t + 1) / nt, at = 0;
    for (const Run& r : runs) {
      const std::int64_t b = std::max(lo, at), e = std::min(hi, at + r.size);
      if (b < e) body(sum, r.begin + (b - at), e - b);
      at += r.size;
      if (at >= hi) break;
    }
  }
  rows_[static_cast<std::size_t>(8 * batch_start(k))] += sum;
}

template <class T>
void CpuBound<T>::pass1(std::int64_t k) {
  const std::int64_t total = static_cast<std::int64_t>(work_.size()) / 3;
  T* const w0 = work_.data();
  T* const w1 = w0 + total;
  T* const w2 = w1 + total;
  const bool nt = streaming_;
  if (traffic_ == Traffic::min) {
    // Reads a, b, c, d once; only their sum is kept.
    for_each_part(k, [&](T& sum, std::int64_t p, std::int64_t len) {
      T s = T(0);
#pragma omp simd reduction(+ : s)
      for (std::int64_t q = p; q < p + len; ++q) s += a_[q] + b_[q] + c_[q] + d_[q];
      sum += s;
    });
  } else {
    for_each_part(k, [&](T&, std::int64_t p, std::int64_t len) {
      alignas(64) T buf[chunk<T>];
      for (std::int64_t q = p; q < p + len; q += chunk<T>) {
        const std::int64_t l = std::min(chunk<T>, p + len - q);
        store(w0 + q, a_ + q, l, nt);
        store(w1 + q, c_ + q, l, nt);
#pragma omp simd
        for (std::int64_t u = 0; u < l; ++u) buf[u] = b_[q + u] + d_[q + u];
        store(w2 + q, buf, l, nt);
      }
      fence(nt);
    });
  }
}

template <class T>
void CpuBound<T>::pass2(std::int64_t k) {
  const std::int64_t total = static_cast<std::int64_t>(work_.size()) / 3;
  const bool plan = traffic_ == Traffic::plan, nt = streaming_;
  // plan: x from the 3 workspace values; min: x from a, b, c, d again.
  const T* const s0 = plan ? work_.data() : a_;
  const T* const s1 = plan ? work_.data() + total : b_;
  const T* const s2 = plan ? work_.data() + 2 * total : c_;
  const T* const s3 = plan ? nullptr : d_;
  for_each_part(k, [&](T&, std::int64_t p, std::int64_t len) {
    alignas(64) T buf[chunk<T>];
    for (std::int64_t q = p; q < p + len; q += chunk<T>) {
      const std::int64_t l = std::min(chunk<T>, p + len - q);
      if (s3) {
#pragma omp simd
        for (std::int64_t u = 0; u < l; ++u) buf[u] = s0[q + u] + s1[q + u] + s2[q + u] + s3[q + u];
      } else {
#pragma omp simd
        for (std::int64_t u = 0; u < l; ++u) buf[u] = s0[q + u] + s1[q + u] + s2[q + u];
      }
      store(x_ + q, buf, l, nt);
    }
    fence(nt);
  });
}

template <class T>
void CpuBound<T>::begin(std::int64_t k) {
  const std::int64_t first = batch_start(k), size = batch_start(k + 1) - first;
  const int values = static_cast<int>(8 * size);
  T* mine = rows_.data() + 8 * first;
  MPI_Irecv(from_lo_.data(), values, mpi_value<T>(), lo_, tag_hi, cart_, &requests_[0]);
  MPI_Irecv(from_hi_.data(), values, mpi_value<T>(), hi_, tag_lo, cart_, &requests_[1]);
  MPI_Isend(mine, values, mpi_value<T>(), lo_, tag_lo, cart_, &requests_[2]);
  MPI_Isend(mine, values, mpi_value<T>(), hi_, tag_hi, cart_, &requests_[3]);
}

template <class T>
void CpuBound<T>::complete() {
  MPI_Waitall(4, requests_, MPI_STATUSES_IGNORE);
}

template <class T>
void CpuBound<T>::run(Traffic traffic, bool streaming, const T* a, const T* b, const T* c,
                      const T* d, T* x) {
  traffic_ = traffic, streaming_ = streaming;
  a_ = a, b_ = b, c_ = c, d_ = d, x_ = x;
  // The plan's order (dist_solver.cpp): with overlap, batch k + 1's pass 1 runs while batch
  // k's message is in flight, before batch k's pass 2.
  const bool overlap = overlap_ && batches_ > 1;
  for (std::int64_t k = 0; k < batches_; ++k) {
    const bool next = overlap && k + 1 < batches_;
    if (!overlap || k == 0) {
      pass1(k);
      begin(k);
    }
    if (next) pass1(k + 1);
    complete();
    if (next) begin(k + 1);
    pass2(k);
  }
}

template class CpuBound<float>;
template class CpuBound<double>;

}  // namespace triax::bench::mpi
