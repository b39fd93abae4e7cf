#pragma once
// The Thomas-PCR hybrid kernel (paper 000, s.6.3) behind warp_thomas_pcr and block_thomas_pcr.
// Each thread owns one chunk of at most M consecutive rows of one system, kept in registers
// (hybrid_math.cuh). A block holds S systems x P chunk threads; the block's threads are arranged
// by the access pattern:
//
//  * Mapping::chunk_fastest (Algorithm 10, rows contiguous: axis 0). The P threads of a system
//    are consecutive. A group of min(P, 32) lanes copies its rows into shared memory with one
//    contiguous run per instruction (lane i takes rows R0 + i, R0 + i + 32, ...; cp.async,
//    run_stage.cuh) and each thread takes its chunk from there: a per-warp transpose; x leaves
//    the same way. With P <= 32 the reduced
//    system never leaves the warp (pair_solve over shuffles, no block barrier).
//  * Mapping::system_fastest (Algorithm 11, neighbouring systems adjacent in memory: axes >= 1).
//    The S threads of one chunk index are consecutive: each row of a chunk is one contiguous run
//    of S systems, read straight into registers. The reduced rows go through shared memory to
//    warps that solve them (P <= 32: P lanes per system, else one warp per system with 2P/32
//    rows per lane, the hybrid once more).
//
// Both arrangements are correct for any strides (each thread computes its own system's offsets);
// they are fast when the layout matches. Inputs are read once and x written once.
//
// Phases: fused (the whole system in one block), or for systems longer than a block holds, the
// long path: reduce_only writes two reduced equations per tile of 32 chunks of a system (or, with
// TRIAX_CUDA_HYBRID_LONG_TILES=0, per chunk) to a workspace (a batch of tridiagonal systems,
// solved by the same machinery), finish_only re-reads the chunk, recomputes its sweep and writes
// x from the chunk's two end values.
//
// Checked mode (info != nullptr), the CPU backend's rule exactly: before any x is written, one
// thread per system runs the plain Thomas forward recurrence over the system (sequential, from
// device memory) and records the first row whose pivot is zero or not finite or whose d' is not
// finite; if there is none, info is 1 + the last row whose stored value (x, or x added to the old
// output) is not finite; else 0. NaN is never reported as success.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "core/problem.hpp"
#include "cuda/scalar/block/global_loads.cuh"
#include "cuda/scalar/block/hybrid.hpp"
#include "cuda/scalar/block/long_tile.cuh"
#include "cuda/scalar/block/reduced_solve.cuh"
#include "cuda/scalar/block/run_stage.cuh"
#include "cuda/scalar/thread/thomas_steps.cuh"
#include "cuda/scalar/warp/hybrid_math.cuh"
#include "cuda/system_offsets.cuh"

