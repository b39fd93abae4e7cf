#pragma once
// Block Thomas (paper 000, Algorithm 12) on block_lanes consecutive systems with every block of
// the current row held in SIMD registers: the path for M = 1..8 where the 8 lanes fit one vector
// register (block_regs_max_m; docs/algorithms.md, "Block tridiagonal systems").
// block_thomas_lanes.hpp keeps each step's operands in a lane-innermost
// scratch, so every multiply-subtract of the block arithmetic is a load, load, load, store in L1;
// here a block entry of the 8 lanes is one vector value (GCC vector extension, lowered to SSE2,
// AVX2 or AVX-512 by the copy that includes it), M is a compile-time constant so every entry
// index is static and the arrays of vectors live in registers, and only C*[i] and d*[i] go to the
// per-thread workspace (the backward pass needs them). Same arithmetic, same order and same
// checked-mode rule as block_thomas_lanes (no pivoting; see there).
//
// Operands: where a row's entries are contiguous in each lane (array of blocks, interleaved; d
// and x with component stride 1) 16-byte pieces of the 8 lanes are loaded and transposed in
// registers (load_dense); otherwise each vector is built from the 8 lanes' values. The solution
// goes back through a small stack tile, lane by lane. Rows are prefetched a fixed number of
// bytes ahead per lane rather than a fixed number of rows (block_thomas_lanes: 2 rows), so that
// small blocks (16 bytes a row for M = 2 in float) are requested early enough to cover the
// memory latency.
//
// Included by block_kernels.inc inside the namespace of one instruction set.

#include <cmath>
#include <cstdint>
#include <cstring>

#include "cpu/block_tridiag/block_batch.hpp"

#ifndef TRIAX_CPU_ISA
#error "included through cpu/block_tridiag/block_kernels.inc, which names the instruction set"
#endif

