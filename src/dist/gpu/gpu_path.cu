// GPU ranks of triax::mpi: the kernels of the local passes, the device buffers of a plan, host
// staging's copies and the NCCL reduced solves (gpu_path.hpp says what each step does).
#include "dist/gpu/gpu_path.hpp"

#include <cuda_runtime.h>

#include <climits>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "cuda/cuda_check.hpp"
#include "dist/gpu/one_row_kernels.cuh"
#include "dist/mpi_check.hpp"
#include "dist/reduced_methods.hpp"

#if defined(TRIAX_HAS_NCCL)
#include <nccl.h>
#endif
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

namespace triax::detail {
namespace {

constexpr int threads_per_block = 128;
constexpr std::int64_t no_bad_row = std::numeric_limits<std::int64_t>::max();

unsigned blocks_for(std::int64_t items) {
  return static_cast<unsigned>((items + threads_per_block - 1) / threads_per_block);
}

#if defined(TRIAX_HAS_NCCL)
[[noreturn]] void throw_nccl(ncclResult_t r, const char* call, const char* file, int line) {
  throw triax::mpi_error(std::string("triax::mpi: ") + call + " failed at " + file + ":" +
                         std::to_string(line) + ": " + ncclGetErrorString(r));
}
#define TRIAX_NCCL_CHECK(call)                                                          \
  do {                                                                                  \
    const ncclResult_t triax_nccl_ = (call);                                            \
    if (triax_nccl_ != ncclSuccess) throw_nccl(triax_nccl_, #call, __FILE__, __LINE__); \
  } while (0)

template <class T>
ncclDataType_t nccl_type() {
  return sizeof(T) == 4 ? ncclFloat : ncclDouble;
}
#endif

// One thread per system of the batch: system s's element i of each workspace array lies at
// i * count + s, so that consecutive threads touch consecutive addresses. Each thread loads
// rows in batches of 8 (reduce_piece_batched: 32 loads in flight, not 4), held to 128 registers
// so that 4 blocks fit an SM (ptxas gave 126-182 unbounded; 16 float rows took the most).
constexpr int rows_in_flight = 8;
constexpr int strided_min_blocks = 4;

template <class T>
__global__ void __launch_bounds__(threads_per_block, strided_min_blocks)
    reduce_kernel(Problem p, Operands<T> ops, PiecePlace place, T* work, ReducedPair<T>* rows,
                  std::int64_t first, std::int64_t size) {
  const std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (i >= size) return;
  const std::int64_t s = first + i, all = p.count * p.n;
  const StridedPieceWork<T> w{
      {work + s, p.count}, {work + all + s, p.count}, {work + 2 * all + s, p.count}};
  rows[s] = reduce_piece_batched<rows_in_flight>(p, ops, s, place, w);
}

template <class T>
__global__ void __launch_bounds__(threads_per_block, strided_min_blocks)
    finish_kernel(Problem p, Operands<T> ops, const T* work, const T* ends, std::int64_t* bad_rows,
                  std::int64_t first_row, std::int64_t first, std::int64_t size) {
  const std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (i >= size) return;
  const std::int64_t s = first + i, all = p.count * p.n;
  // finish_piece only reads the workspace; the strided view wants a mutable pointer.
  T* base = const_cast<T*>(work);
  const StridedPieceWork<T> w{
      {base + s, p.count}, {base + all + s, p.count}, {base + 2 * all + s, p.count}};
  const std::int64_t bad =
      finish_piece_batched<rows_in_flight>(p, ops, s, w, ends[2 * s], ends[2 * s + 1]);
  if (bad_rows) bad_rows[s] = bad < 0 ? no_bad_row : first_row + bad;
}

// Rows contiguous in memory (axis 0 of a packed array): one thread per system would have the
// lanes of a warp load words a whole row apart. Instead each warp takes 32 consecutive systems
// and moves them through shared memory in tiles of tile_rows rows: the lanes load a tile
// together (4 systems x 8 consecutive rows per 32 lanes, whole 32-byte sectors), then each
// lane runs the sweep of its own system over the tile. The workspace stays system-fastest.
constexpr int tile_rows = 8;
constexpr int tile_warps = 4;
constexpr unsigned full_warp = 0xffffffffu;

unsigned tiled_blocks_for(std::int64_t systems) {
  const std::int64_t per_block = 32 * tile_warps;
  return static_cast<unsigned>((systems + per_block - 1) / per_block);
}

template <class T>
__global__ void __launch_bounds__(32 * tile_warps)
    reduce_contiguous_kernel(Problem p, Operands<T> ops, PiecePlace place, T* work,
                             ReducedPair<T>* rows, std::int64_t first, std::int64_t size) {
  __shared__ T tile[tile_warps][4][32][tile_rows + 1];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const std::int64_t s0 = first + (blockIdx.x * std::int64_t(tile_warps) + warp) * 32;
  if (s0 >= first + size) return;  // the whole warp alike
  const int systems = static_cast<int>(first + size - s0 < 32 ? first + size - s0 : 32);
  const bool mine = lane < systems;
  const std::int64_t s = s0 + lane, m = p.n, all = p.count * m;
  const T* base[4] = {ops.a, ops.b, ops.c, ops.d};
  std::int64_t offset[4];
  for (int op = 0; op < 4; ++op) offset[op] = mine ? p.system_offset(op, s) : 0;
  const StridedPieceWork<T> w{
      {work + s, p.count}, {work + all + s, p.count}, {work + 2 * all + s, p.count}};
  ForwardSweep<T> f{};
  T a0 = 0, b0 = 1, c0 = 0, d0 = 0;
  // This lane's share of a tile (element e = j * 32 + lane: system e / tile_rows, row e %
  // tile_rows), loaded into registers one tile ahead: the next tile's 32 loads are in flight
  // while the lanes sweep this one, instead of each tile waiting for its own loads.
  T next[4][tile_rows];
  const auto load_tile = [&](std::int64_t r0) {
    const int here = static_cast<int>(m - r0 < tile_rows ? m - r0 : tile_rows);
#pragma unroll
    for (int j = 0; j < tile_rows; ++j) {
      const int e = j * 32 + lane, q = e / tile_rows, i = e % tile_rows;
#pragma unroll
      for (int op = 0; op < 4; ++op) {
        const std::int64_t o = __shfl_sync(full_warp, offset[op], q);
        next[op][j] = q < systems && i < here ? base[op][o + r0 + i] : T(0);
      }
    }
  };
  load_tile(0);
  for (std::int64_t r0 = 0; r0 < m; r0 += tile_rows) {
    const int here = static_cast<int>(m - r0 < tile_rows ? m - r0 : tile_rows);
#pragma unroll
    for (int j = 0; j < tile_rows; ++j) {
      const int e = j * 32 + lane, q = e / tile_rows, i = e % tile_rows;
#pragma unroll
      for (int op = 0; op < 4; ++op) {
        if (q < systems && i < here) tile[warp][op][q][i] = next[op][j];
      }
    }
    __syncwarp();
    if (r0 + tile_rows < m) load_tile(r0 + tile_rows);  // the whole warp alike
    if (mine) {
      for (int i = 0; i < here; ++i) {
        const std::int64_t row = r0 + i;
        const T av = tile[warp][0][lane][i], bv = tile[warp][1][lane][i];
        const T cv = place.last_piece && row == m - 1 ? T(0) : tile[warp][2][lane][i];
        const T dv = tile[warp][3][lane][i];
        if (row == 0) {
          a0 = place.first_piece ? T(0) : av;
          b0 = bv;
          c0 = cv;
          d0 = dv;
          continue;
        }
        if (row == 1) {
          f.start(av, bv, cv, dv);
        } else {
          f.step(av, bv, cv, dv, row == m - 1);
        }
        w.as[row] = f.as;
        w.cs[row] = f.cs;
        w.ds[row] = f.ds;
      }
    }
    __syncwarp();
  }
  if (!mine) return;
  // A whole system of one row is its own reduced system (as reduce_piece).
  rows[s] = m == 1 ? ReducedPair<T>{{a0, b0, T(0), d0}, {T(0), T(1), T(0), T(0)}}
                   : f.reduced(a0, b0, c0, d0, m);
}

template <class T>
__global__ void __launch_bounds__(32 * tile_warps)
    finish_contiguous_kernel(Problem p, Operands<T> ops, const T* work, const T* ends,
                             std::int64_t* bad_rows, std::int64_t first_row, std::int64_t first,
                             std::int64_t size) {
  __shared__ T tile[tile_warps][32][tile_rows + 1];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const std::int64_t s0 = first + (blockIdx.x * std::int64_t(tile_warps) + warp) * 32;
  if (s0 >= first + size) return;
  const int systems = static_cast<int>(first + size - s0 < 32 ? first + size - s0 : 32);
  const bool mine = lane < systems;
  const std::int64_t s = s0 + lane, m = p.n, all = p.count * m;
  const std::int64_t offset = mine ? p.system_offset(op_x, s) : 0;
  const T* as = work + s;
  const T* cs = work + all + s;
  const T* ds = work + 2 * all + s;
  const T x0 = mine ? ends[2 * s] : T(0), xm = mine ? ends[2 * s + 1] : T(0);
  T next = xm;
  std::int64_t bad = -1;
  // Last tile first: the back substitution runs from row M-2 down to row 1. The tile's
  // workspace rows are loaded before its arithmetic (24 loads in flight, as the strided kernels
  // batch theirs).
  for (std::int64_t r0 = (m - 1) / tile_rows * tile_rows; r0 >= 0; r0 -= tile_rows) {
    const int here = static_cast<int>(m - r0 < tile_rows ? m - r0 : tile_rows);
    if (mine) {
      T vas[tile_rows], vcs[tile_rows], vds[tile_rows];
#pragma unroll
      for (int i = 0; i < tile_rows; ++i) {
        const std::int64_t row = r0 + i;
        const bool interior = i < here && row >= 1 && row < m - 1;
        vas[i] = interior ? as[row * p.count] : T(0);
        vcs[i] = interior ? cs[row * p.count] : T(0);
        vds[i] = interior ? ds[row * p.count] : T(0);
      }
#pragma unroll
      for (int i = tile_rows - 1; i >= 0; --i) {
        if (i >= here) continue;
        const std::int64_t row = r0 + i;
        T v;
        if (row == 0) {
          v = x0;
        } else if (row == m - 1) {
          v = xm;
        } else {
          v = vds[i] - vas[i] * x0 - vcs[i] * next;
          next = v;
        }
        if (!finite_value(v)) bad = row;
        tile[warp][lane][i] = v;
      }
    }
    __syncwarp();
    for (int j = 0; j < tile_rows; ++j) {
      const int e = j * 32 + lane, q = e / tile_rows, i = e % tile_rows;
      const std::int64_t o = __shfl_sync(full_warp, offset, q);
      if (q < systems && i < here) {
        T* x = ops.x + o + r0 + i;
        if (ops.accumulate) {
          *x += tile[warp][q][i];
        } else {
          *x = tile[warp][q][i];
        }
      }
    }
    __syncwarp();
  }
  if (mine && bad_rows) bad_rows[s] = bad < 0 ? no_bad_row : first_row + bad;
}

// Whether every operand a kernel reads or writes has its rows contiguous (stride 1).
bool rows_contiguous(const Problem& p, std::initializer_list<int> operands) {
  for (int op : operands) {
    if (p.map[op].row_stride != 1) return false;
  }
  return true;
}

__global__ void info_kernel(const std::int64_t* bad_rows, int* info, std::int64_t count,
                            bool unconverged) {
  const std::int64_t s = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (s >= count) return;
  const std::int64_t row = bad_rows[s];
  if (row != no_bad_row) {
    info[s] = static_cast<int>(row + 1 < INT_MAX ? row + 1 : INT_MAX);
  } else {
    info[s] = unconverged ? triax::mpi::info_not_converged : 0;
  }
}

// Allgather on the device: thread s solves system s of the batch from every piece's rows
// (piece q's pair at gathered[q * size + s]) and keeps this position's two ends.
template <class T>
__global__ void allgather_solve_kernel(ReducedPair<T>* gathered, int ranks, int position, T* ends,
                                       std::int64_t first, std::int64_t size) {
  const std::int64_t s = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (s >= size) return;
  thomas_over_gathered(gathered, ranks, size, s);
  const ReducedPair<T>& mine = gathered[position * size + s];
  ends[2 * (first + s)] = mine.first.d;
  ends[2 * (first + s) + 1] = mine.last.d;
}

// Gather-scatter on the device: thread s solves system s of this position's group from every
// piece's rows (piece q's pair at gathered[q * mine + s]) and lays out each piece's two ends for
// the way back (piece q's at scattered[2 * (q * mine + s)]).
template <class T>
__global__ void gather_scatter_solve_kernel(ReducedPair<T>* gathered, T* scattered, int ranks,
                                            std::int64_t mine) {
  const std::int64_t s = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (s >= mine) return;
  thomas_over_gathered(gathered, ranks, mine, s);
  for (int q = 0; q < ranks; ++q) {
    const ReducedPair<T>& pair = gathered[q * mine + s];
    scattered[2 * (q * mine + s)] = pair.first.d;
    scattered[2 * (q * mine + s) + 1] = pair.last.d;
  }
}

// PCR's steps on the device, as solve_reduced_pcr does them on the host; a side beyond the line
// is an identity row.
template <class T>
__global__ void pcr_step_kernel(ReducedPair<T>* w, const ReducedPair<T>* lower,
                                const ReducedPair<T>* upper, bool has_lower, bool has_upper,
                                bool first_step, std::int64_t size) {
  const std::int64_t s = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (s >= size) return;
  constexpr ReducedRow<T> identity{T(0), T(1), T(0), T(0)};
  const ReducedPair<T> old = w[s];
  const ReducedPair<T> lo = has_lower ? lower[s] : ReducedPair<T>{identity, identity};
  const ReducedPair<T> up = has_upper ? upper[s] : ReducedPair<T>{identity, identity};
  if (first_step) {
    w[s].first = pcr_combine(lo.last, old.first, old.last);
    w[s].last = pcr_combine(old.first, old.last, up.first);
  } else {
    w[s].first = pcr_combine(lo.first, old.first, up.first);
    w[s].last = pcr_combine(lo.last, old.last, up.last);
  }
}

template <class T>
__global__ void pcr_ends_kernel(const ReducedPair<T>* w, T* ends, std::int64_t first,
                                std::int64_t size) {
  const std::int64_t s = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (s >= size) return;
  ends[2 * (first + s)] = w[s].first.d / w[s].first.b;
  ends[2 * (first + s) + 1] = w[s].last.d / w[s].last.b;
}

// Device and pinned host memory owned by a plan.
struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(std::size_t bytes = 0) {
    if (bytes > 0) TRIAX_CUDA_CHECK(cudaMalloc(&p, bytes));
  }
  ~DeviceBuffer() {
    if (p) TRIAX_CUDA_CHECK_NOTHROW(cudaFree(p));
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};
struct PinnedBuffer {
  void* p = nullptr;
  explicit PinnedBuffer(std::size_t bytes = 0) {
    if (bytes > 0) TRIAX_CUDA_CHECK(cudaMallocHost(&p, bytes));
  }
  ~PinnedBuffer() {
    if (p) TRIAX_CUDA_CHECK_NOTHROW(cudaFreeHost(p));
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
};
// An event made with the plan (none per solve).
struct Event {
  cudaEvent_t e = nullptr;
  Event() { TRIAX_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming)); }
  ~Event() {
    if (e) TRIAX_CUDA_CHECK_NOTHROW(cudaEventDestroy(e));
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
};
// The plan's second stream for NCCL with overlap (none otherwise). Non-blocking, so that a
// caller on the legacy default stream does not serialise it with the compute stream again; the
// highest priority, so that the collectives' few blocks get SMs as soon as the next batch's
// reduction frees some, instead of queuing behind all of its blocks.
struct SideStream {
  cudaStream_t s = nullptr;
  explicit SideStream(bool make) {
    if (!make) return;
    int least = 0, greatest = 0;
    TRIAX_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    TRIAX_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest));
  }
  ~SideStream() {
    if (s) TRIAX_CUDA_CHECK_NOTHROW(cudaStreamDestroy(s));
  }
  SideStream(const SideStream&) = delete;
  SideStream& operator=(const SideStream&) = delete;
};

}  // namespace

