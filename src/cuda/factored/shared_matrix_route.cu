// The shared-matrix route (shared_matrix_route.hpp): the table's build kernel, one warp, and the
// launch of the chunk table kernels with the build's verdict.
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

/// Where the route's pieces lie in its workspace: the table, Thomas' three factor rows, the flag.
/// Rows per chunk: chunk_rows_for(n), the fewest that hold n. (32 rows a chunk ran float n = 511
/// along y, 16 chunk threads a system and 32 systems a block of the strided kernel instead of 32
/// and 16, at the same speed, and double n = 104, 4 chunk threads instead of 13, at 0.78x: H200,
/// 2026-11-29.)
template <class T>
struct RouteSpace {
  ChunkView<T> view;  // pointers unset
  std::size_t fallback = 0, flag = 0, bytes = 0;
  explicit RouteSpace(std::int64_t n) : view(chunk_lanes_layout<T>(static_cast<int>(n))) {
    fallback = aligned(std::size_t(chunk_lanes_values(view)) * sizeof(T));
    flag = fallback + aligned(3 * std::size_t(n) * sizeof(T));
    bytes = flag + route_alignment;
  }
};

/// One warp, lane j the table's chunk j: the matrix's rows staged in shared memory first (the
/// lanes' loads all in flight at once, rather than each lane's dependent steps waiting on its
/// loads from global memory one after another), then the four phases of chunk_table_lanes.hpp
/// with the warp synchronised where a lane reads what another wrote, then the verdict (every
/// lane ok and its interior rows dominant) into *ok; a refused matrix also gets Thomas' factors,
/// from lane 0.
template <class T>
__global__ void __launch_bounds__(32)
    chunk_table_build_kernel(ChunkView<T> v, MatrixRows<T> global, T* values, int* ok, T* l,
                             T* rinv, T* e) {
  __shared__ ChunkLanesShared sh;
  __shared__ T staged[3][chunk_table_max_n];
  const int j = static_cast<int>(threadIdx.x);
  for (int i = j; i < v.n; i += 32) {
    staged[0][i] = global.a[i * global.stride_a];
    staged[1][i] = global.b[i * global.stride_b];
    staged[2][i] = global.c[i * global.stride_c];
  }
  __syncwarp();
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
    *ok = good ? 1 : 0;
    if (!good) chunk_lanes_thomas_factors(mat, v.n, l, rinv, e);
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
  int* ok = reinterpret_cast<int*>(base + space.flag);
  const MatrixRows<T> mat{matrix_row0(ops.a, p, op_a), matrix_row0(ops.b, p, op_b),
                          matrix_row0(ops.c, p, op_c), p.map[op_a].row_stride,
                          p.map[op_b].row_stride, p.map[op_c].row_stride};
  launch_kernel(chunk_table_build_kernel<T>, dim3(1), dim3(32), 0, stream, space.view, mat, values,
                ok, l, rinv, e);
  ChunkView<T> v = space.view;
  v.rows = values;
  v.reduced = values + std::int64_t(chunk_fields) * v.M * v.tables;
  launch_chunk_table<T>(p, v, ops.d, ops.x, ops.accumulate, stream,
                        ChunkFallback<T>{ok, l, rinv, e});
}

template bool shared_matrix_takes<float>(const Problem&);
template bool shared_matrix_takes<double>(const Problem&);
template std::size_t shared_matrix_workspace<float>(const Problem&);
template std::size_t shared_matrix_workspace<double>(const Problem&);
template void shared_matrix_solve(const Problem&, const Operands<float>&, void*, cudaStream_t);
template void shared_matrix_solve(const Problem&, const Operands<double>&, void*, cudaStream_t);

}  // namespace triax::detail::cuda
