#pragma once
// The reduced systems of the Thomas-PCR hybrid where they go through shared memory: solved by
// the block's warps, or shared by the C blocks of a thread-block cluster (Hopper) that split each
// system's chunks between them. Both hybrid kernels (hybrid_kernel.cuh, staged_kernel.cuh) reach
// them through chunk_ends_in_shared.
//
// Reduced rows of a block's S systems: system l's row r (2j: chunk j's first equation, 2j + 1:
// its last) at padded index l * sys_stride + r of four arrays (sub, diag, sup, rhs).
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "cuda/scalar/block/cluster_exchange.cuh"
#include "cuda/scalar/warp/hybrid_math.cuh"

namespace triax::detail::cuda {

/// One warp per system over its 2K reduced rows in shared memory (2K / 32 rows per lane: the
/// hybrid once more); x replaces the right-hand sides.
template <class T>
__device__ __forceinline__ void solve_reduced_by_warps(T* ra, T* rb, T* rc, T* rd, int sys_stride,
                                                       int rows, int S, int warp, int warps,
                                                       int lane) {
  const int R = rows / 32;
  for (int sys = warp; sys < S; sys += warps) {
    SharedRows<T> rr{ra, rb, rc, rd, sys * sys_stride + lane * R};
    Row<T> f, g;
    chunk_reduce<T>(rr, R, f, g);
    T xf, xl;
    pair_solve(f, g, 32, xf, xl);
    chunk_back<T>(rr, R, xf, xl);
  }
}

/// The reduced systems of a block's S systems (2P rows each, system l's row r at padded index
/// l * sys_stride + r of the four arrays), solved by the block's warps: P lanes per system when
/// P <= 32 (pair_solve), else one warp per system. x replaces the right-hand sides. The caller
/// synchronises the block before and after.
template <class T>
__device__ __forceinline__ void solve_reduced_in_block(T* ra, T* rb, T* rc, T* rd, int sys_stride,
                                                       int P, int S, int warp, int warps,
                                                       int lane) {
  if (P > 32) {
    solve_reduced_by_warps(ra, rb, rc, rd, sys_stride, 2 * P, S, warp, warps, lane);
    return;
  }
  const int per_warp = 32 / P;  // S is a multiple of it (S * P is a multiple of 32)
  for (int base = warp * per_warp; base < S; base += warps * per_warp) {
    const int sys = base + lane / P;
    const int e0 = padded<T>(sys * sys_stride + 2 * (lane % P));
    const int e1 = padded<T>(sys * sys_stride + 2 * (lane % P) + 1);
    const Row<T> f{ra[e0], rb[e0], rc[e0], rd[e0]};
    const Row<T> g{ra[e1], rb[e1], rc[e1], rd[e1]};
    T xf, xl;
    pair_solve(f, g, P, xf, xl);
    rd[e0] = xf;
    rd[e1] = xl;
  }
}

/// The reduced systems when the C blocks of a cluster (rank r holding chunks rP .. rP + P - 1 of
/// each of the same S systems; P <= 32, S * P threads) share each system. Two levels, so that no
/// block waits on another's solve:
///  1. Each block solves its own 2P rows with the two outer equations replaced by "first
///     unknown = Y_f" and "last unknown = Y_l" (the block's end unknowns), for three right-hand
///     sides at once: its own, Y_f = 1, Y_l = 1. Every chunk end is then v0 + v1 Y_f + v2 Y_l.
///  2. Substituting that into the two outer equations gives the block's pair of equations in the
///     form a chunk's pair has (hybrid_math.cuh), coupling Y_f, Y_l to the neighbouring blocks.
///     Exchange::push: each block sends its pairs to every block of the cluster (st.async,
///     counted on the receiver's mbarrier; the caller opened the exchange). Exchange::pull: each
///     block keeps its pairs, and after a cluster barrier every block reads the others' (the
///     caller runs cluster_exchange_leave<pull> before it exits). cluster_exchange.cuh says why
///     both exist.
///  3. Every block solves the C pairs of each system (pair_solve over G lanes, G the power of two
///     at or above C: a cluster of another size pads with identity pairs, which nothing couples
///     to, since the system's last row has no super-diagonal), keeping its own Y_f, Y_l.
/// x replaces the right-hand sides. The caller synchronises the block before and after.
template <class T, Exchange E>
__device__ __forceinline__ void solve_reduced_in_cluster(T* ra, T* rb, T* rc, T* rd, int sys_stride,
                                                         int P, int S, const ClusterExchange<T>& ex,
                                                         int warp, int lane) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // the host launches clusters only on devices that have them
#else
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  const int C = static_cast<int>(cluster.num_blocks());
  const int rank = static_cast<int>(cluster.block_rank());
  // 1. Thread (system sys, chunk jl): lanes of one system side by side, as pair_solve wants.
  const int sys = warp * (32 / P) + lane / P;
  const int jl = lane % P;
  const int e0 = padded<T>(sys * sys_stride + 2 * jl);
  const int e1 = padded<T>(sys * sys_stride + 2 * jl + 1);
  const Row<T> f{ra[e0], rb[e0], rc[e0], rd[e0]};
  const Row<T> g{ra[e1], rb[e1], rc[e1], rd[e1]};
  const bool head = jl == 0, tail = jl == P - 1;
  const T f_rhs[3] = {head ? T(0) : f.rhs, head ? T(1) : T(0), T(0)};
  const T g_rhs[3] = {tail ? T(0) : g.rhs, T(0), tail ? T(1) : T(0)};
  T vf[3], vl[3];  // this chunk's first and last unknowns: v[0] + v[1] Y_f + v[2] Y_l
  pair_solve_multi<T, 3>(head ? identity_row<T>() : f, f_rhs, tail ? identity_row<T>() : g,
                         g_rhs, P, vf, vl);
  // 2. The first chunk's first equation with its last unknown substituted, and the last chunk's
  // last equation with its first unknown substituted: pushed into slot (sys, rank) of every
  // block, or kept in the block's own slot (sys, 0).
  constexpr bool push = E == Exchange::push;
  if constexpr (push) {
    if (ex.wait_ready) cluster_exchange_ready();
  }
  T* const slot = ex.records + ex.record(sys, push ? rank : 0);
  const auto put = [&](T* at, const Row<T>& b) {
    if constexpr (push) {
      const T* const barrier = reinterpret_cast<const T*>(ex.barrier);
      for (int c = 0; c < C; ++c) send4(at, c, barrier, b.sub, b.diag, b.sup, b.rhs);
    } else {
      at[0] = b.sub;
      at[1] = b.diag;
      at[2] = b.sup;
      at[3] = b.rhs;
    }
  };
  if (head) put(slot, {f.sub, f.diag + f.sup * vl[1], f.sup * vl[2], f.rhs - f.sup * vl[0]});
  if (tail) put(slot + 4, {g.sub * vf[1], g.diag + g.sub * vf[2], g.sup, g.rhs - g.sub * vf[0]});
  // 3. G lanes per system (whole warps: pair_solve shuffles across all 32 lanes). Pushed: only
  // the warps that read records wait for them; the others wait at the block barrier below.
  int G = 1;
  while (G < C) G *= 2;
  if constexpr (push) {
    if (warp * 32 < S * G) cluster_exchange_receive(ex);
  } else {
    cluster.sync();  // every block's pairs written and visible
  }
  for (int g0 = warp * 32; g0 < S * G; g0 += static_cast<int>(blockDim.x)) {
    const int q = (g0 + lane) / G, c = (g0 + lane) % G;
    Row<T> bf = identity_row<T>(), bl = identity_row<T>();
    if (q < S && c < C) {
      const T* r = push ? ex.records + ex.record(q, c)
                        : cluster.map_shared_rank(ex.records + ex.record(q, 0), c);
      bf = {r[0], r[1], r[2], r[3]};
      bl = {r[4], r[5], r[6], r[7]};
    }
    T yf, yl;
    pair_solve(bf, bl, G, yf, yl);
    if (q < S && c == rank) {
      ex.ends[2 * q] = yf;
      ex.ends[2 * q + 1] = yl;
    }
  }
  if constexpr (!push) cluster.barrier_arrive();  // done with the other blocks' shared memory
  __syncthreads();
  const T yf = ex.ends[2 * sys], yl = ex.ends[2 * sys + 1];
  rd[e0] = vf[0] + vf[1] * yf + vf[2] * yl;
  rd[e1] = vl[0] + vl[1] * yf + vl[2] * yl;
#endif
}