namespace triax::detail::cuda {

/// Largest block: 512 threads leave a thread up to 128 registers, which 8-row float and double
/// chunks and 16-row float chunks need without spilling (ptxas -v).
constexpr int hybrid_max_threads = 512;
/// fused: the whole system in one block; clustered: in the C blocks of a thread-block cluster
/// (Hopper), which exchange two equations per system (reduced_solve.cuh); reduce_only and
/// finish_only: the long path's two passes around the workspace.
enum class Phase { fused, clustered, reduce_only, finish_only };

/// How rows are split and threads arranged; trivially copyable, passed by value.
struct HybridShape {
  int P;                      // chunk threads per system in a block
  int S;                      // systems per block (blockDim.x = S * P)
  int C;                      // blocks per system (clustered: the cluster's size along y; else 1)
  int active;                 // chunks that carry rows, over the whole system (the rest are empty)
  int q, rem;                 // chunk j < active has q + (j < rem) rows
  std::int64_t reduced_rows;  // long path: 2K, rows of each reduced system (K = P * gridDim.y)
  // Long path: where the reduced systems live (4 arrays of count * 2K, x in place of d), and
  // their layout: element (system s, row r) at s * sys_stride + r * row_stride.
  std::int64_t red_sys_stride, red_row_stride;
  void* red;  // T[4][count * 2K]: sub, diag, sup, rhs/x
  // chunk_shifted: the lowest and highest element offsets d's layout addresses. Every operand
  // read in vectors has d's batch strides (rows_shifted_alike), so a vector inside these in d is
  // inside every operand's own: whole vectors are read anywhere between them (over a
  // neighbouring system's rows or ghost cells, whose values are then dropped), element by
  // element only at the two ends.
  std::int64_t span_lo, span_hi;
  // chunk_shifted: bit op set for a coefficient whose rows every system shares (batch strides
  // 0), read element by element (load_chunk_elements); its vectors do not start where d's do.
  unsigned shared_rows;
  // chunk_fastest: x leaves the staging area in 16-byte vectors where its rows are contiguous,
  // with single elements at each end of a group's run (store_run).
  bool vector_stage;
  // Neighbouring systems adjacent (system_fastest): a, b, c and d are components 0..3 of one
  // aligned unit per row (core/unified_units.hpp, checked by the host at each solve), read with
  // one 16-byte load per row in float and two in double instead of four scalar loads.
  bool unified;
  // Long path (P a multiple of 32): each tile of 32 consecutive chunks of a system (a warp's own
  // along axis 0; spread over S warps and met in shared memory along axes >= 1) leaves two
  // reduced equations, not two per chunk (long_tile.hpp). The reduced system
  // is then 2 rows per 32 chunks (n / 256 in float, n / 128 in double) where one pair per chunk
  // made it n / 8 and n / 4, and the two passes move about 9 arrays per row instead of about 11.
  bool tiled;
};

/// Whether a block solves its reduced systems through shared memory (else within warps, or the
/// long path's workspace).
__host__ __device__ constexpr bool reduced_in_shared(Mapping map, Phase ph, int P) {
  return ph == Phase::clustered ||
         (ph == Phase::fused && !(map != Mapping::system_fastest && P <= 32));
}

/// Shared memory of one block, in elements of T, then S ints (checked mode).
template <class T>
struct HybridSmem {
  int stage_stride;  // per warp: 4 arrays of 32 * M rows, padded (chunk_fastest only)
  int sys_stride;    // reduced rows of one system in this block: 2P + 1
  int reduced_size;  // per array: padded S * sys_stride, or 0
  int exchange;      // clustered: cluster_exchange_size(S) + cluster_records_size(S, C)
  __host__ __device__ static HybridSmem make(const HybridShape& s, int M, Mapping map, Phase ph) {
    HybridSmem m{};
    m.stage_stride = map == Mapping::chunk_fastest ? 4 * padded_size<T>(32 * M) : 0;
    m.sys_stride = 2 * s.P + 1;
    // The long path in tiles along axes >= 1 passes the chunks' pairs to the tiles' warps
    // through the same arrays (hybrid_kernel's long path).
    const bool tiles_in_shared = map == Mapping::system_fastest && s.tiled &&
                                 (ph == Phase::reduce_only || ph == Phase::finish_only);
    const bool in_shared = reduced_in_shared(map, ph, s.P) || tiles_in_shared;
    m.reduced_size = in_shared ? padded_size<T>(s.S * m.sys_stride) : 0;
    // Clustered: the exchange after the reduced arrays starts at a multiple of 16 bytes (the
    // stage is empty along axes >= 1).
    if (ph == Phase::clustered) m.reduced_size = cluster_round_up<T>(m.reduced_size);
    m.exchange = ph == Phase::clustered
                     ? cluster_exchange_size<T>(s.S) + cluster_records_size<T>(s.S, s.C)
                     : 0;
    return m;
  }
  __host__ __device__ std::size_t bytes(int warps, int S) const {
    return (std::size_t(stage_stride) * warps + 4 * std::size_t(reduced_size) + exchange) *
               sizeof(T) +
           std::size_t(S) * sizeof(int);
  }
};

/// Row where chunk j starts (n for the empty chunks past the active ones); on the host too, for
/// the tests of the host's cuts (chunk_split.cuh).
__host__ __device__ __forceinline__ int chunk_start(const HybridShape& sh, std::int64_t n, int j) {
  return j < sh.active ? j * sh.q + min(j, sh.rem) : static_cast<int>(n);
}

/// Checked mode: the first bad row of the plain Thomas forward recurrence, + 1 (0 if none).
template <class T>
__device__ int thomas_forward_info(const Problem& p, const Operands<T>& ops,
                                   const std::int64_t (&off)[operand_count]) {
  const std::int64_t n = p.n;
  const T* a = ops.a + off[op_a];
  const T* b = ops.b + off[op_b];
  const T* c = ops.c + off[op_c];
  const T* d = ops.d + off[op_d];
  const std::int64_t ra = p.map[op_a].row_stride, rb = p.map[op_b].row_stride,
                     rc = p.map[op_c].row_stride, rd = p.map[op_d].row_stride;
  ThomasForward<T, true> f;
  for (std::int64_t i = 0; i < n && f.info == 0; ++i) {
    f.step(i > 0 ? a[i * ra] : T(0), b[i * rb], i + 1 < n ? c[i * rc] : T(0), d[i * rd], i);
  }
  return f.info;
}

/// Walks the rows of one operand from row r0 by a byte pointer, one row stride per step.
template <class T>
struct RowPointer {
  const char* at;
  std::int64_t step;
  __device__ __forceinline__ RowPointer(const T* row0, int r0, std::int64_t stride)
      : at(reinterpret_cast<const char*>(row0 + std::int64_t(r0) * stride)),
        step(stride * static_cast<std::int64_t>(sizeof(T))) {}
  __device__ __forceinline__ const T* row() const { return reinterpret_cast<const T*>(at); }
  __device__ __forceinline__ void next() { at += step; }
};

/// A chunk's solution values v[0 .. L-1] stored to rows r0 .. r0 + L - 1 of x at row stride rx
/// (added to what x holds, accumulating). Checked: returns 1 + the last row whose stored value is
/// not finite, else 0.
template <class T, int M, bool Accumulate, bool Checked>
__device__ __forceinline__ int store_chunk_strided(T* x, std::int64_t rx, int r0, int L,
                                                   const T (&v)[M]) {
  // Row addresses by a byte pointer stepped one row at a time: a 64-bit product per row,
  // (r0 + k) rx, cost about a dozen instructions per store and a branch around each, and an
  // element offset scaled and added to x per row about six (Nsight Compute, float clusters at
  // n = 1024: 160 instructions for a chunk's 16 stores).
  const std::int64_t step = rx * static_cast<std::int64_t>(sizeof(T));
  T old[M];
  if constexpr (Accumulate) {
    const char* q = reinterpret_cast<const char*>(x + std::int64_t(r0) * rx);
#pragma unroll
    for (int k = 0; k < M; ++k) {
      old[k] = k < L ? *reinterpret_cast<const T*>(q) : T(0);
      q += step;
    }
  }
  int bad = 0;
  char* q = reinterpret_cast<char*>(x + std::int64_t(r0) * rx);
#pragma unroll
  for (int k = 0; k < M; ++k) {
    T out = v[k];
    if constexpr (Accumulate) out += old[k];
    if (k < L) *reinterpret_cast<T*>(q) = out;
    if (Checked && k < L && !isfinite(out)) bad = r0 + k + 1;
    q += step;
  }
  return bad;
}

template <class T>
using VecOf = std::conditional_t<sizeof(T) == 4, float4, double2>;
__device__ __forceinline__ void unpack(const float4& v, float* out) {
  out[0] = v.x;
  out[1] = v.y;
  out[2] = v.z;
  out[3] = v.w;
}
__device__ __forceinline__ void unpack(const double2& v, double* out) {
  out[0] = v.x;
  out[1] = v.y;
}
/// The 16-byte vector at p (which starts one) read, or written, by one instruction of the
/// intrinsics' inline assembly, which the compiler cannot split. Where it could not prove the
/// alignment (chunk_shifted's chunks start at a system's row 0 less its shift), plain vector
/// accesses were split into 4- and 8-byte ones: on an H200 the shifted kernel issued 2.3x the
/// aligned kernel's store requests and 1.3x its load requests, and ran at 0.78x its speed
/// (docs/notes/2026-11-29-session15.md).
template <class T>
__device__ __forceinline__ VecOf<T> load_vector(const T* p) {
  return __ldca(reinterpret_cast<const VecOf<T>*>(p));
}
template <class T>
__device__ __forceinline__ void store_vector(T* p, const VecOf<T>& v) {
  __stwb(reinterpret_cast<VecOf<T>*>(p), v);
}
template <class T>
__device__ __forceinline__ VecOf<T> pack(const T* in) {
  if constexpr (sizeof(T) == 4) {
    return make_float4(in[0], in[1], in[2], in[3]);
  } else {
    return make_double2(in[0], in[1]);
  }
}

/// Unified-Vector units (HybridShape::unified): rows r0 .. r0 + L - 1 of a chunk from the units at
/// `unit0` (a's element of row 0) and row stride `ru` (elements), each row's a, b, c, d in one
/// 16-byte vector (float) or two (double). a of row 0 and c of row n - 1 arrive with their
/// units and are dropped.
template <class T, int M>
__device__ __forceinline__ void load_unit_rows(const T* unit0, int r0, std::int64_t ru, int L,
                                               std::int64_t n, RegisterRows<T, M>& rows) {
  constexpr int vectors = 4 * static_cast<int>(sizeof(T)) / 16;
  RowPointer<T> pu(unit0, r0, ru);
#pragma unroll
  for (int k = 0; k < M; ++k) {
    if (k < L) {
      const VecOf<T>* v = reinterpret_cast<const VecOf<T>*>(pu.row());
      T u[4];
#pragma unroll
      for (int h = 0; h < vectors; ++h) unpack(v[h], u + h * (4 / vectors));
      rows.a[k] = r0 + k > 0 ? u[0] : T(0);
      rows.b[k] = u[1];
      rows.c[k] = r0 + k + 1 < n ? u[2] : T(0);
      rows.d[k] = u[3];
    }
    pu.next();
  }
}

/// chunk_direct: rows [r0, r0 + L) of one operand with 16-byte vectors, or its one value where
/// it is constant along the row (row stride 0; then `first` is 0). Unsplit: by load_vector
/// (chunk_shifted's whole chunks), else plain loads (chunk_direct's, as measured).
/// `drop_first` / `drop_last`: register 0 / L - 1 is a's row 0 / c's row n - 1, which is never
/// read (LAPACK's dl - 1 and du put it outside the caller's allocation): that vector is read
/// element by element without it, and the register gets 0.
template <class T, int M, bool Unsplit = false>
__device__ __forceinline__ void load_chunk_direct(const T* base, int first, bool constant_rows,
                                                  bool valid, int L, T (&out)[M],
                                                  bool drop_first = false,
                                                  bool drop_last = false) {
  constexpr int V = 16 / sizeof(T);
  if (constant_rows) {
    const T v = valid ? base[0] : T(0);
#pragma unroll
    for (int k = 0; k < M; ++k) out[k] = v;
    return;
  }
#pragma unroll
  for (int v = 0; v < M / V; ++v) {
    if (valid && v * V < L) {
      const T* at = base + first + v * V;
      const bool head = v == 0 && drop_first, tail = v * V + V >= L && drop_last;
      if (head || tail) {
#pragma unroll
        for (int e = 0; e < V; ++e) {
          const bool dropped = (head && e == 0) || (tail && v * V + e == L - 1);
          out[v * V + e] = dropped ? T(0) : at[e];
        }
      } else if constexpr (Unsplit) {
        unpack(load_vector(at), out + v * V);
      } else {
        unpack(*reinterpret_cast<const VecOf<T>*>(at), out + v * V);
      }
    }
  }
}

/// chunk_shifted: the place of a system's row 0 within its 16-byte vector, in rows (the same in
/// every operand whose rows are contiguous: rows_shifted_alike).
template <class T>
__host__ __device__ __forceinline__ int vector_shift(const T* row0) {
  constexpr int V = 16 / static_cast<int>(sizeof(T));
  return static_cast<int>((reinterpret_cast<std::uintptr_t>(row0) / sizeof(T)) % V);
}

/// chunk_shifted: the registers a chunk whose register k is row r0 + k uses (r0 < 0 in a system's
/// first chunk, whose first -r0 registers are rows before the system). A chunk of one register
/// takes a second (an identity row past the system): chunk_reduce reads one register as a
/// one-row system, where this one is coupled to the chunk before it.
__host__ __device__ __forceinline__ int shifted_chunk_rows(int r0, int n, int q) {
  const int rest = n - r0;
  const int L = rest < 0 ? 0 : rest < q ? rest : q;
  return L == 1 ? 2 : L;
}

/// chunk_shifted: registers k < L of one operand from rows r0 + k, where the rows at r0 + v V
/// start 16-byte vectors: whole vectors within the rows [lo, hi) the operand has (a: 1..n-1,
/// c: 0..n-2, b and d: 0..n-1) in one load, the vectors over their ends element by element.
/// Registers of other rows get 0, or, where `Diagonal` (b: lo 0, hi n), the diagonal of the
/// system's nearest row (1 where that is 0): the identity rows that pad the chunks then scale
/// like the rows beside them (chunk_reduce scales a chunk by its first row, which in a system's
/// first chunk is such a row).
template <class T, bool Diagonal>
__device__ __forceinline__ T shifted_element(const T* row0, int row, int lo, int hi) {
  const bool inside = row >= lo && row < hi;
  if constexpr (Diagonal) {
    const T near = row0[min(max(row, lo), hi - 1)];
    return inside || near != T(0) ? near : T(1);
  } else {
    return inside ? row0[row] : T(0);
  }
}
template <class T, int M, bool Diagonal>
__device__ __forceinline__ void load_chunk_shifted(const T* row0, int r0, int lo, int hi,
                                                   bool valid, int L, T (&out)[M]) {
  constexpr int V = 16 / static_cast<int>(sizeof(T));
#pragma unroll
  for (int v = 0; v < M / V; ++v) {
    const int rs = r0 + v * V;
    if (valid && v * V < L) {
      if (rs >= lo && rs + V <= hi) {
        unpack(load_vector(row0 + rs), out + v * V);
      } else {
#pragma unroll
        for (int e = 0; e < V; ++e) {
          out[v * V + e] = shifted_element<T, Diagonal>(row0, rs + e, lo, hi);
        }
      }
    }
  }
}

/// chunk_shifted, a coefficient whose rows every system shares (batch strides 0; its vectors do
/// not start where a system's do): registers k < L from rows r0 + k one element at a time, as
/// load_chunk_shifted reads a system's ends. The systems' loads meet in L1.
template <class T, int M, bool Diagonal>
__device__ __forceinline__ void load_chunk_elements(const T* row0, int r0, int lo, int hi,
                                                    bool valid, int L, T (&out)[M]) {
  constexpr int V = 16 / static_cast<int>(sizeof(T));
#pragma unroll
  for (int k = 0; k < M; ++k) {
    if (valid && k / V * V < L) out[k] = shifted_element<T, Diagonal>(row0, r0 + k, lo, hi);
  }
}

/// chunk_shifted: a chunk's rows. Where its vectors lie inside d's span (every chunk but those
/// of the lowest and highest system in memory), whole 16-byte vectors as chunk_direct reads them
/// (a, b or c of row stride 0 read once); the rows before the system's row 0 then become identity
/// rows (a chunk's first V - 1 registers at most), a of row 0 becomes 0, and a chunk of one row
/// gets its second register as an identity row; rows past the end are outside L, and c of row
/// n - 1 reaches only `last.sup`, which the caller zeroes (drop_system_ends). At the span's ends
/// every operand element by element (load_chunk_shifted), with the same result. A first form
/// that branched per vector ran at 50-64% of the copy (docs/notes/2026-11-28-session13.md);
/// Nsight Compute finds these kernels bound by latency, not by instruction issue
/// (docs/notes/2026-11-28-session14.md).
template <class T, int M>
__device__ __forceinline__ void load_rows_shifted(const Operands<T>& ops,
                                                  const std::int64_t (&off)[operand_count],
                                                  bool a_const, bool b_const, bool c_const,
                                                  unsigned shared, int r0, int n, bool valid,
                                                  int L, bool inside, RegisterRows<T, M>& rows) {
  constexpr int V = 16 / static_cast<int>(sizeof(T));
  // A coefficient: one value along the row (row stride 0) read once, rows every system shares
  // (`shared`, bit op) element by element, else the system's own rows as d's.
  const auto coefficient = [&](auto diagonal, const T* base, bool constant, int op, T(&out)[M]) {
    constexpr bool Diagonal = decltype(diagonal)::value;
    const int lo = op == op_a ? 1 : 0, hi = op == op_c ? n - 1 : n;
    if (constant) {
      load_chunk_direct<T, M>(base, 0, true, valid, L, out);
    } else if ((shared >> op) & 1u) {
      load_chunk_elements<T, M, Diagonal>(base, r0, lo, hi, valid, L, out);
    } else if (inside) {
      load_chunk_direct<T, M, true>(base, r0, false, valid, L, out);
    } else {
      load_chunk_shifted<T, M, Diagonal>(base, r0, lo, hi, valid, L, out);
    }
  };
  coefficient(std::false_type{}, ops.a + off[op_a], a_const, op_a, rows.a);
  coefficient(std::true_type{}, ops.b + off[op_b], b_const, op_b, rows.b);
  coefficient(std::false_type{}, ops.c + off[op_c], c_const, op_c, rows.c);
  if (inside) {
    load_chunk_direct<T, M, true>(ops.d + off[op_d], r0, false, valid, L, rows.d);
    // The diagonal of row 0 for the identity rows before it, read again (from the line just
    // read): picking register -r0 by selects made the compiler index the registers at run time,
    // which puts them in local memory.
    T b0 = T(1);
    if (valid && r0 < 0) b0 = ops.b[off[op_b]];
    b0 = b0 != T(0) ? b0 : T(1);
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const bool before = r0 + k < 0;
      rows.a[k] = r0 + k <= 0 ? T(0) : rows.a[k];
      rows.b[k] = before ? b0 : rows.b[k];
      rows.c[k] = before ? T(0) : rows.c[k];
      rows.d[k] = before ? T(0) : rows.d[k];
    }
    // One row left for the chunk (shifted_chunk_rows made L 2): row n - 1, then an identity row.
    if (n - r0 == 1) {
      rows.c[0] = T(0);
      rows.a[1] = T(0);
      rows.b[1] = rows.b[0] != T(0) ? rows.b[0] : T(1);
      rows.c[1] = T(0);
      rows.d[1] = T(0);
    }
    return;
  }
  load_chunk_shifted<T, M, false>(ops.d + off[op_d], r0, 0, n, valid, L, rows.d);
#pragma unroll
  for (int k = 0; k < M; ++k) {
    const int row = r0 + k;
    rows.a[k] = row <= 0 || row >= n ? T(0) : rows.a[k];
    rows.c[k] = row < 0 || row >= n - 1 ? T(0) : rows.c[k];
  }
}

