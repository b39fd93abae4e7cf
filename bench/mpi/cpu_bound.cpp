#include "cpu_bound.hpp"

#include <omp.h>

#include <algorithm>

namespace triax::bench::mpi {
namespace {

template <class T>
MPI_Datatype mpi_value() {
  return sizeof(T) == 4 ? MPI_FLOAT : MPI_DOUBLE;
}

constexpr int tag_lo = 31, tag_hi = 32;

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
  // The lane passes' groups: 4 vectors of 64 bytes where systems are adjacent (a row of a group
  // is 256 bytes), 2 where each system's rows are contiguous.
  adjacent_ = axis > 0;
  group_ = static_cast<std::int64_t>((adjacent_ ? 256 : 128) / sizeof(T));
  if (adjacent_) group_ = std::min(group_, stride_);
  work_.assign(static_cast<std::size_t>(3 * n_ * count_), T(0));
  rows_.assign(static_cast<std::size_t>(8 * count_), T(0));
  const std::int64_t largest = batch_start(1) - batch_start(0);
  from_lo_.assign(static_cast<std::size_t>(8 * largest), T(0));
  from_hi_.assign(static_cast<std::size_t>(8 * largest), T(0));
  MPI_Cart_shift(cart_, axis, 1, &lo_, &hi_);
}

template <class T>
std::int64_t CpuBound<T>::batch_start(std::int64_t k) const {
  return k == 0 ? 0 : count_ - (count_ * (batches_ - k)) / batches_;
}

template <class T>
void CpuBound<T>::forward(const T* a, const T* b, const T* c, const T* d, std::int64_t k) {
  const std::int64_t first = batch_start(k), size = batch_start(k + 1) - first;
  const std::int64_t groups = (size + group_ - 1) / group_;
  const std::int64_t n = n_, stride = stride_, G = group_;
#pragma omp parallel for num_threads(threads_) schedule(static)
  for (std::int64_t g = 0; g < groups; ++g) {
    const std::int64_t s0 = first + g * G;
    const std::int64_t lanes = std::min(G, first + size - s0);
    T* as = work_.data() + 3 * n * s0;
    T* cs = as + n * lanes;
    T* ds = as + 2 * n * lanes;
    const auto base = [&](std::int64_t s) { return (s / stride) * stride * n + s % stride; };
    if (adjacent_ && (s0 % stride) + lanes <= stride) {
      // A row of the group is `lanes` consecutive values.
      const std::int64_t o = base(s0);
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t r = o + i * stride;
#pragma omp simd
        for (std::int64_t j = 0; j < lanes; ++j) {
          as[i * lanes + j] = a[r + j];
          cs[i * lanes + j] = c[r + j];
          ds[i * lanes + j] = b[r + j] + d[r + j];
        }
      }
    } else {
      for (std::int64_t j = 0; j < lanes; ++j) {
        const std::int64_t o = base(s0 + j);
        for (std::int64_t i = 0; i < n; ++i) {
          const std::int64_t r = o + i * stride;
          as[i * lanes + j] = a[r];
          cs[i * lanes + j] = c[r];
          ds[i * lanes + j] = b[r] + d[r];
        }
      }
    }
    for (std::int64_t j = 0; j < lanes; ++j) {
      T* row = rows_.data() + 8 * (s0 + j);
      const std::int64_t last = (n - 1) * lanes + j;
      row[0] = as[j], row[1] = cs[j], row[2] = ds[j], row[3] = ds[j];
      row[4] = as[last], row[5] = cs[last], row[6] = ds[last], row[7] = ds[last];
    }
  }
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
void CpuBound<T>::back(T* x, std::int64_t k) {
  const std::int64_t first = batch_start(k), size = batch_start(k + 1) - first;
  const std::int64_t groups = (size + group_ - 1) / group_;
  const std::int64_t n = n_, stride = stride_, G = group_;
#pragma omp parallel for num_threads(threads_) schedule(static)
  for (std::int64_t g = 0; g < groups; ++g) {
    const std::int64_t s0 = first + g * G;
    const std::int64_t lanes = std::min(G, first + size - s0);
    const T* as = work_.data() + 3 * n * s0;
    const T* cs = as + n * lanes;
    const T* ds = as + 2 * n * lanes;
    const auto base = [&](std::int64_t s) { return (s / stride) * stride * n + s % stride; };
    if (adjacent_ && (s0 % stride) + lanes <= stride) {
      const std::int64_t o = base(s0);
      for (std::int64_t i = n - 1; i >= 0; --i) {
        const std::int64_t r = o + i * stride;
#pragma omp simd
        for (std::int64_t j = 0; j < lanes; ++j) {
          x[r + j] = as[i * lanes + j] + cs[i * lanes + j] + ds[i * lanes + j];
        }
      }
    } else {
      for (std::int64_t j = 0; j < lanes; ++j) {
        const std::int64_t o = base(s0 + j);
        for (std::int64_t i = n - 1; i >= 0; --i) {
          x[o + i * stride] = as[i * lanes + j] + cs[i * lanes + j] + ds[i * lanes + j];
        }
      }
    }
  }
}

template <class T>
void CpuBound<T>::run(const T* a, const T* b, const T* c, const T* d, T* x) {
  // The plan's order (dist_solver.cpp): with overlap, batch k + 1's forward pass runs while
  // batch k's message is in flight, before batch k's back substitution.
  const bool overlap = overlap_ && batches_ > 1;
  for (std::int64_t k = 0; k < batches_; ++k) {
    const bool next = overlap && k + 1 < batches_;
    if (!overlap || k == 0) {
      forward(a, b, c, d, k);
      begin(k);
    }
    if (next) forward(a, b, c, d, k + 1);
    complete();
    if (next) begin(k + 1);
    back(x, k);
  }
}

template class CpuBound<float>;
template class CpuBound<double>;

}  // namespace triax::bench::mpi
