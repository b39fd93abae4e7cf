#pragma once
// The Thomas-PCR hybrid along axes >= 1 as a persistent, software-pipelined kernel
// (Mapping::system_pipelined; host side hybrid.cu).
//
// Why: in the register kernel (hybrid_kernel.cuh) a block loads its S x n rows, reduces, solves
// and stores, one phase after the other, and an SM overlaps them only across its resident blocks.
// At n >= 256 those are one or two blocks, whose arithmetic leaves DRAM idle. Here each block
// loops over groups of S systems, and while it solves one group from registers the next group's
// rows stream into shared memory (cp.async, 16-byte pieces), so the block's loads stay in flight
// through its arithmetic.
//
// Per group: wait for the staged rows; every thread copies its chunk (rows r0 .. r0 + L - 1 of
// system l, as in the register kernel) into registers; the next group's copies are issued into
// the same space; the chunk is reduced, the reduced systems solved in shared memory
// (chunk_ends_in_shared, in its own space), the chunk finished and x stored. Two ways to stage:
// - block-wide (WarpStaged = false): the block's threads share the copies of the whole group,
//   row r of system l at r S + l; a block barrier before the reads and another before the next
//   copies;
// - per warp (WarpStaged = true): each warp copies the rows of its own G = 32 / S chunks (row k
//   of them fills one line of 32 elements, as in the staged kernel) and waits only for those, so
//   a warp streams its next rows in as soon as it has read its own, with no block barrier
//   between; reads are free of bank conflicts for any S.
// Clustered (per-warp staging): the C blocks of a thread-block cluster share each group,
// each staging and solving its own P chunks, and push their equations to each other
// (cluster_exchange.cuh) with no cluster barrier in the loop.
// hybrid.cu says which runs where (measured: docs/algorithms.md, "Pipelined blocks").
//
// The host takes this kernel only where a group's S systems are adjacent in every operand (unit
// stride along the first batch dimension, which S divides) and every row run of a group starts
// on a 16-byte boundary (pipelined_layout_ok in hybrid.cu), so that a row of a group is S x
// sizeof(T) / 16 aligned pieces. Not in checked mode (hybrid_run takes the register kernel).
#include <cuda_pipeline_primitives.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/scalar/block/cluster_exchange.cuh"
#include "cuda/scalar/block/global_loads.cuh"
#include "cuda/scalar/block/hybrid_kernel.cuh"

