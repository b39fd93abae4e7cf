// block_thomas_pcr: the Thomas hybrid of paper 000 (Algorithms 3-5, arranged as Algorithm 11)
// for systems whose neighbours are adjacent in memory (axes >= 1). A block takes 32 neighbouring
// systems (one per lane, so every load and store is coalesced) and P warps; warp p owns chunk p
// of every system, at most MaxChunk rows, kept in registers. Each thread expresses its chunk's
// interior in terms of the chunk's first and last unknowns (modified Thomas), the 2P reduced
// equations of each system go through shared memory and are solved by one thread per system
// (Thomas on the reduced system), and each thread then finishes its interior. Inputs are read
// once and x written once: no c', d' workspace.
//
// Reduced equations of chunk p with rows 0..L-1 (local), interior written as
// x_k = D_k - A_k x_0 - C_k x_{L-1}:
//   first:  a_0 x_last(p-1) + (b_0 - c_0 A_1) x_0 - c_0 C_1 x_{L-1}       = d_0 - c_0 D_1
//   last:   -a_{L-1} A_{L-2} x_0 + (b_{L-1} - a_{L-1} C_{L-2}) x_{L-1}
//             + c_{L-1} x_first(p+1)                                      = d_{L-1} - a_{L-1} D_{L-2}
// (with no interior, L = 2: the chunk's own two equations).
#include <cuda_runtime.h>

#include <cstdint>

#include "core/problem.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/launch/kernels.hpp"
#include "cuda/solve_modes.cuh"

