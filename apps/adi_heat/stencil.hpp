#pragma once
// The explicit half of the scheme, dt (Lx + Ly + Lz) u at one interior point, shared by the host
// loop and the CUDA kernel so both backends step the same equations.

#include <cstdint>

#if defined(__CUDACC__)
#define TRIAX_APP_HOST_DEVICE __host__ __device__
#else
#define TRIAX_APP_HOST_DEVICE
#endif

namespace adi {

// u is a packed n^3 interior grid (x fastest); u = 0 outside it (the Dirichlet boundary), so a
// missing neighbour contributes nothing. scale = dt / h^2.
template <class T>
TRIAX_APP_HOST_DEVICE inline T dt_laplacian_at(const T* u, std::int64_t n, std::int64_t i,
                                               std::int64_t j, std::int64_t k, T scale) {
  const std::int64_t n2 = n * n;
  const std::int64_t o = (k * n + j) * n + i;
  T s = T(-6) * u[o];
  s += i > 0 ? u[o - 1] : T(0);
  s += i + 1 < n ? u[o + 1] : T(0);
  s += j > 0 ? u[o - n] : T(0);
  s += j + 1 < n ? u[o + n] : T(0);
  s += k > 0 ? u[o - n2] : T(0);
  s += k + 1 < n ? u[o + n2] : T(0);
  return scale * s;
}

}  // namespace adi

namespace adi {

// The same at offset o of a block stored with one ghost layer on every side (row pitch px,
// plane pitch pxy), whose ghosts hold the neighbouring ranks' values or 0 at the boundary: no
// edge tests. The distributed fields (dist_fields.cpp).
template <class T>
inline T dt_laplacian_padded_at(const T* u, std::int64_t o, std::int64_t px, std::int64_t pxy,
                                T scale) {
  T s = T(-6) * u[o];
  s += u[o - 1];
  s += u[o + 1];
  s += u[o - px];
  s += u[o + px];
  s += u[o - pxy];
  s += u[o + pxy];
  return scale * s;
}

}  // namespace adi
