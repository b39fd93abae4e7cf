// The pattern bounds of gpu_pattern_bound.hpp. The hybrid's bound mirrors hybrid_run's choices
// (hybrid.cu) for the arrangements along axis 0: the chunks are cut by hybrid.cu's own helpers
// (chunk_split.cuh), long_split's few lines are repeated here, and anything this file does not
// mirror returns no bound rather than a bound of another pattern. Off the aligned
// path the kernel copies its runs element by element (run_stage.cuh) and stores x in 16-byte
// vectors where P >= 4 (vector_stage_on); the bound stores element by element: the same bytes
// in the same order.
//
// Every loaded value reaches a stored one (x = a + b + c + d, row by row), so no load can be
// dropped; the long path's first pass stores the tile's 8 values a tile writes and keeps the
// rest of its sums alive with a store that never happens (an exact compare with a value no input
// here produces: a NaN test would be folded away under fast math).
#include "gpu_pattern_bound.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>

#include "core/cyclic_variants.hpp"
#include "cuda/cyclic/block_cyclic.cuh"
#include "cuda/scalar/block/chunk_split.cuh"
#include "cuda/scalar/block/hybrid.hpp"
#include "cuda/scalar/block/hybrid_kernel.cuh"
#include "cuda/scalar/block/long_tile.hpp"

