// GPU ranks of triax::mpi: the kernels of the local passes, the device buffers of a plan, host
// staging's copies and the NCCL reduced solves (gpu_path.hpp says what each step does).
#include "dist/gpu/gpu_path.hpp"

#include <cuda_runtime.h>

#include <climits>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "cuda/cuda_check.hpp"
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
// i * count + s, so that consecutive threads touch consecutive addresses.
template <class T>
__global__ void reduce_kernel(Problem p, Operands<T> ops, PiecePlace place, T* work,
                              ReducedPair<T>* rows, std::int64_t first, std::int64_t size) {
  const std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (i >= size) return;
  const std::int64_t s = first + i, all = p.count * p.n;
  const StridedPieceWork<T> w{
      {work + s, p.count}, {work + all + s, p.count}, {work + 2 * all + s, p.count}};
  rows[s] = reduce_piece(p, ops, s, place, w);
}

template <class T>
__global__ void finish_kernel(Problem p, Operands<T> ops, const T* work, const T* ends,
                              std::int64_t* bad_rows, std::int64_t first_row, std::int64_t first,
                              std::int64_t size) {
  const std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (i >= size) return;
  const std::int64_t s = first + i, all = p.count * p.n;
  // finish_piece only reads the workspace; the strided view wants a mutable pointer.
  T* base = const_cast<T*>(work);
  const StridedPieceWork<T> w{
      {base + s, p.count}, {base + all + s, p.count}, {base + 2 * all + s, p.count}};
  const std::int64_t bad = finish_piece(p, ops, s, w, ends[2 * s], ends[2 * s + 1]);
  if (bad_rows) bad_rows[s] = bad < 0 ? no_bad_row : first_row + bad;
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

}  // namespace

template <class T>
struct GpuPath<T>::State {
  GpuPathConfig config;
  cudaStream_t stream;
  std::size_t count;
  DeviceBuffer work, rows, ends, bad_rows;
  PinnedBuffer host_rows, host_ends, host_bad_rows;
  // NCCL: allgather's gathered rows, or PCR's working rows and the neighbours' rows.
  DeviceBuffer gathered, pcr_rows, receive_lower, receive_upper;
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
        gathered(c.nccl && c.method == triax::mpi::Method::allgather
                     ? static_cast<std::size_t>(c.ranks) *
                           static_cast<std::size_t>(c.largest_batch) * sizeof(ReducedPair<T>)
                     : 0),
        pcr_rows(pcr_bytes(c)),
        receive_lower(pcr_bytes(c)),
        receive_upper(pcr_bytes(c)) {
    if (c.nccl) init_nccl();
  }