namespace triax::detail::cuda {

/// Rows per chunk thread (M) of the instances built: 16 in float, 8 in double.
template <class T>
constexpr int pipelined_rows = sizeof(T) == 4 ? 16 : 8;

/// Shared memory of the pipelined kernel, in elements of T: the staging space, E elements per
/// operand (block-wide: n S, row r of system l at r S + l; per warp: P M S, the warp's row k at
/// (warp M + k) 32, system l of its chunk jj at + jj S + l), then the four arrays of the reduced
/// systems.
template <class T>
struct PipelinedSmem {
  int E;             // staged elements per operand
  int sys_stride;    // reduced rows of one system: 2P + 1
  int reduced_size;  // per reduced array: padded S * sys_stride
  int exchange_at;   // clustered (C > 1): the exchange space, 16-byte aligned
  int exchange;      // its elements: the first mbarrier and the ends, the second mbarrier, and
                     // two sets of records, so that group i + 1's may arrive while group i's
                     // are still read (cluster_exchange.cuh)
  __host__ __device__ static PipelinedSmem make(bool warp_staged, int n, int M, int P, int S,
                                                int C = 1) {
    PipelinedSmem m{};
    m.E = warp_staged ? P * M * S : n * S;
    m.sys_stride = 2 * P + 1;
    m.reduced_size = padded_size<T>(S * m.sys_stride);
    m.exchange_at = cluster_round_up<T>(4 * m.E + 4 * m.reduced_size);
    m.exchange =
        C > 1 ? cluster_exchange_size<T>(S) + cluster_align<T>() + 2 * cluster_records_size<T>(S, C)
              : 0;
    return m;
  }
  __host__ __device__ std::size_t bytes() const {
    return (std::size_t(exchange_at) + std::size_t(exchange)) * sizeof(T);
  }
};

/// Block-wide staging: issues the copies of group g's rows (all four operands) into the staging
/// buffer, one cp.async group per thread. a of row 0 and c of row n - 1 are never read (LAPACK's
/// dl - 1 and du put them outside the caller's allocations): zeros are staged in their place.
template <class T>
__device__ __forceinline__ void stage_group(const Problem& p, const Operands<T>& ops,
                                            std::int64_t g, int S, int n, T* stage) {
  constexpr int V = 16 / static_cast<int>(sizeof(T));
  const int pieces_per_row = S / V;  // a power of two
  const int shift = __ffs(pieces_per_row) - 1;
  const int per_operand = n * pieces_per_row;
  std::int64_t off[operand_count];
  system_offsets(p, g * S, off);
  const T* src[4] = {ops.a + off[op_a], ops.b + off[op_b], ops.c + off[op_c], ops.d + off[op_d]};
#pragma unroll
  for (int op = 0; op < 4; ++op) {
    const std::int64_t rs = p.map[op].row_stride;
    T* dst = stage + op * n * S;
#pragma unroll 1
    for (int i = threadIdx.x; i < per_operand; i += blockDim.x) {
      const int row = i >> shift;
      const int piece = (i & (pieces_per_row - 1)) * V;
      if ((op == op_a && row == 0) || (op == op_c && row == n - 1)) {
#pragma unroll
        for (int v = 0; v < V; ++v) dst[row * S + piece + v] = T(0);
      } else {
        copy_16_async(dst + row * S + piece, src[op] + row * rs + piece);
      }
    }
  }
  __pipeline_commit();
}

/// Per-warp staging: issues the copies of the calling warp's rows of group g (all four operands;
/// a of row 0 and c of row n - 1 are never read, nor copied) into its staging space, as one
/// cp.async group. Lane i copies pieces i, i + 32, ... of each operand, which are the same piece
/// of the same chunk in rows V apart (a row of the warp's chunks is 32 / V pieces): the chunk, the
/// piece and the first row are found once, and each copy costs an offset addition. Finding them
/// per piece took about 50 instructions a copy, a third of the float kernel's at n = 512
/// (Nsight Compute, docs/algorithms.md, "Address arithmetic").
template <class T, int M, int S, bool Variable = false>
__device__ __forceinline__ void stage_warp_rows(const Problem& p, const Operands<T>& ops,
                                                const HybridShape& sh, std::int64_t g, int n, int E,
                                                int first_chunk, T* stage,
                                                const std::int64_t* lengths = nullptr) {
  constexpr int V = 16 / static_cast<int>(sizeof(T));
  constexpr int G = 32 / S;
  static_assert(M % V == 0, "a lane's pieces are whole rows V apart");
  // Through an empty asm, as the kernel's chunk place: what follows depends only on the thread,
  // and hoisted out of the loop over groups it stayed live across the solve (and spilled).
  int t = static_cast<int>(threadIdx.x);
  asm volatile("" : "+r"(t));
  const int lane = t & 31, warp = t >> 5;
  const WarpPiece w = warp_piece<T>(lane, S);
  const int jc = first_chunk + warp * G + w.jj;
  const int rc0 = chunk_start(sh, n, jc);
  const int len = chunk_start(sh, n, jc + 1) - rc0;
  const int row0 = rc0 + w.k;
  std::int64_t off[operand_count];
  system_offsets(p, g * S, off);
  // Variable (a padded batch of lengths[s] <= n rows each, varbatch/var_pipelined.cu): a piece
  // holds V neighbouring systems' values of one row; it is copied while the row is inside the
  // longest of them, so the sector a row of the group occupies is still read whole, and rows
  // past all V lengths are not read at all. Values past a system's own length are replaced in
  // registers (pipelined_body), never used.
  int piece_rows = n;
  if constexpr (Variable) {
    piece_rows = 0;
#pragma unroll
    for (int v = 0; v < V; ++v) {
      const std::int64_t len = lengths[g * S + w.piece + v];
      piece_rows = max(piece_rows, static_cast<int>(min(max(len, std::int64_t(0)), std::int64_t(n))));
    }
  }
  // The copies' shared addresses from one 32-bit base (the operand's and the row's parts are
  // constants), and their global ones by a byte pointer stepped V rows at a time: computed per
  // copy, under each copy's predicate, they took about eight instructions a copy.
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(stage)) +
                       static_cast<unsigned>(w.at(warp, M, S) * sizeof(T));
#pragma unroll
  for (int op = 0; op < 4; ++op) {
    const T* base = op == op_a ? ops.a : op == op_b ? ops.b : op == op_c ? ops.c : ops.d;
    const std::int64_t rs = p.map[op].row_stride;
    const char* src = reinterpret_cast<const char*>(base + off[op] + row0 * rs + w.piece);
    const std::int64_t step = V * rs * static_cast<std::int64_t>(sizeof(T));
    const unsigned dst_op = dst + static_cast<unsigned>(op * E * sizeof(T));
#pragma unroll
    for (int it = 0; it < M / V; ++it) {
      const int row = row0 + it * V;
      const bool never_read = (op == op_a && row == 0) || (op == op_c && row + 1 == n);
      if (w.k + it * V < len && !never_read && (!Variable || row < piece_rows))
        copy_16_async_to(dst_op + it * V * 32 * sizeof(T), src);
      src += step;
    }
  }
  __pipeline_commit();
}