namespace triax::bench {
namespace {

using detail::op_a;
using detail::op_b;
using detail::op_c;
using detail::op_d;
using detail::op_x;
using detail::operand_count;
using detail::Operands;
using detail::Problem;
using detail::cuda::HybridConfig;
using detail::cuda::HybridShape;
using detail::cuda::Mapping;

/// A value no input of the bench produces (its sums are of values near 1).
template <class T>
constexpr T never = T(-1234567.0);

/// The hybrid's chunk loads and x stores without the elimination. Mapping::chunk_direct: each
/// thread's own chunk in 16-byte vectors; chunk_shifted: the same from the vector boundary before
/// each system's row 0, the ends element by element (hybrid_kernel.cuh's own loads and stores);
/// chunk_fastest: the group's run element by element. WriteX: x = a + b + c + d; else the long
/// path's first pass, 8 values per tile of 32 chunks to `pairs`.
template <class T, int M, Mapping Map, bool WriteX>
__global__ void __launch_bounds__(detail::cuda::chunk_block_most_threads)
    chunk_bound_kernel(Problem p, Operands<T> ops, HybridShape sh, T* pairs) {
  using namespace detail::cuda;
  constexpr int V = 16 / static_cast<int>(sizeof(T));
  const int P = sh.P, S = sh.S;
  const int t = threadIdx.x, lane = t & 31;
  const int l = t / P, jl = t % P;
  const std::int64_t s = std::int64_t(blockIdx.x) * S + l;
  const int j = blockIdx.y * P + jl;
  const bool valid = s < p.count;
  const std::int64_t n = p.n;
  std::int64_t off[operand_count];
  system_offsets(p, valid ? s : 0, off);
  constexpr bool Direct = Map == Mapping::chunk_direct;
  constexpr bool Shifted = Map == Mapping::chunk_shifted;
  const int r0 = Shifted ? j * sh.q - vector_shift(ops.d + off[op_d]) : chunk_start(sh, n, j);
  const int L = Shifted ? shifted_chunk_rows(r0, static_cast<int>(n), sh.q)
                        : chunk_start(sh, n, j + 1) - r0;
  T sum[M];
  // Direct and shifted: element k is row r0 + k; else row R0 + gi + gw k of the group's run
  // [R0, R1).
  const int gw = P < 32 ? P : 32, gi = lane % gw;
  const int R0 = chunk_start(sh, n, j - gi), R1 = chunk_start(sh, n, j - gi + gw);
  if constexpr (Direct) {
    T a[M], b[M], c[M], d[M];
    load_chunk_direct<T, M>(ops.a + off[op_a], r0, false, valid, L, a);
    load_chunk_direct<T, M>(ops.b + off[op_b], r0, false, valid, L, b);
    load_chunk_direct<T, M>(ops.c + off[op_c], r0, false, valid, L, c);
    load_chunk_direct<T, M>(ops.d + off[op_d], r0, false, valid, L, d);
#pragma unroll
    for (int k = 0; k < M; ++k) sum[k] = valid && k < L ? a[k] + b[k] + c[k] + d[k] : T(0);
  } else if constexpr (Shifted) {
    RegisterRows<T, M> r;
    load_rows_shifted<T, M>(ops, off, false, false, false, sh.shared_rows, r0,
                            static_cast<int>(n), valid, L, shifted_inside<T>(sh, off[op_d], r0, L),
                            r);
#pragma unroll
    for (int k = 0; k < M; ++k) sum[k] = valid && k < L ? r.a[k] + r.b[k] + r.c[k] + r.d[k] : T(0);
  } else {
    const std::int64_t ra = p.map[op_a].row_stride, rb = p.map[op_b].row_stride,
                       rc = p.map[op_c].row_stride, rd = p.map[op_d].row_stride;
#pragma unroll
    for (int i = 0; i < M; ++i) {
      const int row = R0 + gi + gw * i;
      const bool in = valid && row < R1;
      sum[i] = in ? ops.a[off[op_a] + row * ra] + ops.b[off[op_b] + row * rb] +
                        ops.c[off[op_c] + row * rc] + ops.d[off[op_d] + row * rd]
                  : T(0);
    }
  }
  if constexpr (WriteX) {
    if constexpr (Direct) {
#pragma unroll
      for (int v = 0; v < M / V; ++v) {
        if (valid && v * V < L)
          *reinterpret_cast<VecOf<T>*>(ops.x + off[op_x] + r0 + v * V) = pack<T>(sum + v * V);
      }
    } else if constexpr (Shifted) {
      store_chunk_shifted<T, M, false, false>(ops.x + off[op_x], r0, static_cast<int>(n), valid, L,
                                              sum);
    } else {
      const std::int64_t rx = p.map[op_x].row_stride;
#pragma unroll
      for (int i = 0; i < M; ++i) {
        const int row = R0 + gi + gw * i;
        if (valid && row < R1) ops.x[off[op_x] + row * rx] = sum[i];
      }
    }
  } else {
    T total = 0;
#pragma unroll
    for (int k = 0; k < M; ++k) total += sum[k];
    // P is a multiple of 32 on the long path: a warp is one tile of one system.
    const std::int64_t tile = (s * gridDim.y + blockIdx.y) * (P / 32) + jl / 32;
    if (valid && (lane < 8 || total == never<T>)) pairs[tile * 8 + (lane & 7)] = total;
  }
}

template <class T, Mapping Map, bool WriteX>
void launch_chunks(int M, const Problem& p, const Operands<T>& ops, const HybridShape& sh,
                   int tiles, T* pairs, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((p.count + sh.S - 1) / sh.S), static_cast<unsigned>(tiles));
  const unsigned threads = static_cast<unsigned>(sh.S * sh.P);
  if constexpr (sizeof(T) == 4) {  // 12- and 16-row chunks in float only (hybrid.cu's launch_m)
    if (M == 16) {
      chunk_bound_kernel<T, 16, Map, WriteX><<<grid, threads, 0, stream>>>(p, ops, sh, pairs);
      TRIAX_CUDA_CHECK_LAUNCH();
      return;
    }
    if (M == 12) {
      chunk_bound_kernel<T, 12, Map, WriteX><<<grid, threads, 0, stream>>>(p, ops, sh, pairs);
      TRIAX_CUDA_CHECK_LAUNCH();
      return;
    }
  }
  chunk_bound_kernel<T, 8, Map, WriteX><<<grid, threads, 0, stream>>>(p, ops, sh, pairs);
  TRIAX_CUDA_CHECK_LAUNCH();
}

/// Every operand's rows contiguous: the bound's direct loads read no row stride 0 (the solve
/// reads such a coefficient once).
bool rows_contiguous(const Problem& p) {
  for (int op = 0; op < operand_count; ++op) {
    if (p.map[op].row_stride != 1) return false;
  }
  return true;
}

template <class T>
BoundLaunch hybrid_bound_of(GpuContext& ctx, const Problem& p, const Operands<T>& ops,
                            const HybridConfig& cfg) {
  const bool chunk_major = cfg.map == Mapping::chunk_direct || cfg.map == Mapping::chunk_fastest;
  if (!chunk_major || cfg.C != 1 || p.count < 1 || p.n < 1) return {};
  const cudaStream_t stream = ctx.stream();
  if (p.n <= std::int64_t(cfg.M) * cfg.P) {  // fused: one launch
    HybridShape sh = detail::cuda::split_rows(p.n, cfg.P, cfg.P, cfg.S);
    const Mapping map = cfg.map == Mapping::chunk_direct && rows_contiguous(p)
                            ? detail::cuda::direct_shape(p, ops, cfg.M, sh)
                            : Mapping::chunk_fastest;
    const int M = cfg.M;
    if (map == Mapping::chunk_direct) {
      return [=] {
        launch_chunks<T, Mapping::chunk_direct, true>(M, p, ops, sh, 1, nullptr, stream);
      };
    }
    if (map == Mapping::chunk_shifted) {
      return [=] {
        launch_chunks<T, Mapping::chunk_shifted, true>(M, p, ops, sh, 1, nullptr, stream);
      };
    }
    return [=] {
      launch_chunks<T, Mapping::chunk_fastest, true>(M, p, ops, sh, 1, nullptr, stream);
    };
  }
  // The long path (hybrid.cu's long_split, tiled): chunks of cfg.M rows, K a multiple of P,
  // the reduced batch 2 rows per tile of 32 chunks, each system's rows contiguous.
  const std::int64_t wanted = (p.n + cfg.M - 1) / cfg.M;
  const HybridShape sh =
      detail::cuda::split_rows(p.n, std::min<std::int64_t>(wanted, 1 << 30), cfg.P, cfg.S);
  const std::int64_t chunks = (sh.active + cfg.P - 1) / cfg.P * std::int64_t(cfg.P);
  if (cfg.P % detail::cuda::long_path_tile_chunks != 0) return {};
  const int tiles = static_cast<int>(chunks / cfg.P);
  const std::int64_t rows = detail::cuda::long_path_reduced_rows(chunks, true);
  const std::int64_t plane = p.count * rows;
  T* planes = static_cast<T*>(ctx.allocate(4 * sizeof(T) * std::size_t(plane)));
  Problem r{};
  r.n = rows;
  r.count = p.count;
  r.batch_rank = 1;
  r.batch_extents[0] = p.count;
  for (int op = 0; op < operand_count; ++op) {
    r.map[op].offset = 0;
    r.map[op].row_stride = 1;
    r.map[op].batch_strides[0] = rows;
  }
  const Operands<T> rops{
      planes, planes + plane, planes + 2 * plane, planes + 3 * plane, planes + 3 * plane,
      false,  nullptr};
  HybridConfig rc{};
  if (!detail::cuda::hybrid_choose<T>(r, detail::cuda::HybridFamily::block, rc)) return {};
  const BoundLaunch reduced = hybrid_bound_of<T>(ctx, r, rops, rc);
  if (!reduced) return {};
  const int M = cfg.M;
  return [=] {
    launch_chunks<T, Mapping::chunk_fastest, false>(M, p, ops, sh, tiles, planes, stream);
    reduced();
    launch_chunks<T, Mapping::chunk_fastest, true>(M, p, ops, sh, tiles, nullptr, stream);
  };
}

/// block_cyclic_kernel's loads and stores (block_cyclic.cuh), the steps left out.
template <class T>
__global__ void __launch_bounds__(detail::cuda::cyclic::max_block_threads)
    cyclic_stage_kernel(Problem p, Operands<T> ops, int rows_length) {
  using namespace detail::cuda::cyclic;
  extern __shared__ __align__(16) unsigned char stage_bytes[];
  const int n = static_cast<int>(p.n);
  const RowArrays<T> rows = RowArrays<T>::at(reinterpret_cast<T*>(stage_bytes), rows_length);
  const std::int64_t ra = p.map[op_a].row_stride, rb = p.map[op_b].row_stride,
                     rc = p.map[op_c].row_stride, rd = p.map[op_d].row_stride,
                     rx = p.map[op_x].row_stride;
  for (std::int64_t system = blockIdx.x; system < p.count; system += gridDim.x) {
    const T* a = ops.a + p.system_offset(op_a, system);
    const T* b = ops.b + p.system_offset(op_b, system);
    const T* c = ops.c + p.system_offset(op_c, system);
    const T* d = ops.d + p.system_offset(op_d, system);
    T* x = ops.x + p.system_offset(op_x, system);
    // The kernel's loads (load_rows.cuh), every row in flight.
    load_rows_async(rows, a, b, c, d, ra, rb, rc, rd, n);
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
      const Equation<T> e = rows.get(i);
      x[i * rx] = e.a + e.b + e.c + e.d;
    }
    __syncthreads();
  }
}

}  // namespace

