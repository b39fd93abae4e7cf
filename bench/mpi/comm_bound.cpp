#include "comm_bound.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "dist/mpi_transport.hpp"
#include "dist/reduced_methods.hpp"
#include "nccl_line.hpp"

#if defined(TRIAX_HAS_CUDA)
#include <cuda_runtime.h>
#endif

namespace triax::bench::mpi {
namespace {

using triax::detail::Scalar;
using triax::detail::Transport;
using triax::mpi::Method;

enum class Where { host, pinned, device };

#if defined(TRIAX_HAS_CUDA)
void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
#endif

/// Bytes where the solve keeps the same buffer (host, pinned or device), freed with the object.
struct Memory {
  void* p = nullptr;
  Where where = Where::host;
  Memory(std::size_t bytes, Where w) : where(w) {
    bytes = std::max<std::size_t>(bytes, 64);
#if defined(TRIAX_HAS_CUDA)
    if (w == Where::pinned) cuda_ok(cudaMallocHost(&p, bytes), "cudaMallocHost");
    if (w == Where::device) cuda_ok(cudaMalloc(&p, bytes), "cudaMalloc");
#endif
    if (w == Where::host) p = std::calloc(bytes, 1);
    if (!p) throw std::runtime_error("--bound: cannot allocate the message buffers");
  }
  ~Memory() {
#if defined(TRIAX_HAS_CUDA)
    if (where == Where::pinned) cudaFreeHost(p);
    if (where == Where::device) cudaFree(p);
#endif
    if (where == Where::host) std::free(p);
  }
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;
};

}  // namespace

template <class T>
struct CommBound<T>::State {
  CommBoundSetup setup;
  Transport* transport = nullptr;  // the CommLine's
  int ranks = 1, position = 0;
  std::int64_t largest = 0;  // systems of the first (largest) batch
  bool staging = false, nccl = false;
  // Values of T: the rows (8 a system) and ends (2), where the solve's methods read and write
  // them; gather-scatter's and allgather's gathered rows and scattered ends; the neighbour
  // messages' send and receive buffers (PCR, Jacobi, the one-row form).
  std::unique_ptr<Memory> rows, ends, gathered, scattered, send, send2, lower, upper;
  // Host staging: the rows and ends on the device, copied as the plan copies them.
  std::unique_ptr<Memory> device_rows, device_ends;
  // Gather-scatter's all-to-all counts, set per batch as the plan's (the buffers are sized for
  // its method, none for the others).
  std::unique_ptr<triax::detail::ReducedBuffers<T>> counts;

  std::int64_t batch_start(std::int64_t b) const {  // as the plan's batch_start
    const std::int64_t n = setup.count, k = std::max<std::int64_t>(1, setup.batches);
    return b == 0 ? 0 : n - (n * (k - b)) / k;
  }

  // One batch of `n` systems: the method's messages in its order, nothing computed between.
  void messages(std::int64_t n) {
    Transport& t = *transport;
    const Scalar type = triax::detail::scalar_of<T>();
    const auto neighbours = [&](int distance, std::int64_t values, bool two_sends) {
      t.exchange(distance, send->p, lower->p, two_sends ? send2->p : send->p, upper->p, values,
                 type);
    };
    if (setup.one_row) {
      // one_row_methods.hpp: row 0 down, the one-row system's PCR steps or Jacobi's
      // iterations, the last unknowns up. (The NCCL path sends the first and the last of these
      // one way only; here both ways, as the host methods.)
      neighbours(1, 3 * n, false);
      if (setup.method == Method::jacobi) {
        double change_and_scale[2] = {0, 0};
        for (int i = 0; i < setup.jacobi_iterations; ++i) neighbours(1, n, false);
        t.max_in_place(change_and_scale, 2);
      } else {
        for (int d = 1; d < ranks; d *= 2) neighbours(d, 4 * n, false);
      }
      neighbours(1, n, false);
      return;
    }
    switch (setup.method) {
      case Method::allgather:
        t.allgather(rows->p, gathered->p, 8 * n, type);
        break;
      case Method::gather_scatter: {
        triax::detail::ReducedBuffers<T>& c = *counts;
        c.set_gather_scatter_counts(ranks, position, n);
        t.all_to_all(rows->p, c.rows_out_counts.data(), c.rows_out_offsets.data(), gathered->p,
                     c.rows_in_counts.data(), c.rows_in_offsets.data(), type);
        t.all_to_all(scattered->p, c.ends_out_counts.data(), c.ends_out_offsets.data(), ends->p,
                     c.ends_in_counts.data(), c.ends_in_offsets.data(), type);
        break;
      }
      case Method::pcr:
        neighbours(1, 8 * n, false);
        for (int d = 1; d < ranks; d *= 2) neighbours(d, 8 * n, false);
        break;
      case Method::jacobi: {
        // A fixed count (the bench turns the convergence check off): one max at the end.
        double change_and_scale[2] = {0, 0};
        for (int i = 0; i < setup.jacobi_iterations; ++i) neighbours(1, n, true);
        t.max_in_place(change_and_scale, 2);
        break;
      }
      case Method::automatic:
        throw std::logic_error("CommBound: the method must be resolved (Solver::method())");
    }
  }