/// chunk_shifted: whether a chunk's vectors, rows r0 .. r0 + L rounded up to a whole vector, lie
/// inside d's span without its two ends (load_rows_shifted): the lowest element is a's row 0 of
/// the lowest system and the highest c's row n - 1 of the highest, never read (with LAPACK's
/// dl - 1 and du they are outside the caller's allocations).
template <class T>
__device__ __forceinline__ bool shifted_inside(const HybridShape& sh, std::int64_t d_row0, int r0,
                                               int L) {
  constexpr int V = 16 / static_cast<int>(sizeof(T));
  const std::int64_t first = d_row0 + r0;
  return first > sh.span_lo && first + (L + V - 1) / V * V - 1 < sh.span_hi;
}

/// chunk_shifted: registers v[k], k < L, to rows r0 + k of x (added to what x holds,
/// accumulating), the vectors of load_chunk_shifted: whole ones in one store, those over the
/// system's ends element by element, rows outside it untouched. Checked: returns 1 + the last
/// row whose stored value is not finite, else 0.
template <class T, int M, bool Accumulate, bool Checked>
__device__ __forceinline__ int store_chunk_shifted(T* row0, int r0, int n, bool valid, int L,
                                                   const T (&v)[M]) {
  constexpr int V = 16 / static_cast<int>(sizeof(T));
  int bad = 0;
#pragma unroll
  for (int w = 0; w < M / V; ++w) {
    const int rs = r0 + w * V;
    if (valid && w * V < L) {
      if (rs >= 0 && rs + V <= n) {
        T out[V], old[V];
        if constexpr (Accumulate) unpack(load_vector(row0 + rs), old);
#pragma unroll
        for (int e = 0; e < V; ++e) {
          out[e] = Accumulate ? old[e] + v[w * V + e] : v[w * V + e];
          if (Checked && !isfinite(out[e])) bad = rs + e + 1;
        }
        store_vector(row0 + rs, pack<T>(out));
      } else {
#pragma unroll
        for (int e = 0; e < V; ++e) {
          const int row = rs + e;
          if (row >= 0 && row < n) {
            T out = v[w * V + e];
            if constexpr (Accumulate) out += row0[row];
            row0[row] = out;
            if (Checked && !isfinite(out)) bad = row + 1;
          }
        }
      }
    }
  }
  return bad;
}

