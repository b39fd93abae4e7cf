#pragma once
// The level loop of paper 004's CR as a block runs it (factored_cr_kernels.cuh): device code with
// no CUDA header of its own, so that tests/cpu/factored_cr_emulation_test.cpp can compile it for
// the host with one thread standing in for the block (a valid schedule: no level reads what
// another thread of the same level writes) and check its indexing against cpu_cr.

#include <cstdint>

#include "core/factored/cr_table.hpp"

namespace triax::detail::cuda_factored_cr {

/// Rows of `lanes` systems in shared memory: slot i of lane j at base[i * pitch + j].
template <class T>
struct SharedRows {
  T* base;
  int pitch;
  __device__ T& at(std::int64_t i, int j) const { return base[i * pitch + j]; }
};

/// Rows of `lanes` systems in global memory: slot i of lane j at base[off[j] + i * stride].
template <class T>
struct GlobalRows {
  T* base;
  const std::int64_t* off;  // in shared memory
  std::int64_t stride;
  __device__ T& at(std::int64_t i, int j) const { return base[off[j] + i * stride]; }
};

/// Forward reduction then back substitution of the `valid` systems (of `lanes`, 2^shift) held in
/// `rows`, by every thread of the block. Work item w is lane w % lanes of row w / lanes, so
/// neighbouring threads take neighbouring lanes of one row (one coefficient entry, broadcast).
template <class T, class Rows>
__device__ void cr_block(const CrView<T>& v, const Rows& rows, int shift, int valid) {
  const std::int64_t n = v.n;
  const int lanes = 1 << shift;
  const int t = threadIdx.x, threads = blockDim.x;
  for (int l = 0; l + 1 < v.levels; ++l) {
    const std::int64_t m = CrView<T>::rows(n, l);
    const std::int64_t items = (m / 2) << shift;
    for (std::int64_t w = t; w < items; w += threads) {
      const int j = static_cast<int>(w & (lanes - 1));
      if (j >= valid) continue;
      const std::int64_t q = w >> shift, i = 2 * q + 1;
      const T* k = v.kept_entry(l, q);
      const T k1 = __ldg(k), k2 = __ldg(k + 1);
      T di = rows.at(CrView<T>::slot(i, l), j) - k1 * rows.at(CrView<T>::slot(i - 1, l), j);
      if (i + 1 < m) di -= k2 * rows.at(CrView<T>::slot(i + 1, l), j);
      rows.at(CrView<T>::slot(i, l), j) = di;
    }
    __syncthreads();
  }
  for (int l = v.levels - 1; l >= 0; --l) {
    const std::int64_t m = CrView<T>::rows(n, l);
    const std::int64_t items = (m - m / 2) << shift;
    for (std::int64_t w = t; w < items; w += threads) {
      const int j = static_cast<int>(w & (lanes - 1));
      if (j >= valid) continue;
      const std::int64_t i = 2 * (w >> shift);
      const T* e = v.eliminated_entry(l, w >> shift);
      T xi = rows.at(CrView<T>::slot(i, l), j) * __ldg(e);
      if (i > 0) xi -= __ldg(e + 1) * rows.at(CrView<T>::slot(i - 1, l), j);
      if (i + 1 < m) xi -= __ldg(e + 2) * rows.at(CrView<T>::slot(i + 1, l), j);
      rows.at(CrView<T>::slot(i, l), j) = xi;
    }
    __syncthreads();
  }
}

}  // namespace triax::detail::cuda_factored_cr