  void run() {
    const std::int64_t batches = std::max<std::int64_t>(1, std::min(setup.batches, setup.count));
    for (std::int64_t b = 0; b < batches; ++b) {
      const std::int64_t n = batch_start(b + 1) - batch_start(b);
#if defined(TRIAX_HAS_CUDA)
      const auto stream = static_cast<cudaStream_t>(setup.stream);
      if (staging) {
        // rows_to_host: the copy and a wait for it.
        cuda_ok(cudaMemcpyAsync(rows->p, device_rows->p, 8 * n * sizeof(T), cudaMemcpyDeviceToHost,
                                stream),
                "cudaMemcpyAsync");
        cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      }
#endif
      messages(n);
#if defined(TRIAX_HAS_CUDA)
      if (staging) {
        // ends_to_device: queued; the solve's end waits for the stream.
        cuda_ok(cudaMemcpyAsync(device_ends->p, ends->p, 2 * n * sizeof(T), cudaMemcpyHostToDevice,
                                stream),
                "cudaMemcpyAsync");
      }
#endif
    }
#if defined(TRIAX_HAS_CUDA)
    if (setup.gpu) {
      cuda_ok(cudaStreamSynchronize(static_cast<cudaStream_t>(setup.stream)),
              "cudaStreamSynchronize");
    }
#endif
  }
};

CommLine::CommLine(MPI_Comm cart, int axis, bool nccl, void* stream) {
  int dims = 0;
  MPI_Cartdim_get(cart, &dims);
  std::vector<int> keep(static_cast<std::size_t>(dims), 0);
  keep[static_cast<std::size_t>(axis)] = 1;
  MPI_Comm line = MPI_COMM_NULL;
  MPI_Cart_sub(cart, keep.data(), &line);
  if (nccl) {
    line_ = line;
    transport_ = make_nccl_line(line, stream);
  } else {
    transport_ = std::make_unique<triax::detail::MpiTransport>(line);  // owns line
  }
}

CommLine::~CommLine() {
  transport_.reset();
  if (line_ != MPI_COMM_NULL) MPI_Comm_free(&line_);
}

template <class T>
CommBound<T>::CommBound(CommLine& line, const CommBoundSetup& setup)
    : state_(std::make_unique<State>()) {
  State& st = *state_;
  st.setup = setup;
  st.nccl = setup.gpu && setup.transport == triax::mpi::Transport::nccl;
  st.staging = setup.gpu && !st.nccl;
  st.transport = &line.transport();
  st.ranks = st.transport->size();
  st.position = st.transport->position();
  st.largest = st.batch_start(1);
  const auto values = [](std::int64_t v) { return static_cast<std::size_t>(v) * sizeof(T); };
  const std::int64_t n = st.largest, p = st.ranks, group = (n + p - 1) / p;
  // Where the solve keeps the rows and ends: the device (NCCL), pinned memory (staging) or the
  // heap (CPU ranks); the methods' own buffers on the device (NCCL) or the heap.
  const Where ends_at = st.nccl ? Where::device : st.staging ? Where::pinned : Where::host;
  const Where work_at = st.nccl ? Where::device : Where::host;
  const bool gathers = setup.method == Method::allgather && !setup.one_row;
  const bool scatters = setup.method == Method::gather_scatter && !setup.one_row;
  st.rows = std::make_unique<Memory>(values(8 * n), ends_at);
  st.ends = std::make_unique<Memory>(values(2 * n), ends_at);
  st.gathered = std::make_unique<Memory>(values(gathers    ? 8 * p * n
                                                : scatters ? 8 * p * group
                                                           : 0),
                                         work_at);
  st.scattered = std::make_unique<Memory>(values(scatters ? 2 * p * group : 0), work_at);
  const std::int64_t neighbour = gathers || scatters ? 0 : 8 * n;
  for (auto* m : {&st.send, &st.send2, &st.lower, &st.upper}) {
    *m = std::make_unique<Memory>(values(neighbour), work_at);
  }
  if (st.staging) {
    st.device_rows = std::make_unique<Memory>(values(8 * n), Where::device);
    st.device_ends = std::make_unique<Memory>(values(2 * n), Where::device);
  }
  st.counts = std::make_unique<triax::detail::ReducedBuffers<T>>(Method::automatic, st.ranks, n);
  if (scatters) st.counts->size_gather_scatter(st.ranks, n);
}

template <class T>
CommBound<T>::~CommBound() = default;

template <class T>
void CommBound<T>::run() {
  state_->run();
}

template class CommBound<float>;
template class CommBound<double>;

}  // namespace triax::bench::mpi