/// chunk_fastest with contiguous rows: the staged values of a group's run [R0, R1) stored to x
/// (added to what x holds, accumulating), 16-byte vectors in the aligned body and single
/// elements at each end (fewer than V rows before the first 16-byte boundary and after the last:
/// groups of at least V - 1 lanes store them; the host asks for P >= 4). Checked:
/// returns 1 + the last row whose stored value is not finite, else 0.
template <class T, int M, bool Accumulate, bool Checked>
__device__ __forceinline__ int store_run(T* x_row0, int R0, int R1, int gi, int gw, int gbase,
                                         const T* st, bool valid) {
  constexpr int V = 16 / static_cast<int>(sizeof(T));
  T* run = x_row0 + R0;
  const int len = valid ? R1 - R0 : 0;
  const int mis = static_cast<int>((reinterpret_cast<std::uintptr_t>(run) / sizeof(T)) % V);
  const int head = min(len, (V - mis) % V);
  const int vectors = (len - head) / V;
  const int tail_start = head + vectors * V;
  int bad = 0;
  const auto one = [&](int e) {
    T v = st[padded<T>(gbase + e)];
    if constexpr (Accumulate) v += run[e];
    run[e] = v;
    if (Checked && !isfinite(v)) bad = max(bad, R0 + e + 1);
  };
  if (gi < head) one(gi);
  if (gi < len - tail_start) one(tail_start + gi);
  VecOf<T>* vec = reinterpret_cast<VecOf<T>*>(run + head);
#pragma unroll
  for (int i = 0; i < M / V; ++i) {
    const int v = gi + gw * i;
    if (v < vectors) {
      T e[V], old[V];
      if constexpr (Accumulate) unpack(vec[v], old);
#pragma unroll
      for (int k = 0; k < V; ++k) {
        e[k] = st[padded<T>(gbase + head + v * V + k)];
        if constexpr (Accumulate) e[k] += old[k];
        if (Checked && !isfinite(e[k])) bad = max(bad, R0 + head + v * V + k + 1);
      }
      vec[v] = pack<T>(e);
    }
  }
  return bad;
}