template <class T>
struct GpuPath<T>::State {
  GpuPathConfig config;
  cudaStream_t stream;
  std::size_t count;
  DeviceBuffer work, rows, ends, bad_rows;
  PinnedBuffer host_rows, host_ends, host_bad_rows;
  // Host staging: the copy of a batch's reduced rows to host_rows is done (rows_to_host_async).
  Event rows_copied;
  // NCCL: allgather's gathered rows, or PCR's working rows and the neighbours' rows.
  DeviceBuffer gathered, scattered, pcr_rows, receive_lower, receive_upper;
  // NCCL with one row per rank: the rows' first unknowns (own and the upper neighbour's), the
  // one-row system with the neighbours' rows, the last unknowns (own and the lower one's).
  DeviceBuffer one_first, one_first_up, one_rows, one_lower, one_upper, one_y, one_y_lower;
  // NCCL with overlap: the second stream, where the reduced solves run; the caller's stream
  // records rows_ready after a batch's reduction (the side stream waits for it), the side
  // stream ends_ready after the batch's ends (the back substitution waits for it). One event
  // each serves every batch: a wait takes the record queued before it.
  SideStream side;
  Event rows_ready, ends_ready;
  // Where solve_reduced_on_device queues its collectives and kernels: the caller's stream, or
  // side while solve_reduced_beside runs.
  cudaStream_t reduced_stream;
#if defined(TRIAX_HAS_NCCL)
  ncclComm_t comm = nullptr;
#endif