/// S (sh.S) is a compile-time constant here: the rows of a chunk then sit at immediate offsets
/// from one shared address, where a run-time S made the loop keep 4M addresses live and spill.
/// Variable: system s of the batch solves only its first lengths[s] rows (clamped to 0 .. p.n;
/// per-warp staging, one block per group): rows past its length enter the arithmetic as the
/// identity (a = c = 0, b = 1, d = 0) and c of its last row as 0, which decouples them exactly as
/// a padded fixed batch whose padding holds the identity (the CP form), and x is stored for its
/// own rows only. The fixed kernel (Variable false) compiles as before.
template <class T, int M, int S, bool Accumulate, bool WarpStaged, bool Clustered, bool Variable>
__device__ __forceinline__ void pipelined_body(const Problem& p, const Operands<T>& ops,
                                               const HybridShape& sh,
                                               const std::int64_t* __restrict__ lengths) {
  static_assert(!WarpStaged || (S <= 32 && 32 % S == 0), "a warp's threads hold whole chunks");
  static_assert(!Clustered || WarpStaged, "a clustered block stages its own chunks' rows");
  static_assert(!Variable || (WarpStaged && !Clustered), "variable lengths: per warp, one block");
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int P = sh.P;
  const int n = static_cast<int>(p.n);
  const PipelinedSmem<T> lay = PipelinedSmem<T>::make(WarpStaged, n, M, P, S, sh.C);
  T* stage = reinterpret_cast<T*>(smem_raw);
  T* red = stage + 4 * lay.E;

  const int t = threadIdx.x;
  const int l = t % S, j = t / S;  // system within the group, chunk within the block
  // Clustered: the C blocks of a cluster (rank blockIdx.y) share each group, rank r holding
  // chunks rP .. rP + P - 1, and hand each other their equations by push (no cluster barrier,
  // whose release fence would wait for the next group's copies in flight: docs/algorithms.md).
  const int first_chunk = Clustered ? static_cast<int>(blockIdx.y) * P : 0;
  const int r0_all = chunk_start(sh, n, first_chunk + j);
  const int L_all = chunk_start(sh, n, first_chunk + j + 1) - r0_all;
  ClusterExchange<T> exchange[2] = {};
  if constexpr (Clustered) {
    T* space = stage + lay.exchange_at;
    T* second_barrier = space + cluster_exchange_size<T>(S);
    T* records = second_barrier + cluster_align<T>();
    exchange[0] = ClusterExchange<T>::make(space, records, S, sh.C);
    exchange[1] = exchange[0];
    exchange[1].barrier = reinterpret_cast<std::uint64_t*>(second_barrier);
    exchange[1].records = records + cluster_records_size<T>(S, sh.C);
    cluster_exchange_open(exchange[0], exchange[1].barrier);
    cluster_exchange_ready();
  }
  const std::int64_t groups = p.count / S;
  const std::int64_t rx = p.map[op_x].row_stride;
  // Row k of the chunk: block-wide at sa[(r0 + k) S], per warp at sa[32 k].
  constexpr int G = WarpStaged ? 32 / S : 1;
  const T* sa = stage + (WarpStaged ? ((j / G) * M) * 32 + (j % G) * S + l : l);
  const T* sb = sa + lay.E;
  const T* sc = sb + lay.E;
  const T* sd = sc + lay.E;
  const auto stage_next = [&](std::int64_t next) {
    if constexpr (WarpStaged) {
      stage_warp_rows<T, M, S, Variable>(p, ops, sh, next, n, lay.E, first_chunk, stage, lengths);
    } else {
      stage_group(p, ops, next, S, n, stage);
    }
  };

  std::int64_t g = blockIdx.x;
  if (g < groups) stage_next(g);
  for (unsigned i = 0; g < groups; g += gridDim.x, ++i) {
    // The chunk's place through an empty asm at every group: otherwise the compiler hoists what
    // depends only on it (the M row offsets of the loads and stores) out of the loop and keeps
    // it live across the solve, which spilled.
    int r0 = r0_all, L = L_all;
    asm volatile("" : "+r"(r0), "+r"(L));
    // Variable: this thread's system's rows (read before the wait, so its latency hides there).
    int ns = n;
    if constexpr (Variable) {
      ns = static_cast<int>(min(max(lengths[g * S + l], std::int64_t(0)), std::int64_t(n)));
    }
    __pipeline_wait_prior(0);
    if constexpr (WarpStaged) {
      __syncwarp();  // the warp's copies of group g, made by any of its lanes, have landed
    } else {
      __syncthreads();  // every thread's copies of group g have landed
    }
    // Every row of the chunk's space is read, whatever L: rows past the chunk hold what the
    // space held before (chunk_reduce and chunk_back leave them unused, and they are never
    // stored), and a of row 0 and c of row n - 1 were not copied (drop_system_ends below). A
    // branch around each row's reads cost about ten instructions per row.
    RegisterRows<T, M> rows;
#pragma unroll
    for (int k = 0; k < M; ++k) {
      // Block-wide, rows past n would leave the operand's space: the last row stands in.
      const int e = WarpStaged ? 32 * k : min(r0 + k, n - 1) * S;
      rows.a[k] = sa[e];
      rows.b[k] = sb[e];
      rows.c[k] = sc[e];
      rows.d[k] = sd[e];
      if constexpr (Variable) {
        // Selects, not arithmetic: the staged values past the length may be anything (stale
        // space, or a neighbour's padding read with its piece), NaN included.
        const int row = r0 + k;
        const bool past = row >= ns;
        rows.a[k] = past ? T(0) : rows.a[k];
        rows.b[k] = past ? T(1) : rows.b[k];
        rows.c[k] = past || row + 1 == ns ? T(0) : rows.c[k];
        rows.d[k] = past ? T(0) : rows.d[k];
      }
    }
    // The space is free once read (the warp's, or every thread's): stream the next rows in
    // behind the arithmetic. Per warp that is at once; block-wide after the reduction, behind a
    // block barrier.
    const bool more = g + gridDim.x < groups;
    if constexpr (WarpStaged) {
      __syncwarp();
      if (more) stage_next(g + gridDim.x);
    }
    // A chunk of M rows (every chunk, where the chunks divide n, as at powers of two) runs its
    // sweeps and stores with the length a constant: no test per row.
    const bool whole = L == M;
    Row<T> first, last;
    if (whole) {
      chunk_reduce<T>(rows, M, first, last);
    } else {
      chunk_reduce<T>(rows, L, first, last);
    }
    drop_system_ends(first, last, r0 == 0, r0 + L == n);
    if constexpr (!WarpStaged) {
      __syncthreads();
      if (more) stage_next(g + gridDim.x);
    }
    T x_first, x_last;
    // Chosen by a select, not an index: exchange[i & 1] put both sets in local memory.
    ClusterExchange<T> ex = (i & 1) != 0 ? exchange[1] : exchange[0];
    ex.parity = (i >> 1) & 1;  // group i uses set i % 2, whose barrier completed i / 2 phases
    ex.wait_ready = false;
    chunk_ends_in_shared<T, Clustered ? Exchange::push : Exchange::none>(
        first, last, l, j, red, lay.reduced_size, lay.sys_stride, P, S, ex, x_first, x_last);
    std::int64_t off[operand_count];
    system_offsets(p, g * S + l, off);
    // Variable: x of the system's own rows only (none of an empty system's).
    const int stored = Variable ? max(0, min(L, ns - r0)) : L;
    if (whole) {
      chunk_back<T>(rows, M, x_first, x_last);
      store_chunk_strided<T, M, Accumulate, false>(ops.x + off[op_x], rx, r0,
                                                   Variable ? stored : M, rows.d);
    } else {
      chunk_back<T>(rows, L, x_first, x_last);
      store_chunk_strided<T, M, Accumulate, false>(ops.x + off[op_x], rx, r0, stored, rows.d);
    }
  }
}

template <class T, int M, int S, bool Accumulate, bool WarpStaged, bool Clustered>
__global__ void __launch_bounds__(hybrid_max_threads)
    pipelined_kernel(Problem p, Operands<T> ops, HybridShape sh) {
  pipelined_body<T, M, S, Accumulate, WarpStaged, Clustered, false>(p, ops, sh, nullptr);
}

}  // namespace triax::detail::cuda