template <class T>
BoundLaunch hybrid_pattern_bound(GpuContext& ctx, const Problem& p, Algorithm pick,
                                 const Operands<T>& ops) {
  using detail::cuda::HybridFamily;
  if (pick != Algorithm::cuda_block_thomas_pcr && pick != Algorithm::cuda_warp_thomas_pcr)
    return {};
  HybridConfig cfg{};
  const HybridFamily family =
      pick == Algorithm::cuda_block_thomas_pcr ? HybridFamily::block : HybridFamily::warp;
  if (!detail::cuda::hybrid_choose<T>(p, family, cfg)) return {};
  return hybrid_bound_of<T>(ctx, p, ops, cfg);
}

template <class T>
BoundLaunch cyclic_stage_bound(GpuContext& ctx, const Problem& p, const Operands<T>& ops) {
  namespace cy = detail::cuda::cyclic;
  if (p.n < 1 || p.n > cy::max_rows<T> || p.count < 1) return {};
  const int n = static_cast<int>(p.n);
  const int rows_length = cy::padded_length<T>(n);
  const std::size_t smem = 4 * sizeof(T) * std::size_t(rows_length);
  auto kernel = cyclic_stage_kernel<T>;
  if (smem > 48 * 1024) {
    TRIAX_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(smem)));
  }
  const unsigned grid = static_cast<unsigned>(std::min<std::int64_t>(p.count, INT_MAX));
  const unsigned threads = static_cast<unsigned>(cy::block_threads(p.n));
  const cudaStream_t stream = ctx.stream();
  return [=] {
    kernel<<<grid, threads, smem, stream>>>(p, ops, rows_length);
    TRIAX_CUDA_CHECK_LAUNCH();
  };
}

#define TRIAX_BENCH_INSTANTIATE(T)                                                     \
  template BoundLaunch hybrid_pattern_bound<T>(GpuContext&, const Problem&, Algorithm, \
                                               const Operands<T>&);                    \
  template BoundLaunch cyclic_stage_bound<T>(GpuContext&, const Problem&, const Operands<T>&);
TRIAX_BENCH_INSTANTIATE(float)
TRIAX_BENCH_INSTANTIATE(double)
#undef TRIAX_BENCH_INSTANTIATE

}  // namespace triax::bench
