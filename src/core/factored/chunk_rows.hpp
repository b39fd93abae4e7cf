#pragma once
// What the chunk table kernels (src/cuda/factored/chunk_table_kernel.cuh) solve for: the template parameter Rows
// of both kernels. Each kernel loads its chunk's M rows of its input into registers as before;
// with Rows::halo it also fetches the two rows either side of the chunk (the warp kernel from
// the neighbouring lanes, the strided one from global memory, where those rows are the
// neighbouring chunks' and hit the cache) and lets Rows turn the rows into the right-hand side.
//
//   PlainRows       the input is d (solve, solve_in_place, solve_increment): nothing to do.
//   StencilRows<T>  the input is f and the right-hand side B f (solve_stencil): interior rows
//                   from the register window, the up-to-four edge rows through the line (their
//                   closures reach four rows in, past the window).
// Host and device code, so that tests/core/chunk_rows_test.cpp runs it chunk by chunk as the
// kernels do.
#include "core/factored/stencil_rows.hpp"

// The kernels keep u and the window in registers only if these loops are unrolled.
#if defined(__CUDA_ARCH__)
#define TRIAX_CHUNK_UNROLL _Pragma("unroll")
#else
#define TRIAX_CHUNK_UNROLL
#endif

namespace triax::detail {

struct PlainRows {
  static constexpr bool halo = false;
};

template <class T>
struct StencilRows {
  Stencil<T> B;
  static constexpr bool halo = true;

  /// u[k] (k < held) holds f's row first + k on entry and B f's on return. lo holds rows
  /// first-2, first-1 and hi rows first+M, first+M+1 where those lie in the line (anything
  /// otherwise: an interior row's taps never leave the line). line(r) reads f's row r,
  /// 0 <= r < n, of the same system.
  template <int M, class Line>
  TRIAX_HOST_DEVICE void operator()(T (&u)[M], const T (&lo)[2], const T (&hi)[2], int first,
                                    int held, int n, Line line) const {
    // Rows 0, 1, n-2, n-1, formed by the chunks that hold them.
    T edge[4] = {T(0), T(0), T(0), T(0)};
    if (held > 0 && first == 0) {
      edge[0] = stencil_edge_value(B, 0, n, line);
      if (n > 1) edge[1] = stencil_edge_value(B, 1, n, line);
    }
    if (held > 0 && first + held >= n - 1) {
      if (n > 1) edge[2] = stencil_edge_value(B, n - 2, n, line);
      edge[3] = stencil_edge_value(B, n - 1, n, line);
    }
    T w[M + 4];  // rows first-2 .. first+M+1
    w[0] = lo[0];
    w[1] = lo[1];
    TRIAX_CHUNK_UNROLL
    for (int k = 0; k < M; ++k) w[k + 2] = u[k];
    w[M + 2] = hi[0];
    w[M + 3] = hi[1];
    TRIAX_CHUNK_UNROLL
    for (int k = 0; k < M; ++k) {
      const int i = first + k;
      if (k < held) {
        u[k] = stencil_interior_row(i, n)
                   ? stencil_interior_value(B, [&](int o) { return w[k + 2 + o]; })
                   : (i == 0 ? edge[0] : i == 1 ? edge[1] : i == n - 2 ? edge[2] : edge[3]);
      }
    }
  }
};

}  // namespace triax::detail