  explicit State(const GpuPathConfig& c)
      : config(c),
        stream(static_cast<cudaStream_t>(c.stream)),
        count(static_cast<std::size_t>(c.problem.count)),
        work(3 * count * static_cast<std::size_t>(c.problem.n) * sizeof(T)),
        rows(count * sizeof(ReducedPair<T>)),
        ends(2 * count * sizeof(T)),
        bad_rows(c.checked ? count * sizeof(std::int64_t) : 0),
        host_rows(c.nccl ? 0 : count * sizeof(ReducedPair<T>)),
        host_ends(c.nccl ? 0 : 2 * count * sizeof(T)),
        host_bad_rows(c.checked && !c.nccl ? count * sizeof(std::int64_t) : 0),
        gathered(gathered_pairs(c) * sizeof(ReducedPair<T>)),
        scattered(c.nccl && c.method == triax::mpi::Method::gather_scatter
                      ? 2 * gathered_pairs(c) * sizeof(T)
                      : 0),
        pcr_rows(pcr_bytes(c)),
        receive_lower(pcr_bytes(c)),
        receive_upper(pcr_bytes(c)),
        one_first(one_row_bytes(c, sizeof(FirstUnknown<T>))),
        one_first_up(one_row_bytes(c, sizeof(FirstUnknown<T>))),
        one_rows(one_row_bytes(c, sizeof(ReducedRow<T>))),
        one_lower(one_row_bytes(c, sizeof(ReducedRow<T>))),
        one_upper(one_row_bytes(c, sizeof(ReducedRow<T>))),
        one_y(one_row_bytes(c, sizeof(T))),
        one_y_lower(one_row_bytes(c, sizeof(T))),
        side(c.nccl && c.overlap && c.largest_batch < c.problem.count),
        reduced_stream(stream) {
    if (c.nccl) init_nccl();
  }