/// The register budget of a kernel: blocks of up to hybrid_max_threads where neighbouring systems
/// are adjacent; where a system's chunk threads are adjacent (axis 0) blocks have at most
/// chunk_block_threads, and 8-row float chunks are held to 64 registers: four blocks an SM (the
/// fused chunk_fastest kernel takes 72 uncapped and spills 4 bytes at 64). Before its loads
/// went through cp.async (run_stage.cuh) it needed 80 for three blocks: at two (86-99
/// registers, 25% occupancy) the float path ran at 52-64% of the copy where the 62-register
/// vector path ran at 102% with four (H100, n = 255 / 256 along x,
/// docs/notes/2026-11-26-shapes.md). 12-row float chunks (along x) take 80 with three, where 16
/// take 95 with two. Double keeps two blocks: its chunk's rows alone are 64 registers (236 bytes
/// spilled at 80).
constexpr int chunk_block_threads = 256;
/// Past chunk_block_threads, one system of up to 512 chunks along x in a block of its own
/// (hybrid.cu): the chunk-major kernels are bounded for 512 threads with half the blocks per SM,
/// the same register caps (64 for 8-row float chunks, 128 for 16-row float and 8-row double).
/// 12-row float chunks (at most 192 threads) keep 256 and three blocks.
constexpr int chunk_block_most_threads = 512;
// A tuning aid: blocks of 256 threads per SM of the 8-row float kernels.
#ifndef TRIAX_CUDA_CHUNK_MIN_BLOCKS
#define TRIAX_CUDA_CHUNK_MIN_BLOCKS 4
#endif
template <class T, int M, Mapping Map>
struct HybridBounds {
  static constexpr bool chunk_major = Map != Mapping::system_fastest;
  static constexpr bool twelve = sizeof(T) == 4 && M == 12;
  static constexpr int threads = !chunk_major ? hybrid_max_threads
                                 : twelve     ? chunk_block_threads
                                              : chunk_block_most_threads;
  // The rest keep the 128-register cap that blocks of hybrid_max_threads gave them: two blocks.
  // Where neighbouring systems are adjacent, 0 as if none were named (1 made ptxas take up to a
  // third more registers for the same cap).
  static constexpr int min_blocks =
      !chunk_major                 ? 0
      : sizeof(T) == 4 && M == 8   ? TRIAX_CUDA_CHUNK_MIN_BLOCKS * chunk_block_threads / threads
      : twelve                     ? 3
                                   : 2 * chunk_block_threads / threads;
};