namespace triax::detail::cpu::TRIAX_CPU_ISA {

// The largest M that takes this path in this copy (0: none). An 8-lane vector must be one
// machine register: GCC lowers a wider vector extension (8 doubles without AVX-512, any 8-lane
// vector with SSE2 only) piece by piece through memory, and the path then ran 1.3-3.5x slower
// than block_thomas_lanes on the 2-core VM (docs/notes/2026-11-27-cpublock.md). Where it is one
// register it won at every M measured (2, 4, 5, 8: 1.5-2.3x in cache), with AVX-512's 32
// registers holding M = 8 and AVX2's 16 spilling a little from M = 5 on but still ahead in float.
template <class T>
inline constexpr int block_regs_max_m =
#if defined(__AVX512F__)
    8;
#elif defined(__AVX2__)
    sizeof(T) == 4 ? 8 : 0;
#else
    0;
#endif

// A vector of block_lanes values (the attribute cannot take a dependent type: one per T).
template <class T>
struct LaneVecOf;
template <>
struct LaneVecOf<float> {
  typedef float type __attribute__((vector_size(block_lanes * sizeof(float))));
};
template <>
struct LaneVecOf<double> {
  typedef double type __attribute__((vector_size(block_lanes * sizeof(double))));
};
template <class T>
using LaneVec = typename LaneVecOf<T>::type;

// 16 bytes of one lane's consecutive entries: the unit the dense loads below read.
typedef float float4_chunk __attribute__((vector_size(16)));
typedef double double2_chunk __attribute__((vector_size(16)));

template <class C, class T>
[[gnu::always_inline]] inline C load_chunk(const T* p) {
  C v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// out[e][w] = s[w][e] for e < E: 8 lanes' runs of E consecutive entries, transposed in registers.
// 16-byte pieces of two or four lanes are joined into one vector (a load into each half) and the
// entries then separated by unpack-type shuffles: about two shuffles per vector of 8, where
// building the vector element by element takes seven. The entries past the last whole piece are
// built element by element. Never reads outside the E entries of a lane.
template <int E>
[[gnu::always_inline]] inline void load_dense(const float* const* s, LaneVec<float>* out) {
  constexpr int K = 4;
  for (int e = 0; e + K <= E; e += K) {
    LaneVec<float> y[4];
    for (int w = 0; w < 4; ++w) {
      y[w] =
          __builtin_shufflevector(load_chunk<float4_chunk>(s[w] + e),
                                  load_chunk<float4_chunk>(s[w + 4] + e), 0, 1, 2, 3, 4, 5, 6, 7);
    }
    // Within each 16-byte half: t0 = entries e, e+1 of lanes (0, 1 | 4, 5), t1 = e+2, e+3 ...
    const LaneVec<float> t0 = __builtin_shufflevector(y[0], y[1], 0, 8, 1, 9, 4, 12, 5, 13);
    const LaneVec<float> t1 = __builtin_shufflevector(y[0], y[1], 2, 10, 3, 11, 6, 14, 7, 15);
    const LaneVec<float> t2 = __builtin_shufflevector(y[2], y[3], 0, 8, 1, 9, 4, 12, 5, 13);
    const LaneVec<float> t3 = __builtin_shufflevector(y[2], y[3], 2, 10, 3, 11, 6, 14, 7, 15);
    out[e + 0] = __builtin_shufflevector(t0, t2, 0, 1, 8, 9, 4, 5, 12, 13);
    out[e + 1] = __builtin_shufflevector(t0, t2, 2, 3, 10, 11, 6, 7, 14, 15);
    out[e + 2] = __builtin_shufflevector(t1, t3, 0, 1, 8, 9, 4, 5, 12, 13);
    out[e + 3] = __builtin_shufflevector(t1, t3, 2, 3, 10, 11, 6, 7, 14, 15);
  }
  for (int e = E / K * K; e < E; ++e) {
    out[e] = LaneVec<float>{s[0][e], s[1][e], s[2][e], s[3][e], s[4][e], s[5][e], s[6][e], s[7][e]};
  }
}
template <int E>
[[gnu::always_inline]] inline void load_dense(const double* const* s, LaneVec<double>* out) {
  constexpr int K = 2;
  for (int e = 0; e + K <= E; e += K) {
    // y[w] = entries e, e+1 of lanes w, w + 2, w + 4, w + 6.
    LaneVec<double> y[2];
    for (int w = 0; w < 2; ++w) {
      const auto lo = __builtin_shufflevector(load_chunk<double2_chunk>(s[w] + e),
                                              load_chunk<double2_chunk>(s[w + 2] + e), 0, 1, 2, 3);
      const auto hi = __builtin_shufflevector(load_chunk<double2_chunk>(s[w + 4] + e),
                                              load_chunk<double2_chunk>(s[w + 6] + e), 0, 1, 2, 3);
      y[w] = __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7);
    }
    out[e + 0] = __builtin_shufflevector(y[0], y[1], 0, 8, 2, 10, 4, 12, 6, 14);
    out[e + 1] = __builtin_shufflevector(y[0], y[1], 1, 9, 3, 11, 5, 13, 7, 15);
  }
  for (int e = E / K * K; e < E; ++e) {
    out[e] =
        LaneVec<double>{s[0][e], s[1][e], s[2][e], s[3][e], s[4][e], s[5][e], s[6][e], s[7][e]};
  }
}

// Through a pointer, not a return value: a function returning a vector wider than the target's
// registers changes the ABI (GCC's -Wpsabi in the portable copy), even when always inlined.
template <class T>
[[gnu::always_inline]] inline void load_vec(const T* p, LaneVec<T>* v) {
  std::memcpy(v, p, sizeof *v);
}
template <class T>
[[gnu::always_inline]] inline void store_vec(T* p, const LaneVec<T>& v) {
  std::memcpy(p, &v, sizeof v);
}

template <int MC, class T>
void block_thomas_regs(const BlockProblem& p, const Operands<T>& ops, std::int64_t s0, int lanes,
                       T* work) {
  static_assert(MC >= 1 && MC <= 8);
  using V = LaneVec<T>;
  using Mask = decltype(V{} == V{});  // a lane is all ones where a comparison holds
  constexpr int W = block_lanes;
  constexpr int M = MC;
  constexpr int MM = M * M;
  const std::int64_t n = p.grid.n;

  std::int64_t base[operand_count][W];
  SystemWalk walk(p.grid, s0);
  for (int w = 0; w < W; ++w) {
    for (int op = 0; op < operand_count; ++op) base[op][w] = walk.offset[op];
    if (w + 1 < lanes) walk.next();
  }
  std::int64_t rs[operand_count], er[operand_count], ec[operand_count];
  for (int op = 0; op < operand_count; ++op) {
    rs[op] = p.grid.map[op].row_stride;
    er[op] = p.entry_row[op];
    ec[op] = p.entry_col[op];
  }
  T* const cs_all = work;                 // n x MM x W: C*
  T* const ds_all = cs_all + n * MM * W;  // n x M x W: d*
  const bool checked = ops.info != nullptr;
  int breakdown[W] = {};

  // Reads block row i of a block operand (cols = M) or a vector operand (cols = 1) into
  // out[entry], one vector per entry built from the 8 lanes' values. Where the entries of a row
  // are contiguous in entry order (array of blocks, interleaved; d, x with component stride 1)
  // the offsets are compile-time constants.
  static_assert(W == 8, "the vector initialisers below name 8 lanes");
  bool dense[operand_count];
  for (int op = 0; op < operand_count; ++op) {
    const int cols = op <= op_c ? M : 1;
    dense[op] = er[op] == cols && (cols == 1 || ec[op] == 1);
  }
  auto load_row = [&](int op, const T* src, std::int64_t i, int cols, V* out) {
    const std::int64_t row = i * rs[op];
    const T* s[W];
    for (int w = 0; w < W; ++w) s[w] = src + base[op][w] + row;
    // Writes through a pointer rather than returning the vector: the lambda is then no
    // function returning a wide vector in the portable copy (GCC's -Wpsabi), once inlined.
    auto lanes_at = [&](std::int64_t o, V* v) {
      *v = V{s[0][o], s[1][o], s[2][o], s[3][o], s[4][o], s[5][o], s[6][o], s[7][o]};
    };
    if (dense[op]) {
      if (cols == 1) {
        load_dense<M>(s, out);
      } else {
        load_dense<MM>(s, out);
      }
    } else {
      for (int r = 0; r < M; ++r) {
        for (int c = 0; c < cols; ++c) lanes_at(r * er[op] + c * ec[op], out + r * cols + c);
      }
    }
  };

  // Prefetch: each lane's run of an operand is requested about prefetch_bytes ahead.
  constexpr std::int64_t prefetch_bytes = 512;
  std::int64_t ahead[operand_count] = {};
  bool contiguous[operand_count] = {};
  for (int op = op_a; op <= op_d; ++op) {
    const std::int64_t entries = op <= op_c ? MM : M;
    const std::int64_t span = (M - 1) * er[op] + (op <= op_c ? (M - 1) * ec[op] : 0) + 1;
    contiguous[op] = span == entries;
    const std::int64_t row_bytes = static_cast<std::int64_t>(sizeof(T)) * rs[op];
    ahead[op] = row_bytes > 0 ? (prefetch_bytes + row_bytes - 1) / row_bytes : 0;
    if (ahead[op] < 2) ahead[op] = 2;
  }
  const T* const srcs[operand_count] = {ops.a, ops.b, ops.c, ops.d, nullptr};
  auto prefetch_rows = [&](std::int64_t i) {
    for (int op = op_a; op <= op_d; ++op) {
      const std::int64_t row = i + ahead[op];
      if (!contiguous[op] || row >= n) continue;
      const std::int64_t bytes = (op <= op_c ? MM : M) * static_cast<std::int64_t>(sizeof(T));
      for (int w = 0; w < W; ++w) {
        const char* run = reinterpret_cast<const char*>(srcs[op] + base[op][w] + row * rs[op]);
        __builtin_prefetch(run);
        if (bytes > 1) __builtin_prefetch(run + bytes - 1);
      }
    }
  };

  V cprev[MM] = {}, dprev[M] = {};
  for (std::int64_t i = 0; i < n; ++i) {
    prefetch_rows(i);
    V pb[MM], rc[MM], rd[M];
    load_row(op_b, ops.b, i, M, pb);
    if (i + 1 < n) {
      load_row(op_c, ops.c, i, M, rc);
    } else {
      for (int e = 0; e < MM; ++e) rc[e] = V{};
    }
    load_row(op_d, ops.d, i, 1, rd);
    if (i > 0) {
      V ab[MM];
      load_row(op_a, ops.a, i, M, ab);
      // P = B[i] - A[i] C*[i-1];  rhs d = d[i] - A[i] d*[i-1].
      for (int r = 0; r < M; ++r) {
        for (int q = 0; q < M; ++q) {
          for (int c = 0; c < M; ++c) pb[r * M + c] -= ab[r * M + q] * cprev[q * M + c];
          rd[r] -= ab[r * M + q] * dprev[q];
        }
      }
    }
    // Forward elimination of P, applied to the M + 1 right-hand sides.
    V inv[M];
    Mask bad{};
    for (int k = 0; k < M; ++k) {
      const V pkk = pb[k * M + k];
      if (checked) bad |= (pkk - pkk != T(0)) | (pkk == T(0));  // not finite, or zero
      inv[k] = T(1) / pkk;
      for (int r = k + 1; r < M; ++r) {
        const V l = pb[r * M + k] * inv[k];
        for (int c = k + 1; c < M; ++c) pb[r * M + c] -= l * pb[k * M + c];
        for (int c = 0; c < M; ++c) rc[r * M + c] -= l * rc[k * M + c];
        rd[r] -= l * rd[k];
      }
    }
    // Back substitution: C*[i] and d*[i].
    for (int k = M - 1; k >= 0; --k) {
      for (int q = k + 1; q < M; ++q) {
        for (int c = 0; c < M; ++c) rc[k * M + c] -= pb[k * M + q] * rc[q * M + c];
        rd[k] -= pb[k * M + q] * rd[q];
      }
      for (int c = 0; c < M; ++c) rc[k * M + c] *= inv[k];
      rd[k] *= inv[k];
    }
    T* const cs = cs_all + i * MM * W;
    T* const ds = ds_all + i * M * W;
    for (int e = 0; e < MM; ++e) {
      store_vec(cs + e * W, rc[e]);
      cprev[e] = rc[e];
    }
    for (int r = 0; r < M; ++r) {
      store_vec(ds + r * W, rd[r]);
      dprev[r] = rd[r];
    }
    if (checked) {
      for (int r = 0; r < M; ++r) bad |= rd[r] - rd[r] != T(0);
      for (int w = 0; w < W; ++w) {
        if (bad[w] != 0 && breakdown[w] == 0) breakdown[w] = static_cast<int>(i + 1);
      }
    }
  }

  // Backward pass, u[i] = d*[i] - C*[i] u[i+1], each row stored as soon as it is known; the
  // last non-finite row (the first met going backward) is reported if the forward pass was clean.
  int bad_row[W] = {};
  V un[M] = {};
  for (std::int64_t i = n - 1; i >= 0; --i) {
    const T* ds = ds_all + i * M * W;
    V u[M];
    for (int r = 0; r < M; ++r) load_vec(ds + r * W, u + r);
    if (i + 1 < n) {
      const T* cs = cs_all + i * MM * W;
      for (int r = 0; r < M; ++r) {
        for (int q = 0; q < M; ++q) {
          V c;
          load_vec(cs + (r * M + q) * W, &c);
          u[r] -= c * un[q];
        }
      }
    }
    alignas(64) T tile[M * W];
    for (int r = 0; r < M; ++r) {
      un[r] = u[r];
      store_vec(tile + r * W, u[r]);
    }
    for (int w = 0; w < lanes; ++w) {
      T* out = ops.x + base[op_x][w] + i * rs[op_x];
      for (int r = 0; r < M; ++r) {
        T& o = out[r * er[op_x]];
        o = ops.accumulate ? o + tile[r * W + w] : tile[r * W + w];
        if (checked && bad_row[w] == 0 && !std::isfinite(o)) bad_row[w] = static_cast<int>(i + 1);
      }
    }
  }
  if (checked) {
    for (int w = 0; w < lanes; ++w) {
      ops.info[s0 + w] = breakdown[w] != 0 ? breakdown[w] : bad_row[w];
    }
  }
}

}  // namespace triax::detail::cpu::TRIAX_CPU_ISA