  static std::size_t pcr_bytes(const GpuPathConfig& c) {
    return c.nccl && c.method == triax::mpi::Method::pcr
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
      // The plan may go while its last solve is queued: let the stream drain first.
      TRIAX_CUDA_CHECK_NOTHROW(cudaStreamSynchronize(stream));
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
  reduce_kernel<T><<<blocks_for(size), threads_per_block, 0, st.stream>>>(
      p, ops, st.config.place, st.work_ptr(), st.rows_ptr(), first, size);
  TRIAX_CUDA_CHECK_LAUNCH();
}

template <class T>
void GpuPath<T>::rows_to_host(std::int64_t first, std::int64_t size) {
  State& st = *state_;
  TRIAX_CUDA_CHECK(cudaMemcpyAsync(host_rows() + first, st.rows_ptr() + first,
                                   static_cast<std::size_t>(size) * sizeof(ReducedPair<T>),
                                   cudaMemcpyDeviceToHost, st.stream));
  TRIAX_CUDA_CHECK(cudaStreamSynchronize(st.stream));
}

template <class T>
void GpuPath<T>::ends_to_device(std::int64_t first, std::int64_t size) {
  State& st = *state_;
  // Pinned source: the copy is queued, and the host buffer is not written again before the
  // next batch's or solve's stream synchronisation (rows_to_host) has seen it done.
  TRIAX_CUDA_CHECK(cudaMemcpyAsync(st.ends_ptr() + 2 * first, host_ends() + 2 * first,
                                   2 * static_cast<std::size_t>(size) * sizeof(T),
                                   cudaMemcpyHostToDevice, st.stream));
}

template <class T>
void GpuPath<T>::solve_reduced_on_device(std::int64_t first, std::int64_t size) {
#if defined(TRIAX_HAS_NCCL)
  State& st = *state_;
  const GpuPathConfig& c = st.config;
  ReducedPair<T>* rows = st.rows_ptr() + first;
  const std::size_t values = 8 * static_cast<std::size_t>(size);  // 8 per pair
  if (c.method == triax::mpi::Method::allgather) {
    auto* gathered = static_cast<ReducedPair<T>*>(st.gathered.p);
    TRIAX_NCCL_CHECK(ncclAllGather(rows, gathered, values, nccl_type<T>(), st.comm, st.stream));
    allgather_solve_kernel<T><<<blocks_for(size), threads_per_block, 0, st.stream>>>(
        gathered, c.ranks, c.position, st.ends_ptr(), first, size);
    TRIAX_CUDA_CHECK_LAUNCH();
    return;
  }
  // PCR: the first step pairs each row with its neighbours' nearest rows, every later one (t =
  // 1, 2, 4, ... < P) with both rows of the ranks t away.
  auto* w = static_cast<ReducedPair<T>*>(st.pcr_rows.p);
  auto* lower = static_cast<ReducedPair<T>*>(st.receive_lower.p);
  auto* upper = static_cast<ReducedPair<T>*>(st.receive_upper.p);
  TRIAX_CUDA_CHECK(cudaMemcpyAsync(w, rows, static_cast<std::size_t>(size) * sizeof(ReducedPair<T>),
                                   cudaMemcpyDeviceToDevice, st.stream));
  const auto step = [&](int distance, bool first_step) {
    const bool has_lower = c.position - distance >= 0;
    const bool has_upper = c.position + distance < c.ranks;
    TRIAX_NCCL_CHECK(ncclGroupStart());
    if (has_lower) {
      TRIAX_NCCL_CHECK(
          ncclSend(w, values, nccl_type<T>(), c.position - distance, st.comm, st.stream));
      TRIAX_NCCL_CHECK(
          ncclRecv(lower, values, nccl_type<T>(), c.position - distance, st.comm, st.stream));
    }
    if (has_upper) {
      TRIAX_NCCL_CHECK(
          ncclSend(w, values, nccl_type<T>(), c.position + distance, st.comm, st.stream));
      TRIAX_NCCL_CHECK(
          ncclRecv(upper, values, nccl_type<T>(), c.position + distance, st.comm, st.stream));
    }
    TRIAX_NCCL_CHECK(ncclGroupEnd());
    pcr_step_kernel<T><<<blocks_for(size), threads_per_block, 0, st.stream>>>(
        w, lower, upper, has_lower, has_upper, first_step, size);
    TRIAX_CUDA_CHECK_LAUNCH();
  };
  step(1, true);
  for (int distance = 1; distance < c.ranks; distance *= 2) step(distance, false);
  pcr_ends_kernel<T>
      <<<blocks_for(size), threads_per_block, 0, st.stream>>>(w, st.ends_ptr(), first, size);
  TRIAX_CUDA_CHECK_LAUNCH();
#else
  (void)first;
  (void)size;
  throw triax::invalid_argument("triax::mpi::Solver: built without NCCL");
#endif
}

template <class T>
void GpuPath<T>::finish(const Problem& p, const Operands<T>& ops, std::int64_t first,
                        std::int64_t size, std::int64_t first_row) {
  State& st = *state_;
  finish_kernel<T><<<blocks_for(size), threads_per_block, 0, st.stream>>>(
      p, ops, st.work_ptr(), st.ends_ptr(), st.config.checked ? st.bad_ptr() : nullptr, first_row,
      first, size);
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
