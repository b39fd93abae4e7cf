#pragma once
// How a group of lanes brings its run of rows into shared memory where a system's chunk threads
// are adjacent (the hybrid's chunk_fastest mapping, the back-to-back variable batches): every row
// of the run goes from global memory to its staging slot by cp.async, so the loads hold no
// registers and all of them are in flight at once. Through registers (16-byte vectors or one
// element per row, then stored to shared memory), a thread held its share of the run and its
// chunk together: 80 registers in float (three blocks an SM) where it now needs 64 (four), and
// on an H200 the float axis-0 solves off the aligned path ran 1.1-1.3x slower
// (docs/notes/2026-11-28-session11.md).
#include <cuda_pipeline_primitives.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/scalar/block/global_loads.cuh"
#include "cuda/scalar/warp/hybrid_math.cuh"

namespace triax::detail::cuda {

/// The four staging arrays of a warp (a, b, c, d), `stride` elements apart.
template <class T>
struct StageArrays {
  T* at[4];
  __device__ __forceinline__ StageArrays(T* first, int stride)
      : at{first, first + stride, first + 2 * stride, first + 3 * stride} {}
};

/// Rows [R0, R1) of the operands whose row 0 is at a, b, c, d (row strides ra, rb, rc, rd) into
/// slots gbase + (row - R0) of the staging arrays (padded<T>), lane gi of the group's gw lanes
/// taking rows R0 + gi + gw i, i < M; nothing when !valid. a of row 0 is read only where
/// `a_first`, c of row `n` - 1 only where `c_last` (the caller's array may end before them; the
/// reader puts the system's boundary values there). Returns once this lane's copies have landed:
/// the caller syncs the warp before any lane reads another's rows.
template <class T, int M>
__device__ __forceinline__ void stage_run_async(const StageArrays<T>& st, const T* a, const T* b,
                                                const T* c, const T* d, std::int64_t ra,
                                                std::int64_t rb, std::int64_t rc, std::int64_t rd,
                                                int R0, int R1, int n, int gi, int gw, int gbase,
                                                bool valid, bool a_first, bool c_last) {
  const int first = R0 + gi;
  // Byte pointers stepped a row group at a time: a 64-bit product per row and operand cost about
  // a dozen instructions per load (docs/algorithms.md, "Instructions, reciprocals and loads").
  const std::int64_t row0 = first;
  const char* pa = reinterpret_cast<const char*>(a + row0 * ra);
  const char* pb = reinterpret_cast<const char*>(b + row0 * rb);
  const char* pc = reinterpret_cast<const char*>(c + row0 * rc);
  const char* pd = reinterpret_cast<const char*>(d + row0 * rd);
  const std::int64_t sa = ra * gw * std::int64_t(sizeof(T)), sb = rb * gw * std::int64_t(sizeof(T)),
                     sc = rc * gw * std::int64_t(sizeof(T)), sd = rd * gw * std::int64_t(sizeof(T));
#pragma unroll
  for (int i = 0; i < M; ++i) {
    const int row = first + gw * i;
    if (valid && row < R1) {
      const int e = padded<T>(gbase + gi + gw * i);
      if (row > 0 || a_first) copy_row_async(st.at[0] + e, reinterpret_cast<const T*>(pa));
      copy_row_async(st.at[1] + e, reinterpret_cast<const T*>(pb));
      if (row + 1 < n || c_last) copy_row_async(st.at[2] + e, reinterpret_cast<const T*>(pc));
      copy_row_async(st.at[3] + e, reinterpret_cast<const T*>(pd));
    }
    pa += sa;
    pb += sb;
    pc += sc;
    pd += sd;
  }
  __pipeline_commit();
  __pipeline_wait_prior(0);
}

/// This thread's chunk, rows `from` .. `from` + L - 1 of the staging arrays, into registers; a
/// of the system's row 0 (`a0`) and c of its last row (`c_end`) as 0, and the identity's values
/// where !valid.
template <class T, int M>
__device__ __forceinline__ void take_chunk(const StageArrays<T>& st, int from, int L, bool valid,
                                           bool a0, bool c_end, RegisterRows<T, M>& rows) {
#pragma unroll
  for (int k = 0; k < M; ++k) {
    if (k < L) {
      const int e = padded<T>(from + k);
      rows.a[k] = valid && !(a0 && k == 0) ? st.at[0][e] : T(0);
      rows.b[k] = valid ? st.at[1][e] : T(1);
      rows.c[k] = valid && !(c_end && k == L - 1) ? st.at[2][e] : T(0);
      rows.d[k] = valid ? st.at[3][e] : T(0);
    }
  }
}

}  // namespace triax::detail::cuda