  // Allgather: every piece's pairs of a batch; gather-scatter: every piece's pairs of this
  // position's group (at most ceil(batch / P) systems).
  static std::size_t gathered_pairs(const GpuPathConfig& c) {
    if (!c.nccl) return 0;
    const auto ranks = static_cast<std::size_t>(c.ranks);
    const auto batch = static_cast<std::size_t>(c.largest_batch);
    if (c.method == triax::mpi::Method::allgather) return ranks * batch;
    if (c.method == triax::mpi::Method::gather_scatter)
      return ranks * ((batch + ranks - 1) / ranks);
    return 0;
  }

  static std::size_t one_row_bytes(const GpuPathConfig& c, std::size_t per_system) {
    return c.nccl && c.one_row ? static_cast<std::size_t>(c.largest_batch) * per_system : 0;
  }

  static std::size_t pcr_bytes(const GpuPathConfig& c) {
    return c.nccl && c.method == triax::mpi::Method::pcr && !c.one_row
               ? static_cast<std::size_t>(c.largest_batch) * sizeof(ReducedPair<T>)
               : 0;
  }

  void init_nccl() {
#if defined(TRIAX_HAS_NCCL)
    // Position 0 makes the id, MPI carries it along the line; one communicator per plan.
    ncclUniqueId id;
    std::memset(&id, 0, sizeof id);
    if (config.position == 0) TRIAX_NCCL_CHECK(ncclGetUniqueId(&id));
    TRIAX_MPI_CHECK(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, config.line));
    TRIAX_NCCL_CHECK(ncclCommInitRank(&comm, config.ranks, id, config.position));
#else
    throw triax::invalid_argument("triax::mpi::Solver: built without NCCL");
#endif
  }

  ~State() {
#if defined(TRIAX_HAS_NCCL)
    if (comm) {
      // The plan may go while its last solve is queued: let the streams drain first.
      TRIAX_CUDA_CHECK_NOTHROW(cudaStreamSynchronize(stream));
      if (side.s) TRIAX_CUDA_CHECK_NOTHROW(cudaStreamSynchronize(side.s));
      ncclCommDestroy(comm);
    }
#endif
  }

  T* work_ptr() { return static_cast<T*>(work.p); }
  ReducedPair<T>* rows_ptr() { return static_cast<ReducedPair<T>*>(rows.p); }
  T* ends_ptr() { return static_cast<T*>(ends.p); }
  std::int64_t* bad_ptr() { return static_cast<std::int64_t*>(bad_rows.p); }
};