/// Every chunk's two end values where the reduced rows go through shared memory: thread (system
/// l, chunk jl of the block) writes its two equations, the block (or, with an Exchange, the
/// cluster through `exchange`) solves them, and each thread reads its two end values back. The
/// caller makes sure no thread still reads what red overlays.
template <class T, Exchange E>
__device__ __forceinline__ void chunk_ends_in_shared(const Row<T>& first, const Row<T>& last, int l,
                                                     int jl, T* red, int reduced_size,
                                                     int sys_stride, int P, int S,
                                                     const ClusterExchange<T>& exchange, T& x_first,
                                                     T& x_last) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  T* red_a = red;
  T* red_b = red + reduced_size;
  T* red_c = red + 2 * reduced_size;
  T* red_d = red + 3 * reduced_size;
  const int e = l * sys_stride + 2 * jl;
  red_a[padded<T>(e)] = first.sub;
  red_b[padded<T>(e)] = first.diag;
  red_c[padded<T>(e)] = first.sup;
  red_d[padded<T>(e)] = first.rhs;
  red_a[padded<T>(e + 1)] = last.sub;
  red_b[padded<T>(e + 1)] = last.diag;
  red_c[padded<T>(e + 1)] = last.sup;
  red_d[padded<T>(e + 1)] = last.rhs;
  __syncthreads();
  if constexpr (E != Exchange::none) {
    solve_reduced_in_cluster<T, E>(red_a, red_b, red_c, red_d, sys_stride, P, S, exchange, warp,
                                   lane);
  } else {
    (void)exchange;
    solve_reduced_in_block(red_a, red_b, red_c, red_d, sys_stride, P, S, warp, warps, lane);
  }
  __syncthreads();
  x_first = red_d[padded<T>(e)];
  x_last = red_d[padded<T>(e + 1)];
}

}  // namespace triax::detail::cuda
