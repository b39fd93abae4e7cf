// The shared-matrix route (shared_matrix_route.hpp): the build kernel (the matrix staged by every
// thread, the table built by one warp where the matrix changed) and the launch of the chunk table
// kernels with the build's verdict.
#include "cuda/factored/shared_matrix_route.hpp"

#include "core/factored/chunk_table_lanes.hpp"
#include "core/factored/route.hpp"
#include "cuda/factored/chunk_table_launch.hpp"
#include "cuda/launch/launch_kernel.hpp"

namespace triax::detail::cuda {
namespace {

constexpr std::size_t route_alignment = 256;

std::size_t aligned(std::size_t bytes) {
  return (bytes + route_alignment - 1) / route_alignment * route_alignment;
}

/// Where the route's pieces lie in its workspace: the table, Thomas' three factor rows, the copy
/// of the matrix the table was last built from (a, b, c: n values each), the flags (the build's
/// verdict, then whether the copy holds a build). Rows per chunk: chunk_rows_for(n), the fewest
/// that hold n. (32 rows a chunk ran float n = 511 along y, 16 chunk threads a system and 32
/// systems a block of the strided kernel instead of 32 and 16, at the same speed, and double
/// n = 104, 4 chunk threads instead of 13, at 0.78x: H200, 2026-11-29.)
template <class T>
struct RouteSpace {
  ChunkView<T> view;  // pointers unset
  std::size_t fallback = 0, kept = 0, flags = 0, bytes = 0;
  explicit RouteSpace(std::int64_t n) : view(chunk_lanes_layout<T>(static_cast<int>(n))) {
    fallback = aligned(std::size_t(chunk_lanes_values(view)) * sizeof(T));
    kept = fallback + aligned(3 * std::size_t(n) * sizeof(T));
    flags = kept + aligned(3 * std::size_t(n) * sizeof(T));
    bytes = flags + route_alignment;
  }
};

/// Threads of the build kernel: all of them stage the matrix (a few rows each, every load in
/// flight at once), one warp builds. (The one-warp build, staging 32 rows a step, took 20.6 us of
/// a 106 us float solve at n = 511 and 11.0 us at n = 64; H200, 2026-11-29.)
constexpr int build_threads = 256;

__device__ __forceinline__ bool same_bits(float u, float v) {
  return __float_as_uint(u) == __float_as_uint(v);
}
__device__ __forceinline__ bool same_bits(double u, double v) {
  return __double_as_longlong(u) == __double_as_longlong(v);
}

/// Stages the matrix's rows in shared memory with every thread, and leaves at once where they
/// equal, bit for bit, the copy the table in the workspace was last built from (the table, the
/// verdict and the fallback's factors of that build stand: a plan's solves with one unchanged
/// matrix, an ADI scheme's or a compact scheme's, build once). Otherwise warp 0, lane j the
/// table's chunk j, runs the four phases of chunk_table_lanes.hpp with the warp synchronised where
/// a lane reads what another wrote, then the verdict (every lane ok and its interior rows
/// dominant) into flags[0]; a refused matrix also gets Thomas' factors, from lane 0. The other
/// warps keep the copy. flags[1] (zeroed with the plan's workspace) says the copy holds a build.
template <class T>
__global__ void __launch_bounds__(build_threads)
    chunk_table_build_kernel(ChunkView<T> v, MatrixRows<T> global, T* values, int* flags, T* l,
                             T* rinv, T* e, T* kept) {
  __shared__ ChunkLanesShared sh;
  __shared__ T staged[3][chunk_table_max_n];
  const int t = static_cast<int>(threadIdx.x);
  const bool built = flags[1] != 0;
  bool same = true;
  for (int i = t; i < v.n; i += build_threads) {
    // a[0] and c[n-1] are never read (the caller's arrays need not hold them): zeros instead,
    // which no phase reads either.
    const T a = i >= 1 ? global.a[i * global.stride_a] : T(0);
    const T b = global.b[i * global.stride_b];
    const T c = i + 1 < v.n ? global.c[i * global.stride_c] : T(0);
    staged[0][i] = a;
    staged[1][i] = b;
    staged[2][i] = c;
    same = same && same_bits(a, kept[i]) && same_bits(b, kept[v.n + i]) &&
           same_bits(c, kept[2 * v.n + i]);
  }
  if (__syncthreads_and(built && same)) return;
  if (t >= 32) {
    for (int i = t - 32; i < 3 * v.n; i += build_threads - 32) kept[i] = staged[i / v.n][i % v.n];
    return;
  }
  const int j = t;
  const MatrixRows<T> mat{staged[0], staged[1], staged[2], 1, 1, 1};
  chunk_lanes_factor(v, mat, j, values, sh);
  __syncwarp();
  chunk_lanes_reduce(v, mat, j, values, sh);
  __syncwarp();
  for (int level = 0; level < chunk_max_levels; ++level) {
    chunk_lanes_level(v, level, j, values, sh);
    __syncwarp();
  }
  chunk_lanes_finish(v, j, values, sh);
  __syncwarp();
  const bool good = __all_sync(0xffffffffu, sh.ok[j] != 0 && chunk_lanes_dominant(v, mat, j));
  if (j == 0) {
    flags[0] = good ? 1 : 0;
    if (!good) chunk_lanes_thomas_factors(mat, v.n, l, rinv, e);
    flags[1] = 1;
  }
}

/// Operand op's row 0 (every system's), or null under a rehearsal's null operands.
template <class T>
const T* matrix_row0(const T* base, const Problem& p, int op) {
  return base == nullptr ? nullptr : base + p.map[op].offset;
}

}  // namespace

bool shared_matrix_possible(const Problem& p) {
  return p.n >= 1 && p.n <= table_max_rows && p.one_matrix();
}

template <class T>
bool shared_matrix_takes(const Problem& p) {
  SharedMatrixFacts f;
  f.n = p.n;
  f.count = p.count;
  f.shared = shared_matrix_possible(p);
  f.single = sizeof(T) == sizeof(float);
  f.contiguous = p.map[op_d].row_stride == 1 && p.map[op_x].row_stride == 1;
  return shared_matrix_route(f, shared_matrix_switch_from_env());
}

template <class T>
std::size_t shared_matrix_workspace(const Problem& p) {
  return shared_matrix_possible(p) ? RouteSpace<T>(p.n).bytes : 0;
}

template <class T>
void shared_matrix_solve(const Problem& p, const Operands<T>& ops, void* workspace,
                         cudaStream_t stream) {
  if (p.count <= 0 || p.n <= 0) return;
  const RouteSpace<T> space(p.n);
  char* base = static_cast<char*>(workspace);
  T* values = reinterpret_cast<T*>(base);
  T* l = reinterpret_cast<T*>(base + space.fallback);
  T* rinv = l + p.n;
  T* e = rinv + p.n;
  T* kept = reinterpret_cast<T*>(base + space.kept);
  int* flags = reinterpret_cast<int*>(base + space.flags);
  const MatrixRows<T> mat{matrix_row0(ops.a, p, op_a), matrix_row0(ops.b, p, op_b),
                          matrix_row0(ops.c, p, op_c), p.map[op_a].row_stride,
                          p.map[op_b].row_stride, p.map[op_c].row_stride};
  launch_kernel(chunk_table_build_kernel<T>, dim3(1), dim3(build_threads), 0, stream, space.view,
                mat, values, flags, l, rinv, e, kept);
  ChunkView<T> v = space.view;
  v.rows = values;
  v.reduced = values + std::int64_t(chunk_fields) * v.M * v.tables;
  launch_chunk_table<T>(p, v, ops.d, ops.x, ops.accumulate, stream,
                        ChunkFallback<T>{flags, l, rinv, e});
}

template bool shared_matrix_takes<float>(const Problem&);
template bool shared_matrix_takes<double>(const Problem&);
template std::size_t shared_matrix_workspace<float>(const Problem&);
template std::size_t shared_matrix_workspace<double>(const Problem&);
template void shared_matrix_solve(const Problem&, const Operands<float>&, void*, cudaStream_t);
template void shared_matrix_solve(const Problem&, const Operands<double>&, void*, cudaStream_t);

}  // namespace triax::detail::cuda