template <class T>
GpuPath<T>::GpuPath(const GpuPathConfig& config) : state_(std::make_unique<State>(config)) {}
template <class T>
GpuPath<T>::~GpuPath() = default;

template <class T>
ReducedPair<T>* GpuPath<T>::host_rows() {
  return static_cast<ReducedPair<T>*>(state_->host_rows.p);
}
template <class T>
T* GpuPath<T>::host_ends() {
  return static_cast<T*>(state_->host_ends.p);
}

template <class T>
void GpuPath<T>::reduce(const Problem& p, const Operands<T>& ops, std::int64_t first,
                        std::int64_t size) {
  State& st = *state_;
  if (rows_contiguous(p, {op_a, op_b, op_c, op_d})) {
    reduce_contiguous_kernel<T><<<tiled_blocks_for(size), 32 * tile_warps, 0, st.stream>>>(
        p, ops, st.config.place, st.work_ptr(), st.rows_ptr(), first, size);
  } else {
    reduce_kernel<T><<<blocks_for(size), threads_per_block, 0, st.stream>>>(
        p, ops, st.config.place, st.work_ptr(), st.rows_ptr(), first, size);
  }
  TRIAX_CUDA_CHECK_LAUNCH();
}

template <class T>
void GpuPath<T>::rows_to_host_async(std::int64_t first, std::int64_t size) {
  State& st = *state_;
  TRIAX_CUDA_CHECK(cudaMemcpyAsync(host_rows() + first, st.rows_ptr() + first,
                                   static_cast<std::size_t>(size) * sizeof(ReducedPair<T>),
                                   cudaMemcpyDeviceToHost, st.stream));
  TRIAX_CUDA_CHECK(cudaEventRecord(st.rows_copied.e, st.stream));
}

template <class T>
void GpuPath<T>::wait_rows() {
  // Only the stream's work up to the copy: kernels queued after it (the previous batch's back
  // substitution) keep running.
  TRIAX_CUDA_CHECK(cudaEventSynchronize(state_->rows_copied.e));
}

template <class T>
void GpuPath<T>::rows_to_host(std::int64_t first, std::int64_t size) {
  rows_to_host_async(first, size);
  wait_rows();
}

template <class T>
void GpuPath<T>::ends_to_device(std::int64_t first, std::int64_t size) {
  State& st = *state_;
  // Pinned source: the copy is queued, and this batch's part of the host buffer is not written
  // again before the next solve's wait for its first rows (wait_rows), queued after it, has
  // seen it done; other batches write other parts.
  TRIAX_CUDA_CHECK(cudaMemcpyAsync(st.ends_ptr() + 2 * first, host_ends() + 2 * first,
                                   2 * static_cast<std::size_t>(size) * sizeof(T),
                                   cudaMemcpyHostToDevice, st.stream));
}