template <class T, int M, Mapping Map, Phase Ph, bool Accumulate, bool Checked>
__global__ void __launch_bounds__(HybridBounds<T, M, Map>::threads,
                                  HybridBounds<T, M, Map>::min_blocks)
    hybrid_kernel(Problem p, Operands<T> ops, HybridShape sh) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  constexpr bool chunk_fastest = Map == Mapping::chunk_fastest;
  constexpr bool chunk_major = Map != Mapping::system_fastest;  // a system's threads adjacent
  const int P = sh.P, S = sh.S;
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5, warps = blockDim.x >> 5;
  const HybridSmem<T> lay = HybridSmem<T>::make(sh, M, Map, Ph);
  T* stage = reinterpret_cast<T*>(smem_raw) + warp * lay.stage_stride;
  T* red = reinterpret_cast<T*>(smem_raw) + warps * lay.stage_stride;   // 4 arrays
  T* exchange_space = red + 4 * lay.reduced_size;                       // clustered
  int* info_smem = reinterpret_cast<int*>(exchange_space + lay.exchange);  // [S]: last bad row
  // Clustered: the records after the end values. The exchange opens at once (the space is the
  // block's own); the view is made again where it is used rather than kept in registers.
  const auto cluster_exchange = [&] {
    return ClusterExchange<T>::make(exchange_space, exchange_space + cluster_exchange_size<T>(S), S,
                                    sh.C);
  };
  if constexpr (Ph == Phase::clustered) cluster_exchange_open(cluster_exchange());

  const int l = chunk_major ? t / P : t % S;   // system within the block
  const int jl = chunk_major ? t % P : t / S;  // chunk within the block
  const std::int64_t s = std::int64_t(blockIdx.x) * S + l;
  const int j = blockIdx.y * P + jl;  // chunk within the system
  const bool valid = s < p.count;
  const std::int64_t n = p.n;
  std::int64_t off[operand_count];
  system_offsets(p, valid ? s : 0, off);
  // chunk_shifted: chunk j holds rows from j q - shift (the system's rows counted from the vector
  // boundary before its row 0), every chunk but the first starting on a vector.
  constexpr bool shifted = Map == Mapping::chunk_shifted;
  const int r0 = shifted ? j * sh.q - vector_shift(ops.d + off[op_d]) : chunk_start(sh, n, j);
  const int L = shifted ? shifted_chunk_rows(r0, static_cast<int>(n), sh.q)
                        : chunk_start(sh, n, j + 1) - r0;
  const std::int64_t ra = p.map[op_a].row_stride, rb = p.map[op_b].row_stride,
                     rc = p.map[op_c].row_stride, rd = p.map[op_d].row_stride,
                     rx = p.map[op_x].row_stride;

  if (Checked && t < S) info_smem[t] = 0;

  // ---- Load the chunk: a[k], b[k], c[k], d[k] = rows r0 + k, k < L (a of row 0 and c of row
  // n-1 as 0: never read).
  RegisterRows<T, M> rows;
  // Group that reads together (chunk_fastest): gw lanes, rows [R0, R1) of system l.
  const int gw = P < 32 ? P : 32;
  const int gi = lane % gw;                // index in the group
  const int gbase = (lane / gw) * gw * M;  // group's first staging slot
  const int R0 = chunk_fastest ? chunk_start(sh, n, j - gi) : 0;
  const int R1 = chunk_fastest ? chunk_start(sh, n, j - gi + gw) : 0;
  if constexpr (chunk_fastest) {
    // Every row of the group's run straight into its staging slot (run_stage.cuh), then each
    // thread takes its chunk.
    const StageArrays<T> st(stage, lay.stage_stride / 4);
    stage_run_async<T, M>(st, ops.a + off[op_a], ops.b + off[op_b], ops.c + off[op_c],
                          ops.d + off[op_d], ra, rb, rc, rd, R0, R1, static_cast<int>(n), gi, gw,
                          gbase, valid, false, false);
    __syncwarp();
    take_chunk<T, M>(st, gbase + (r0 - R0), L, valid, r0 == 0, r0 + L == n, rows);
    __syncwarp();
  } else if constexpr (Map == Mapping::chunk_direct) {
    // Every chunk starts on a 16-byte boundary and has a multiple of V rows (the host checked);
    // a coefficient that is one value along the row (row stride 0) is read once.
    // a[0] and c[n-1] are never read: their vectors element by element without them.
    load_chunk_direct<T, M>(ops.a + off[op_a], ra == 0 ? 0 : r0, ra == 0, valid, L, rows.a,
                            r0 == 0);
    load_chunk_direct<T, M>(ops.b + off[op_b], rb == 0 ? 0 : r0, rb == 0, valid, L, rows.b);
    load_chunk_direct<T, M>(ops.c + off[op_c], rc == 0 ? 0 : r0, rc == 0, valid, L, rows.c,
                            false, r0 + L == n);
    load_chunk_direct<T, M>(ops.d + off[op_d], r0, false, valid, L, rows.d);
    if (r0 == 0) rows.a[0] = T(0);
#pragma unroll
    for (int k = 0; k < M; ++k) rows.c[k] = r0 + k == n - 1 ? T(0) : rows.c[k];
  } else if constexpr (shifted) {
    load_rows_shifted<T, M>(ops, off, ra == 0, rb == 0, rc == 0, sh.shared_rows, r0,
                            static_cast<int>(n), valid, L, shifted_inside<T>(sh, off[op_d], r0, L),
                            rows);
  } else if (ra == 0 && rb == 0 && rc == 0) {
    // Coefficients constant along the system (an ADI step, a uniform grid): one load each.
    const T a0 = valid ? ops.a[off[op_a]] : T(0), b0 = valid ? ops.b[off[op_b]] : T(1),
            c0 = valid ? ops.c[off[op_c]] : T(0);
#pragma unroll
    for (int k = 0; k < M; ++k) {
      const std::int64_t row = r0 + k;
      rows.a[k] = row > 0 ? a0 : T(0);
      rows.b[k] = b0;
      rows.c[k] = row + 1 < n ? c0 : T(0);
      if (valid && k < L) rows.d[k] = load_row(ops.d + off[op_d] + row * rd);
    }
  } else if (sh.unified) {
    load_unit_rows<T, M>(ops.a + off[op_a], r0, ra, valid ? L : 0, n, rows);
  } else {
    // Row addresses by byte pointers stepped one row at a time: a 64-bit product per row and
    // operand, (r0 + k) times the row stride, made about 13 instructions of each load (Nsight
    // Compute, double clusters at n = 1024: 423 for a chunk's 32 loads).
    RowPointer<T> pa(ops.a + off[op_a], r0, ra), pb(ops.b + off[op_b], r0, rb),
        pc(ops.c + off[op_c], r0, rc), pd(ops.d + off[op_d], r0, rd);
#pragma unroll
    for (int k = 0; k < M; ++k) {
      if (valid && k < L) rows.a[k] = k > 0 || r0 > 0 ? load_row(pa.row()) : T(0);
      pa.next();
    }
#pragma unroll
    for (int k = 0; k < M; ++k) {
      if (valid && k < L) rows.b[k] = load_row(pb.row());
      pb.next();
    }
#pragma unroll
    for (int k = 0; k < M; ++k) {
      if (valid && k < L) rows.c[k] = r0 + k + 1 < static_cast<int>(n) ? load_row(pc.row()) : T(0);
      pc.next();
    }
#pragma unroll
    for (int k = 0; k < M; ++k) {
      if (valid && k < L) rows.d[k] = load_row(pd.row());
      pd.next();
    }
  }
  const int Lc = valid ? L : 0;  // systems past the count: empty chunks

  Row<T> first, last;
  chunk_reduce<T>(rows, Lc, first, last);
  // chunk_shifted reads c of row n - 1 with its vector; it reaches only last.sup.
  if constexpr (shifted) drop_system_ends(first, last, false, r0 + Lc == n);

  // ---- The reduced system.
  T x_first = 0, x_last = 0;
  if constexpr (Ph == Phase::fused || Ph == Phase::clustered) {
    if (!reduced_in_shared(Map, Ph, P)) {
      pair_solve(first, last, P, x_first, x_last);
    } else {
      constexpr Exchange exchange = Ph == Phase::clustered ? Exchange::push : Exchange::none;
      chunk_ends_in_shared<T, exchange>(
          first, last, l, jl, red, lay.reduced_size, lay.sys_stride, P, S,
          Ph == Phase::clustered ? cluster_exchange() : ClusterExchange<T>{}, x_first, x_last);
    }
  } else if (chunk_major && sh.tiled) {
    // Long path in tiles of a warp's 32 chunks (whole warps of one system: P is a multiple of
    // 32). The tile's 64 chunk-end equations, with its two outer ones replaced by "first unknown
    // = Y_f" and "last unknown = Y_l", are solved in the warp for three right-hand sides (its
    // own, Y_f = 1, Y_l = 1): every chunk end is then v0 + v1 Y_f + v2 Y_l. Substituted into the
    // two outer equations, that gives the tile's pair, in the form a chunk's pair has (the
    // clusters' first level does the same with a block's chunks, reduced_solve.cuh). finish_only
    // redoes the chunk reduction and solves the same tile system with the right-hand side
    // Y_f, d, Y_l, the tile's end values from the reduced solve: the fused kernel's path with
    // known ends. Every lane takes part in the shuffles; systems past the count have identity
    // rows and write nothing.
    T* ws = static_cast<T*>(sh.red);
    const std::int64_t plane = p.count * sh.reduced_rows;
    const int tile = j / long_path_tile_chunks;
    const std::int64_t e = s * sh.red_sys_stride + 2 * std::int64_t(tile) * sh.red_row_stride;
    if constexpr (Ph == Phase::reduce_only) {
      tile_reduce_store(first, last, lane, valid, ws, plane, e, sh.red_row_stride);
      if (Checked && valid && j == 0) ops.info[s] = -thomas_forward_info(p, ops, off);
      return;
    } else {
      tile_finish(first, last, lane, valid, ws, plane, e, sh.red_row_stride, x_first, x_last);
    }
  } else if (!chunk_major && sh.tiled) {
    // Long path in tiles along axes >= 1 (neighbouring systems adjacent: thread t holds chunk
    // t / S of system t % S, so a warp holds 32 / S chunks of each of S systems, and one
    // system's 32 consecutive chunks lie across S warps). Every thread puts its pair in shared
    // memory, as the fused kernel does; then warp w takes tile w of the block (system
    // w / (P / 32), chunks 32 (w % (P / 32)) .. + 31), one chunk per lane, and reduces or
    // finishes it exactly as along axis 0 (long_tile.cuh). P is a multiple of 32, so the block's
    // S P / 32 tiles are one per warp. The reduced systems shrink by the same factor as along
    // axis 0 (2 rows per 32 chunks), which also shrinks the workspace and the recursion.
    T* ws = static_cast<T*>(sh.red);
    const std::int64_t plane = p.count * sh.reduced_rows;
    T* ra = red;
    T* rb = red + lay.reduced_size;
    T* rc = red + 2 * lay.reduced_size;
    T* rd = red + 3 * lay.reduced_size;
    const int own = l * lay.sys_stride + 2 * jl;
    ra[padded<T>(own)] = first.sub;
    rb[padded<T>(own)] = first.diag;
    rc[padded<T>(own)] = first.sup;
    rd[padded<T>(own)] = first.rhs;
    ra[padded<T>(own + 1)] = last.sub;
    rb[padded<T>(own + 1)] = last.diag;
    rc[padded<T>(own + 1)] = last.sup;
    rd[padded<T>(own + 1)] = last.rhs;
    __syncthreads();
    const int tiles_per_system = P / long_path_tile_chunks;
    for (int w = warp; w < S * tiles_per_system; w += warps) {  // once per warp (see above)
      const WarpTile wt = warp_tile(w, P);
      const int tl = wt.system;
      const int at = tl * lay.sys_stride + 2 * (wt.first_chunk + lane);
      const int e0 = padded<T>(at), e1 = padded<T>(at + 1);
      const Row<T> tf{ra[e0], rb[e0], rc[e0], rd[e0]};
      const Row<T> tg{ra[e1], rb[e1], rc[e1], rd[e1]};
      const std::int64_t ts = std::int64_t(blockIdx.x) * S + tl;  // the tile's system
      const bool tvalid = ts < p.count;
      const int tile = blockIdx.y * tiles_per_system + wt.first_chunk / long_path_tile_chunks;
      const std::int64_t e = ts * sh.red_sys_stride + 2 * std::int64_t(tile) * sh.red_row_stride;
      if constexpr (Ph == Phase::reduce_only) {
        tile_reduce_store(tf, tg, lane, tvalid, ws, plane, e, sh.red_row_stride);
      } else {
        T xf, xl;
        tile_finish(tf, tg, lane, tvalid, ws, plane, e, sh.red_row_stride, xf, xl);
        rd[e0] = xf;  // only this warp reads or writes its tile's slots
        rd[e1] = xl;
      }
    }
    if constexpr (Ph == Phase::reduce_only) {
      if (Checked && valid && j == 0) ops.info[s] = -thomas_forward_info(p, ops, off);
      return;
    } else {
      __syncthreads();
      x_first = rd[padded<T>(own)];
      x_last = rd[padded<T>(own + 1)];
    }
  } else {
    // Long path, a pair per chunk: the reduced systems live in the workspace.
    T* ws = static_cast<T*>(sh.red);
    const std::int64_t plane = p.count * sh.reduced_rows;
    const std::int64_t e = s * sh.red_sys_stride + 2 * std::int64_t(j) * sh.red_row_stride;
    if constexpr (Ph == Phase::reduce_only) {
      if (valid) {
        ws[e] = first.sub;
        ws[plane + e] = first.diag;
        ws[2 * plane + e] = first.sup;
        ws[3 * plane + e] = first.rhs;
        ws[e + sh.red_row_stride] = last.sub;
        ws[plane + e + sh.red_row_stride] = last.diag;
        ws[2 * plane + e + sh.red_row_stride] = last.sup;
        ws[3 * plane + e + sh.red_row_stride] = last.rhs;
        if (Checked && j == 0) ops.info[s] = -thomas_forward_info(p, ops, off);
      }
      return;
    } else {
      if (valid) {
        x_first = ws[3 * plane + e];
        x_last = ws[3 * plane + e + sh.red_row_stride];
      }
    }
  }

  // ---- Checked mode, fused: the Thomas forward check before anything is written.
  int forward_info = 0;
  if constexpr (Checked && Ph == Phase::fused) {
    if (valid && jl == 0) forward_info = thomas_forward_info(p, ops, off);
    __syncthreads();
  }

  chunk_back<T>(rows, Lc, x_first, x_last);

  // ---- Store x (or add it to x).
  int bad = 0;  // checked: 1 + last row whose stored value is not finite
  if constexpr (chunk_fastest) {
#pragma unroll
    for (int k = 0; k < M; ++k) {
      if (k < L) stage[padded<T>(gbase + (r0 - R0) + k)] = rows.d[k];
    }
    __syncwarp();
    if (sh.vector_stage && rx == 1) {
      bad = store_run<T, M, Accumulate, Checked>(ops.x + off[op_x], R0, R1, gi, gw, gbase, stage,
                                                 valid);
    } else {
      T old[M];
      if constexpr (Accumulate) {
#pragma unroll
        for (int i = 0; i < M; ++i) {
          const int row = R0 + gi + gw * i;
          old[i] = valid && row < R1 ? ops.x[off[op_x] + row * rx] : T(0);
        }
      }
#pragma unroll
      for (int i = 0; i < M; ++i) {
        const int row = R0 + gi + gw * i;
        if (valid && row < R1) {
          T v = stage[padded<T>(gbase + gi + gw * i)];
          if constexpr (Accumulate) v += old[i];
          ops.x[off[op_x] + row * rx] = v;
          if (Checked && !isfinite(v)) bad = row + 1;
        }
      }
    }
  } else if constexpr (Map == Mapping::chunk_direct) {
    constexpr int V = 16 / sizeof(T);
    using Vec = VecOf<T>;
    T old[M];
    if constexpr (Accumulate) {
#pragma unroll
      for (int v = 0; v < M / V; ++v) {
        if (valid && v * V < L) {
          unpack(*reinterpret_cast<const Vec*>(ops.x + off[op_x] + r0 + v * V), old + v * V);
        }
      }
    }
#pragma unroll
    for (int v = 0; v < M / V; ++v) {
      if (valid && v * V < L) {
        T out[V];
#pragma unroll
        for (int e = 0; e < V; ++e) {
          out[e] = Accumulate ? old[v * V + e] + rows.d[v * V + e] : rows.d[v * V + e];
          if (Checked && !isfinite(out[e])) bad = r0 + v * V + e + 1;
        }
        *reinterpret_cast<Vec*>(ops.x + off[op_x] + r0 + v * V) = pack<T>(out);
      }
    }
  } else if constexpr (shifted) {
    bad = store_chunk_shifted<T, M, Accumulate, Checked>(ops.x + off[op_x], r0,
                                                         static_cast<int>(n), valid, L, rows.d);
  } else {
    bad = store_chunk_strided<T, M, Accumulate, Checked>(ops.x + off[op_x], rx, r0, valid ? L : 0,
                                                         rows.d);
  }

  if constexpr (Checked) {
    if (bad != 0) atomicMax(&info_smem[l], bad);
    __syncthreads();
    if (valid && jl == 0) {
      if constexpr (Ph == Phase::fused) {
        ops.info[s] = forward_info != 0 ? forward_info : info_smem[l];
      } else {
        // Long path: info[s] holds -forward (<= 0) from reduce_only; blocks of one system
        // combine their last bad rows with atomicMax while no forward breakdown was found.
        const int b = info_smem[l];
        if (b != 0 && *static_cast<volatile int*>(ops.info + s) >= 0) atomicMax(ops.info + s, b);
      }
    }
  }
}

}  // namespace triax::detail::cuda
