#pragma once
// The NCCL path's kernels of the one-row reduced form (one_row_methods.hpp says what each step
// is): one thread per system of the batch, the host methods' arithmetic.
#include <cstdint>

#include "dist/one_row_methods.hpp"

namespace triax::detail {

template <class T>
__global__ void one_row_first_kernel(const ReducedPair<T>* pairs, FirstUnknown<T>* first,
                                     std::int64_t size) {
  const std::int64_t s = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (s >= size) return;
  first[s] = first_unknown(pairs[s].first);
}

// Without an upper neighbour zeros stand in for its row 0 (the last piece's c is zero).
template <class T>
__global__ void one_row_form_kernel(const ReducedPair<T>* pairs, const FirstUnknown<T>* first,
                                    const FirstUnknown<T>* from_upper, bool has_upper,
                                    ReducedRow<T>* rows, std::int64_t size) {
  const std::int64_t s = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (s >= size) return;
  const FirstUnknown<T> up = has_upper ? from_upper[s] : FirstUnknown<T>{T(0), T(0), T(0)};
  rows[s] = one_row_of(pairs[s].last, first[s], up);
}

// One PCR step at some distance; sides beyond the line are identity rows.
template <class T>
__global__ void one_row_pcr_kernel(ReducedRow<T>* rows, const ReducedRow<T>* lower,
                                   const ReducedRow<T>* upper, bool has_lower, bool has_upper,
                                   std::int64_t size) {
  const std::int64_t s = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (s >= size) return;
  constexpr ReducedRow<T> identity{T(0), T(1), T(0), T(0)};
  rows[s] = pcr_combine(has_lower ? lower[s] : identity, rows[s], has_upper ? upper[s] : identity);
}

template <class T>
__global__ void one_row_last_kernel(const ReducedRow<T>* rows, T* y, std::int64_t size) {
  const std::int64_t s = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (s >= size) return;
  y[s] = rows[s].d / rows[s].b;
}

// The batch's ends (systems first .. first + size - 1 of the plan); without a lower neighbour
// zero stands in for its last unknown (the first piece's a is zero).
template <class T>
__global__ void one_row_ends_kernel(const FirstUnknown<T>* first_unknowns, const T* y,
                                    const T* y_lower, bool has_lower, T* ends, std::int64_t first,
                                    std::int64_t size) {
  const std::int64_t s = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (s >= size) return;
  ends[2 * (first + s)] = first_of(first_unknowns[s], has_lower ? y_lower[s] : T(0), y[s]);
  ends[2 * (first + s) + 1] = y[s];
}

}  // namespace triax::detail