template <class T>
void GpuPath<T>::solve_reduced_on_device(std::int64_t first, std::int64_t size) {
#if defined(TRIAX_HAS_NCCL)
  State& st = *state_;
  const GpuPathConfig& c = st.config;
  const cudaStream_t stream = st.reduced_stream;
  if (c.one_row) {
    solve_one_row_on_device(first, size);
    return;
  }
  ReducedPair<T>* rows = st.rows_ptr() + first;
  const std::size_t values = 8 * static_cast<std::size_t>(size);  // 8 per pair
  if (c.method == triax::mpi::Method::allgather) {
    auto* gathered = static_cast<ReducedPair<T>*>(st.gathered.p);
    TRIAX_NCCL_CHECK(ncclAllGather(rows, gathered, values, nccl_type<T>(), st.comm, stream));
    allgather_solve_kernel<T><<<blocks_for(size), threads_per_block, 0, stream>>>(
        gathered, c.ranks, c.position, st.ends_ptr(), first, size);
    TRIAX_CUDA_CHECK_LAUNCH();
    return;
  }
  if (c.method == triax::mpi::Method::gather_scatter) {
    // Two personalised all-to-alls (NCCL point-to-point in a group; this position's own share
    // by a device copy): the rows of group q to position q, the ends back to their pieces.
    const SystemGroups groups{c.ranks, size};
    const std::int64_t mine = groups.size(c.position);
    auto* gathered = static_cast<ReducedPair<T>*>(st.gathered.p);
    T* scattered = static_cast<T*>(st.scattered.p);
    const auto pairs = [](std::int64_t n) { return static_cast<std::size_t>(n) * 8; };
    const auto values = [](std::int64_t n) { return static_cast<std::size_t>(n) * 2; };
    TRIAX_NCCL_CHECK(ncclGroupStart());
    for (int q = 0; q < c.ranks; ++q) {
      if (q == c.position) continue;
      if (groups.size(q) > 0) {
        TRIAX_NCCL_CHECK(ncclSend(rows + groups.start(q), pairs(groups.size(q)), nccl_type<T>(), q,
                                  st.comm, stream));
      }
      if (mine > 0) {
        TRIAX_NCCL_CHECK(
            ncclRecv(gathered + q * mine, pairs(mine), nccl_type<T>(), q, st.comm, stream));
      }
    }
    TRIAX_NCCL_CHECK(ncclGroupEnd());
    if (mine > 0) {
      TRIAX_CUDA_CHECK(cudaMemcpyAsync(gathered + c.position * mine,
                                       rows + groups.start(c.position),
                                       static_cast<std::size_t>(mine) * sizeof(ReducedPair<T>),
                                       cudaMemcpyDeviceToDevice, stream));
      gather_scatter_solve_kernel<T>
          <<<blocks_for(mine), threads_per_block, 0, stream>>>(gathered, scattered, c.ranks, mine);
      TRIAX_CUDA_CHECK_LAUNCH();
    }
    T* ends = st.ends_ptr() + 2 * first;
    TRIAX_NCCL_CHECK(ncclGroupStart());
    for (int q = 0; q < c.ranks; ++q) {
      if (q == c.position) continue;
      if (mine > 0) {
        TRIAX_NCCL_CHECK(
            ncclSend(scattered + 2 * q * mine, values(mine), nccl_type<T>(), q, st.comm, stream));
      }
      if (groups.size(q) > 0) {
        TRIAX_NCCL_CHECK(ncclRecv(ends + 2 * groups.start(q), values(groups.size(q)),
                                  nccl_type<T>(), q, st.comm, stream));
      }
    }
    TRIAX_NCCL_CHECK(ncclGroupEnd());
    if (mine > 0) {
      TRIAX_CUDA_CHECK(cudaMemcpyAsync(
          ends + 2 * groups.start(c.position), scattered + 2 * c.position * mine,
          static_cast<std::size_t>(2 * mine) * sizeof(T), cudaMemcpyDeviceToDevice, stream));
    }
    return;
  }
  // PCR: the first step pairs each row with its neighbours' nearest rows, every later one (t =
  // 1, 2, 4, ... < P) with both rows of the ranks t away.
  auto* w = static_cast<ReducedPair<T>*>(st.pcr_rows.p);
  auto* lower = static_cast<ReducedPair<T>*>(st.receive_lower.p);
  auto* upper = static_cast<ReducedPair<T>*>(st.receive_upper.p);
  TRIAX_CUDA_CHECK(cudaMemcpyAsync(w, rows, static_cast<std::size_t>(size) * sizeof(ReducedPair<T>),
                                   cudaMemcpyDeviceToDevice, stream));
  const auto step = [&](int distance, bool first_step) {
    const bool has_lower = c.position - distance >= 0;
    const bool has_upper = c.position + distance < c.ranks;
    TRIAX_NCCL_CHECK(ncclGroupStart());
    if (has_lower) {
      TRIAX_NCCL_CHECK(ncclSend(w, values, nccl_type<T>(), c.position - distance, st.comm, stream));
      TRIAX_NCCL_CHECK(
          ncclRecv(lower, values, nccl_type<T>(), c.position - distance, st.comm, stream));
    }
    if (has_upper) {
      TRIAX_NCCL_CHECK(ncclSend(w, values, nccl_type<T>(), c.position + distance, st.comm, stream));
      TRIAX_NCCL_CHECK(
          ncclRecv(upper, values, nccl_type<T>(), c.position + distance, st.comm, stream));
    }
    TRIAX_NCCL_CHECK(ncclGroupEnd());
    pcr_step_kernel<T><<<blocks_for(size), threads_per_block, 0, stream>>>(
        w, lower, upper, has_lower, has_upper, first_step, size);
    TRIAX_CUDA_CHECK_LAUNCH();
  };
  step(1, true);
  for (int distance = 1; distance < c.ranks; distance *= 2) step(distance, false);
  pcr_ends_kernel<T>
      <<<blocks_for(size), threads_per_block, 0, stream>>>(w, st.ends_ptr(), first, size);
  TRIAX_CUDA_CHECK_LAUNCH();
#else
  (void)first;
  (void)size;
  throw triax::invalid_argument("triax::mpi::Solver: built without NCCL");
#endif
}