namespace triax::detail::cuda {
namespace {

constexpr int lanes = 32;
// P, the chunks per system, is at most 16: the reduced system's 2P rows live in shared memory.
// Float chunks of at most 8 rows take up to 32: their threads need few registers, so a block of
// 1024 threads fits (H100: float n = 128 ran at 51% of the copy with 8-row chunks, 38% with
// 32-row chunks, whose 128 registers allow only 16 warps per SM).
constexpr int max_chunks = 16;
template <class T, int MaxChunk>
constexpr int chunk_limit = (sizeof(T) == 4 && MaxChunk == 8) ? 32 : max_chunks;

struct Chunking {
  int chunks;  // P
  int length;  // M: rows of every chunk but the last
};

// The smallest P <= 16 whose chunks (M = ceil(n / P) rows, the last possibly shorter) all have
// at least 2 and at most max_length rows: long chunks give each thread more independent loads
// and keep the reduced system (solved by one warp while the others wait) short.
inline bool choose_chunking(std::int64_t n, int max_length, int most_chunks, Chunking& c) {
  for (int p = 1; p <= most_chunks; ++p) {
    const std::int64_t m = (n + p - 1) / p;
    const std::int64_t last = n - (p - 1) * m;
    if (m <= max_length && m >= 2 && last >= 2) {
      c = {p, static_cast<int>(m)};
      return true;
    }
  }
  return false;
}

// Rows a thread keeps in registers: 32 floats or 16 doubles (3 arrays of them) fit in 128
// registers without spilling (ptxas -v), so n <= 512 in float and n <= 256 in double.
template <class T>
constexpr int max_chunk_length = sizeof(T) == 4 ? 32 : 16;

// Float: 8-row chunks when they fit in 32 chunks; otherwise the fewest chunks (up to 16).
template <class T>
bool choose_for(std::int64_t n, Chunking& c) {
  return (sizeof(T) == 4 && choose_chunking(n, 8, 32, c)) ||
         choose_chunking(n, max_chunk_length<T>, max_chunks, c);
}

template <class T, int MaxChunk, bool Accumulate, int MaxChunks = chunk_limit<T, MaxChunk>>
__global__ void __launch_bounds__(lanes* MaxChunks)
    block_thomas_pcr_kernel(Problem p, Operands<T> ops, Chunking chunking) {
  __shared__ T red[4][2 * MaxChunks][lanes];  // sub, diag, super, rhs of the reduced rows
  __shared__ T xr[2 * MaxChunks][lanes];      // their solution
  const int lane = threadIdx.x, chunk = threadIdx.y, P = chunking.chunks;
  const std::int64_t s_real = std::int64_t(blockIdx.x) * lanes + lane;
  const bool valid = s_real < p.count;
  const std::int64_t s = valid ? s_real : p.count - 1;
  const std::int64_t n = p.n;
  const std::int64_t row0 = std::int64_t(chunk) * chunking.length;
  const int L = static_cast<int>(chunk == P - 1 ? n - row0 : chunking.length);

  const T* a = ops.a + p.system_offset(op_a, s) + row0 * p.map[op_a].row_stride;
  const T* b = ops.b + p.system_offset(op_b, s) + row0 * p.map[op_b].row_stride;
  const T* c = ops.c + p.system_offset(op_c, s) + row0 * p.map[op_c].row_stride;
  const T* d = ops.d + p.system_offset(op_d, s) + row0 * p.map[op_d].row_stride;
  const std::int64_t ra = p.map[op_a].row_stride, rb = p.map[op_b].row_stride,
                     rc = p.map[op_c].row_stride, rd = p.map[op_d].row_stride;

  // Modified Thomas on rows 1..L-2: x_k + C_k x_{k+1} + A_k x_0 = D_k.
  T A[MaxChunk], C[MaxChunk], D[MaxChunk];
  const bool first_chunk = chunk == 0, last_chunk = chunk == P - 1;
  const T a0 = first_chunk ? T(0) : a[0];  // a[0] of the system is never read
  const T b0 = b[0], c0 = c[0], d0 = d[0];
  T al = 0, bl = 0, cl = 0, dl = 0;  // row L-1
#pragma unroll
  for (int k = 1; k < MaxChunk; ++k) {
    if (k < L - 1) {
      const T ak = a[k * ra], bk = b[k * rb], ck = c[k * rc], dk = d[k * rd];
      if (k == 1) {
        const T r = T(1) / bk;
        A[k] = ak * r;
        C[k] = ck * r;
        D[k] = dk * r;
      } else {
        const T r = T(1) / (bk - ak * C[k - 1]);
        A[k] = -ak * A[k - 1] * r;
        C[k] = ck * r;
        D[k] = (dk - ak * D[k - 1]) * r;
      }
    } else if (k == L - 1) {
      al = a[k * ra];
      bl = b[k * rb];
      cl = last_chunk ? T(0) : c[k * rc];  // c[n-1] of the system is never read
      dl = d[k * rd];
    }
  }
  // Backward: x_k = D_k - A_k x_0 - C_k x_{L-1} for k = L-2 .. 1 (row L-2 is already in that
  // form). Row L-2's coefficients are kept apart: a register array indexed at run time would
  // go to local memory.
  T A_end = 0, C_end = 0, D_end = 0;
#pragma unroll
  for (int k = MaxChunk - 1; k >= 1; --k) {
    if (k == L - 2) {
      A_end = A[k];
      C_end = C[k];
      D_end = D[k];
    } else if (k < L - 2) {
      D[k] = D[k] - C[k] * D[k + 1];
      A[k] = A[k] - C[k] * A[k + 1];
      C[k] = -C[k] * C[k + 1];
    }
  }
  // The chunk's two reduced equations.
  T f_sub = a0, f_diag = b0, f_sup = c0, f_rhs = d0;
  T l_sub = al, l_diag = bl, l_sup = cl, l_rhs = dl;
  if (L > 2) {
    f_diag = b0 - c0 * A[1];
    f_sup = -c0 * C[1];
    f_rhs = d0 - c0 * D[1];
    l_sub = -al * A_end;
    l_diag = bl - al * C_end;
    l_rhs = dl - al * D_end;
  }
  red[0][2 * chunk][lane] = f_sub;
  red[1][2 * chunk][lane] = f_diag;
  red[2][2 * chunk][lane] = f_sup;
  red[3][2 * chunk][lane] = f_rhs;
  red[0][2 * chunk + 1][lane] = l_sub;
  red[1][2 * chunk + 1][lane] = l_diag;
  red[2][2 * chunk + 1][lane] = l_sup;
  red[3][2 * chunk + 1][lane] = l_rhs;
  __syncthreads();

  if (chunk == 0) {
    // Thomas on the 2P reduced rows of this lane's system (sub of row 0 and super of the last
    // row are zero: the system's own a[0] and c[n-1] were never read).
    const int rows = 2 * P;
    T cp_prev = 0, dp_prev = 0;
    for (int i = 0; i < rows; ++i) {
      const T sub = i > 0 ? red[0][i][lane] : T(0);
      const T r = T(1) / (red[1][i][lane] - sub * cp_prev);
      cp_prev = red[2][i][lane] * r;
      dp_prev = (red[3][i][lane] - sub * dp_prev) * r;
      red[2][i][lane] = cp_prev;
      xr[i][lane] = dp_prev;
    }
    for (int i = rows - 2; i >= 0; --i) xr[i][lane] -= red[2][i][lane] * xr[i + 1][lane];
  }
  __syncthreads();

  if (!valid) return;
  const T x_first = xr[2 * chunk][lane], x_last = xr[2 * chunk + 1][lane];
  T* x = ops.x + p.system_offset(op_x, s) + row0 * p.map[op_x].row_stride;
  const std::int64_t rx = p.map[op_x].row_stride;
  auto put = [&](int k, T v) {
    T& out = x[k * rx];
    out = Accumulate ? out + v : v;
  };
  put(0, x_first);
#pragma unroll
  for (int k = 1; k < MaxChunk; ++k) {
    if (k < L - 1) put(k, D[k] - A[k] * x_first - C[k] * x_last);
  }
  put(L - 1, x_last);
}

template <class T, int MaxChunk, bool Accumulate>
void launch(const Problem& p, const Operands<T>& ops, const Chunking& c, cudaStream_t stream) {
  const std::int64_t blocks = (p.count + lanes - 1) / lanes;
  const dim3 block(lanes, c.chunks);
  block_thomas_pcr_kernel<T, MaxChunk, Accumulate>
      <<<static_cast<unsigned>(blocks), block, 0, stream>>>(p, ops, c);
  TRIAX_CUDA_CHECK_LAUNCH();
}

template <class T, bool Accumulate>
void dispatch(const Problem& p, const Operands<T>& ops, cudaStream_t stream) {
  Chunking c{};
  choose_for<T>(p.n, c);
  if (c.length <= 8) {
    launch<T, 8, Accumulate>(p, ops, c, stream);
  } else if (c.length <= 16) {
    launch<T, 16, Accumulate>(p, ops, c, stream);
  } else if constexpr (max_chunk_length<T> > 16) {
    launch<T, 32, Accumulate>(p, ops, c, stream);
  }
}

}  // namespace

template <class T>
bool block_thomas_pcr_supports(const Problem& p) {
  Chunking c{};
  // Any layout is correct. Fast where lanes are neighbouring systems (axes >= 1: coalesced), and
  // along axis 0, where each thread's chunk is one contiguous run of whole sectors.
  return (p.count + lanes - 1) / lanes < (std::int64_t(1) << 31) && choose_for<T>(p.n, c);
}

template <class T>
std::size_t block_thomas_pcr_workspace(const Problem&) {
  return 0;
}

template <class T>
void block_thomas_pcr(const Problem& p, const Operands<T>& ops, void*, cudaStream_t stream) {
  // Checked mode never reaches this kernel (the plan's table says it does not check).
  with_solve_mode(ops, [&](auto accumulate, auto) { dispatch<T, accumulate.value>(p, ops, stream); });
}

#define TRIAX_INSTANTIATE(T)                                                               \
  template bool block_thomas_pcr_supports<T>(const Problem&);                              \
  template std::size_t block_thomas_pcr_workspace<T>(const Problem&);                      \
  template void block_thomas_pcr<T>(const Problem&, const Operands<T>&, void*, cudaStream_t);
TRIAX_INSTANTIATE(float)
TRIAX_INSTANTIATE(double)
#undef TRIAX_INSTANTIATE

}  // namespace triax::detail::cuda
