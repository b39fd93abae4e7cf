#pragma once
// Block Thomas (paper 000, Algorithm 12) on block_lanes consecutive systems at once. Every value
// of a block row is held lane-innermost in the scratch ([entry][lane]), so each step of the
// block arithmetic is a loop over lanes the compiler vectorises; operands are gathered from
// (and the solution scattered to) any strided layout once per block row. M is a compile-time
// constant (MC = 1..8: the entry loops unroll and their indices are static) or, with MC = 0,
// taken at run time from the problem.
//
// Each pivot block P = B[i] - A[i] C*[i-1] is reduced by Gaussian elimination without pivoting,
// applied at the same time to the right-hand sides [C[i] | d[i] - A[i] d*[i-1]], then back
// substitution gives C*[i] and d*[i] (no explicit inverse). Pivoting would need a different
// row exchange in every lane; block diagonally dominant systems never need it.
//
// Included by block_kernels.inc inside the namespace of one instruction set.

#include <cmath>
#include <cstdint>

#include "cpu/block_tridiag/block_batch.hpp"

#ifndef TRIAX_CPU_ISA
#error "included through cpu/block_tridiag/block_kernels.inc, which names the instruction set"
#endif

namespace triax::detail::cpu::TRIAX_CPU_ISA {

// A lane is broken when a pivot is zero or not finite, or d* is not finite.
template <class T>
inline bool finite_nonzero(T v) {
  return std::isfinite(v) && v != T(0);
}

// The one operation of the block arithmetic, on whole lane vectors: dst -= x * y for `count`
// consecutive entries of dst and y (a run of a block row) against one entry x.
template <class T>
inline void sub_product(T* dst, const T* x, const T* y, int count = 1) {
  for (int e = 0; e < count; ++e) {
    T* de = dst + e * block_lanes;
    const T* ye = y + e * block_lanes;
#pragma omp simd
    for (int w = 0; w < block_lanes; ++w) de[w] -= x[w] * ye[w];
  }
}

// dst *= f for `count` consecutive entries.
template <class T>
inline void scale(T* dst, const T* f, int count) {
  for (int e = 0; e < count; ++e) {
#pragma omp simd
    for (int w = 0; w < block_lanes; ++w) dst[e * block_lanes + w] *= f[w];
  }
}

template <int MC, class T>
void block_thomas_lanes(const BlockProblem& p, const Operands<T>& ops, std::int64_t s0, int lanes,
                        T* work) {
  constexpr int W = block_lanes;
  const int m = MC > 0 ? MC : p.m;
  const std::int64_t mm = static_cast<std::int64_t>(m) * m;
  const std::int64_t n = p.grid.n;

  // Each lane's element offset of row 0, per operand; missing lanes repeat the last system
  // (so the arithmetic stays finite) and are never stored.
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

  T* const cs_all = work;                 // n x mm x W: C*
  T* const ds_all = cs_all + n * mm * W;  // n x m x W: d*, then u
  T* const ab = ds_all + n * m * W;       // mm x W: A[i]
  T* const pb = ab + mm * W;              // mm x W: the pivot block
  T* const inv = pb + mm * W;             // m x W: pivot reciprocals
  int breakdown[W];
  for (int w = 0; w < W; ++w) breakdown[w] = 0;
  const bool checked = ops.info != nullptr;

  // Gathers block row i of a block operand (or a vector operand: cols = 1) into dst.
  auto gather = [&](int op, const T* src, std::int64_t i, int rows, int cols, T* dst) {
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < cols; ++c) {
        const std::int64_t o = i * rs[op] + r * er[op] + c * ec[op];
        T* out = dst + (r * cols + c) * W;
        for (int w = 0; w < W; ++w) out[w] = src[base[op][w] + o];
      }
    }
  };

  // Rows ahead: where an operand's block (or vector) is one contiguous run, each lane's run of
  // row i + prefetch_distance is requested at row i. Along the per-system contiguous layout the
  // 8 lanes x 4 operands are 32 separate streams per thread, more than the hardware prefetcher
  // follows (docs/algorithms.md, "Block tridiagonal systems").
  constexpr std::int64_t prefetch_distance = 2;
  std::int64_t run_bytes[operand_count] = {};
  for (int op = op_a; op <= op_d; ++op) {
    const std::int64_t entries = op <= op_c ? mm : m;
    const std::int64_t span = (m - 1) * er[op] + (op <= op_c ? (m - 1) * ec[op] : 0) + 1;
    run_bytes[op] = span == entries ? entries * static_cast<std::int64_t>(sizeof(T)) : 0;
  }
  const T* const srcs[operand_count] = {ops.a, ops.b, ops.c, ops.d, nullptr};
  auto prefetch_row = [&](std::int64_t row) {
    for (int op = op_a; op <= op_d; ++op) {
      if (run_bytes[op] == 0) continue;
      for (int w = 0; w < W; ++w) {
        const char* run = reinterpret_cast<const char*>(srcs[op] + base[op][w] + row * rs[op]);
        for (std::int64_t b = 0; b < run_bytes[op]; b += 64) __builtin_prefetch(run + b);
        __builtin_prefetch(run + run_bytes[op] - 1);
      }
    }
  };

  for (std::int64_t i = 0; i < n; ++i) {
    if (i + prefetch_distance < n) prefetch_row(i + prefetch_distance);
    T* const cs = cs_all + i * mm * W;
    T* const ds = ds_all + i * m * W;
    gather(op_b, ops.b, i, m, m, pb);
    if (i + 1 < n) {
      gather(op_c, ops.c, i, m, m, cs);  // right-hand sides, solved in place into C*[i]
    } else {
      for (std::int64_t e = 0; e < mm * W; ++e) cs[e] = T(0);
    }
    gather(op_d, ops.d, i, m, 1, ds);
    if (i > 0) {
      // P = B[i] - A[i] C*[i-1];  rhs d = d[i] - A[i] d*[i-1].
      gather(op_a, ops.a, i, m, m, ab);
      const T* cp = cs - mm * W;
      const T* dp = ds - m * W;
      for (int r = 0; r < m; ++r) {
        for (int q = 0; q < m; ++q) {
          const T* arq = ab + (r * m + q) * W;
          sub_product(pb + r * m * W, arq, cp + q * m * W, m);
          sub_product(ds + r * W, arq, dp + q * W);
        }
      }
    }
    // Forward elimination of P, applied to the m + 1 right-hand sides.
    for (int k = 0; k < m; ++k) {
      const T* pkk = pb + (k * m + k) * W;
      T* ik = inv + k * W;
      if (checked) {
        for (int w = 0; w < W; ++w) {
          if (breakdown[w] == 0 && !finite_nonzero(pkk[w])) breakdown[w] = static_cast<int>(i + 1);
        }
      }
#pragma omp simd
      for (int w = 0; w < W; ++w) ik[w] = T(1) / pkk[w];
      for (int r = k + 1; r < m; ++r) {
        T l[W];
        const T* prk = pb + (r * m + k) * W;
#pragma omp simd
        for (int w = 0; w < W; ++w) l[w] = prk[w] * ik[w];
        sub_product(pb + (r * m + k + 1) * W, l, pb + (k * m + k + 1) * W, m - k - 1);
        sub_product(cs + r * m * W, l, cs + k * m * W, m);
        sub_product(ds + r * W, l, ds + k * W);
      }
    }
    // Back substitution: C*[i] and d*[i] in place.
    for (int k = m - 1; k >= 0; --k) {
      const T* ik = inv + k * W;
      for (int q = k + 1; q < m; ++q) {
        const T* pkq = pb + (k * m + q) * W;
        sub_product(cs + k * m * W, pkq, cs + q * m * W, m);
        sub_product(ds + k * W, pkq, ds + q * W);
      }
      scale(cs + k * m * W, ik, m);
      scale(ds + k * W, ik, 1);
    }
    if (checked) {
      for (int r = 0; r < m; ++r) {
        for (int w = 0; w < W; ++w) {
          if (breakdown[w] == 0 && !std::isfinite(ds[r * W + w]))
            breakdown[w] = static_cast<int>(i + 1);
        }
      }
    }
  }

  // Backward pass, u[i] = d*[i] - C*[i] u[i+1], each row stored as soon as it is known. The
  // last non-finite row (the first met going backward) is reported if the forward pass was
  // clean, as the scalar solvers do.
  int bad[W];
  for (int w = 0; w < W; ++w) bad[w] = 0;
  for (std::int64_t i = n - 1; i >= 0; --i) {
    T* const ds = ds_all + i * m * W;
    if (i + 1 < n) {
      const T* cs = cs_all + i * mm * W;
      const T* un = ds + m * W;
      for (int r = 0; r < m; ++r) {
        for (int q = 0; q < m; ++q) sub_product(ds + r * W, cs + (r * m + q) * W, un + q * W);
      }
    }
    for (int r = 0; r < m; ++r) {
      const std::int64_t o = i * rs[op_x] + r * er[op_x];
      for (int w = 0; w < lanes; ++w) {
        T& out = ops.x[base[op_x][w] + o];
        out = ops.accumulate ? out + ds[r * W + w] : ds[r * W + w];
        if (checked && bad[w] == 0 && !std::isfinite(out)) bad[w] = static_cast<int>(i + 1);
      }
    }
  }
  if (checked) {
    for (int w = 0; w < lanes; ++w) ops.info[s0 + w] = breakdown[w] != 0 ? breakdown[w] : bad[w];
  }
}

}  // namespace triax::detail::cpu::TRIAX_CPU_ISA