template <class T>
void GpuPath<T>::solve_one_row_on_device(std::int64_t first, std::int64_t size) {
#if defined(TRIAX_HAS_NCCL)
  // As solve_one_row_pcr on the host: row 0 down to the lower neighbour, the one-row system,
  // ceil(log2 P) PCR steps, the last unknowns up to the upper neighbour, the ends.
  State& st = *state_;
  const GpuPathConfig& c = st.config;
  const cudaStream_t stream = st.reduced_stream;
  const ReducedPair<T>* pairs = st.rows_ptr() + first;
  auto* first_unknowns = static_cast<FirstUnknown<T>*>(st.one_first.p);
  auto* first_up = static_cast<FirstUnknown<T>*>(st.one_first_up.p);
  auto* rows = static_cast<ReducedRow<T>*>(st.one_rows.p);
  auto* lower = static_cast<ReducedRow<T>*>(st.one_lower.p);
  auto* upper = static_cast<ReducedRow<T>*>(st.one_upper.p);
  T* y = static_cast<T*>(st.one_y.p);
  T* y_lower = static_cast<T*>(st.one_y_lower.p);
  const auto n = static_cast<std::size_t>(size);
  const bool has_lower = c.position > 0, has_upper = c.position + 1 < c.ranks;
  one_row_first_kernel<T>
      <<<blocks_for(size), threads_per_block, 0, stream>>>(pairs, first_unknowns, size);
  TRIAX_CUDA_CHECK_LAUNCH();
  TRIAX_NCCL_CHECK(ncclGroupStart());
  if (has_lower) {
    TRIAX_NCCL_CHECK(
        ncclSend(first_unknowns, 3 * n, nccl_type<T>(), c.position - 1, st.comm, stream));
  }
  if (has_upper) {
    TRIAX_NCCL_CHECK(ncclRecv(first_up, 3 * n, nccl_type<T>(), c.position + 1, st.comm, stream));
  }
  TRIAX_NCCL_CHECK(ncclGroupEnd());
  one_row_form_kernel<T><<<blocks_for(size), threads_per_block, 0, stream>>>(
      pairs, first_unknowns, first_up, has_upper, rows, size);
  TRIAX_CUDA_CHECK_LAUNCH();
  for (int distance = 1; distance < c.ranks; distance *= 2) {
    const bool below = c.position - distance >= 0, above = c.position + distance < c.ranks;
    TRIAX_NCCL_CHECK(ncclGroupStart());
    if (below) {
      TRIAX_NCCL_CHECK(
          ncclSend(rows, 4 * n, nccl_type<T>(), c.position - distance, st.comm, stream));
      TRIAX_NCCL_CHECK(
          ncclRecv(lower, 4 * n, nccl_type<T>(), c.position - distance, st.comm, stream));
    }
    if (above) {
      TRIAX_NCCL_CHECK(
          ncclSend(rows, 4 * n, nccl_type<T>(), c.position + distance, st.comm, stream));
      TRIAX_NCCL_CHECK(
          ncclRecv(upper, 4 * n, nccl_type<T>(), c.position + distance, st.comm, stream));
    }
    TRIAX_NCCL_CHECK(ncclGroupEnd());
    one_row_pcr_kernel<T><<<blocks_for(size), threads_per_block, 0, stream>>>(rows, lower, upper,
                                                                              below, above, size);
    TRIAX_CUDA_CHECK_LAUNCH();
  }
  one_row_last_kernel<T><<<blocks_for(size), threads_per_block, 0, stream>>>(rows, y, size);
  TRIAX_CUDA_CHECK_LAUNCH();
  TRIAX_NCCL_CHECK(ncclGroupStart());
  if (has_upper) {
    TRIAX_NCCL_CHECK(ncclSend(y, n, nccl_type<T>(), c.position + 1, st.comm, stream));
  }
  if (has_lower) {
    TRIAX_NCCL_CHECK(ncclRecv(y_lower, n, nccl_type<T>(), c.position - 1, st.comm, stream));
  }
  TRIAX_NCCL_CHECK(ncclGroupEnd());
  one_row_ends_kernel<T><<<blocks_for(size), threads_per_block, 0, stream>>>(
      first_unknowns, y, y_lower, has_lower, st.ends_ptr(), first, size);
  TRIAX_CUDA_CHECK_LAUNCH();
#else
  (void)first;
  (void)size;
  throw triax::invalid_argument("triax::mpi::Solver: built without NCCL");
#endif
}

template <class T>
bool GpuPath<T>::has_side_stream() const {
  return state_->side.s != nullptr;
}

template <class T>
void GpuPath<T>::solve_reduced_beside(std::int64_t first, std::int64_t size) {
  State& st = *state_;
  // The rows of this batch (and everything before them on the caller's stream) first. The
  // side stream runs the batches' reduced solves in order, so their shared buffers (gathered,
  // scattered, the PCR rows) are never in use twice at once, as on one stream.
  TRIAX_CUDA_CHECK(cudaEventRecord(st.rows_ready.e, st.stream));
  TRIAX_CUDA_CHECK(cudaStreamWaitEvent(st.side.s, st.rows_ready.e, 0));
  st.reduced_stream = st.side.s;
  try {
    solve_reduced_on_device(first, size);
  } catch (...) {
    st.reduced_stream = st.stream;
    throw;
  }
  st.reduced_stream = st.stream;
  TRIAX_CUDA_CHECK(cudaEventRecord(st.ends_ready.e, st.side.s));
}

template <class T>
void GpuPath<T>::wait_ends() {
  // The join: the last batch's back substitution waits here for the last of the side stream's
  // work, so the caller's stream sees the whole solve complete after it.
  TRIAX_CUDA_CHECK(cudaStreamWaitEvent(state_->stream, state_->ends_ready.e, 0));
}

template <class T>
void GpuPath<T>::finish(const Problem& p, const Operands<T>& ops, std::int64_t first,
                        std::int64_t size, std::int64_t first_row) {
  State& st = *state_;
  std::int64_t* bad = st.config.checked ? st.bad_ptr() : nullptr;
  if (rows_contiguous(p, {op_x})) {
    finish_contiguous_kernel<T><<<tiled_blocks_for(size), 32 * tile_warps, 0, st.stream>>>(
        p, ops, st.work_ptr(), st.ends_ptr(), bad, first_row, first, size);
  } else {
    finish_kernel<T><<<blocks_for(size), threads_per_block, 0, st.stream>>>(
        p, ops, st.work_ptr(), st.ends_ptr(), bad, first_row, first, size);
  }
  TRIAX_CUDA_CHECK_LAUNCH();
}

template <class T>
void GpuPath<T>::report_info(int* info, bool unconverged) {
  State& st = *state_;
  const std::int64_t count = st.config.problem.count;
  if (st.config.nccl) {
#if defined(TRIAX_HAS_NCCL)
    TRIAX_NCCL_CHECK(ncclAllReduce(st.bad_ptr(), st.bad_ptr(), static_cast<std::size_t>(count),
                                   ncclInt64, ncclMin, st.comm, st.stream));
#endif
  } else {
    auto* host = static_cast<std::int64_t*>(st.host_bad_rows.p);
    const std::size_t bytes = static_cast<std::size_t>(count) * sizeof(std::int64_t);
    TRIAX_CUDA_CHECK(cudaMemcpyAsync(host, st.bad_ptr(), bytes, cudaMemcpyDeviceToHost, st.stream));
    TRIAX_CUDA_CHECK(cudaStreamSynchronize(st.stream));
    TRIAX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, host, static_cast<int>(count), MPI_INT64_T, MPI_MIN,
                                  st.config.line));
    TRIAX_CUDA_CHECK(cudaMemcpyAsync(st.bad_ptr(), host, bytes, cudaMemcpyHostToDevice, st.stream));
  }
  info_kernel<<<blocks_for(count), threads_per_block, 0, st.stream>>>(st.bad_ptr(), info, count,
                                                                      unconverged);
  TRIAX_CUDA_CHECK_LAUNCH();
}

template <class T>
void GpuPath<T>::synchronize() {
  TRIAX_CUDA_CHECK(cudaStreamSynchronize(state_->stream));
  if (state_->side.s) TRIAX_CUDA_CHECK(cudaStreamSynchronize(state_->side.s));
}

template class GpuPath<float>;
template class GpuPath<double>;

void synchronize_stream(void* stream) {
  TRIAX_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
}

bool nccl_built() {
#if defined(TRIAX_HAS_NCCL)
  return true;
#else
  return false;
#endif
}

bool one_gpu_per_rank(MPI_Comm line, int* clash) {
  // Ranks on one node (a shared-memory communicator) compare their devices' PCI addresses.
  MPI_Comm node = MPI_COMM_NULL;
  TRIAX_MPI_CHECK(MPI_Comm_split_type(line, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int device = 0;
  TRIAX_CUDA_CHECK(cudaGetDevice(&device));
  char bus[32] = {};
  TRIAX_CUDA_CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, device));
  int size = 0, me = 0;
  MPI_Comm_size(node, &size);
  MPI_Comm_rank(line, &me);
  std::vector<char> all(static_cast<std::size_t>(size) * sizeof bus);
  const int gathered =
      MPI_Allgather(bus, sizeof bus, MPI_CHAR, all.data(), sizeof bus, MPI_CHAR, node);
  MPI_Comm_free(&node);
  TRIAX_MPI_CHECK(gathered);
  int shares = 0;
  for (int q = 0; q < size; ++q) {
    if (std::strncmp(all.data() + q * sizeof bus, bus, sizeof bus) == 0) ++shares;
  }
  // The lowest line position of a rank that shares its GPU, agreed over the line.
  int mine = shares > 1 ? me : INT_MAX;
  TRIAX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &mine, 1, MPI_INT, MPI_MIN, line));
  *clash = mine == INT_MAX ? -1 : mine;
  return mine == INT_MAX;
}

bool mpi_is_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

}  // namespace triax::detail
