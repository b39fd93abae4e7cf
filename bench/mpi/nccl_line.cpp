#include "nccl_line.hpp"

#include <stdexcept>
#include <string>

#if defined(TRIAX_BENCH_HAS_NCCL)
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstring>
#endif

namespace triax::bench::mpi {

#if defined(TRIAX_BENCH_HAS_NCCL)
namespace {

using triax::detail::Scalar;

void nccl_ok(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw std::runtime_error(std::string(what) + ": " + ncclGetErrorString(r));
}

void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

ncclDataType_t nccl_type(Scalar type) {
  return type == Scalar::f32 ? ncclFloat : type == Scalar::f64 ? ncclDouble : ncclInt64;
}

std::size_t value_bytes(Scalar type) { return type == Scalar::f32 ? 4 : 8; }

class NcclLine final : public triax::detail::Transport {
 public:
  NcclLine(MPI_Comm line, void* stream) : stream_(static_cast<cudaStream_t>(stream)) {
    MPI_Comm_size(line, &size_);
    MPI_Comm_rank(line, &position_);
    // As the plan: position 0 makes the id, MPI carries it along the line.
    ncclUniqueId id;
    std::memset(&id, 0, sizeof id);
    if (position_ == 0) nccl_ok(ncclGetUniqueId(&id), "ncclGetUniqueId");
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, line);
    nccl_ok(ncclCommInitRank(&comm_, size_, id, position_), "ncclCommInitRank");
  }
  ~NcclLine() override {
    cudaStreamSynchronize(stream_);
    ncclCommDestroy(comm_);
  }
  NcclLine(const NcclLine&) = delete;
  NcclLine& operator=(const NcclLine&) = delete;

  int size() const override { return size_; }
  int position() const override { return position_; }

  void start_allgather(const void* sent, void* received, std::int64_t count, Scalar type) override {
    nccl_ok(ncclAllGather(sent, received, static_cast<std::size_t>(count), nccl_type(type), comm_,
                          stream_),
            "ncclAllGather");
  }

  // As gather-scatter's all-to-alls on NCCL: point-to-point in a group, this position's own
  // share by a device copy.
  void start_all_to_all(const void* sent, const std::int64_t* send_counts,
                        const std::int64_t* send_offsets, void* received,
                        const std::int64_t* receive_counts, const std::int64_t* receive_offsets,
                        Scalar type) override {
    const std::size_t v = value_bytes(type);
    const auto* out = static_cast<const char*>(sent);
    auto* in = static_cast<char*>(received);
    nccl_ok(ncclGroupStart(), "ncclGroupStart");
    for (int q = 0; q < size_; ++q) {
      if (q == position_) continue;
      if (send_counts[q] > 0) {
        nccl_ok(ncclSend(out + send_offsets[q] * v, static_cast<std::size_t>(send_counts[q]),
                         nccl_type(type), q, comm_, stream_),
                "ncclSend");
      }
      if (receive_counts[q] > 0) {
        nccl_ok(ncclRecv(in + receive_offsets[q] * v, static_cast<std::size_t>(receive_counts[q]),
                         nccl_type(type), q, comm_, stream_),
                "ncclRecv");
      }
    }
    nccl_ok(ncclGroupEnd(), "ncclGroupEnd");
    const int me = position_;
    if (send_counts[me] > 0) {
      cuda_ok(cudaMemcpyAsync(in + receive_offsets[me] * v, out + send_offsets[me] * v,
                              static_cast<std::size_t>(send_counts[me]) * v,
                              cudaMemcpyDeviceToDevice, stream_),
              "cudaMemcpyAsync");
    }
  }

  void start_exchange(int distance, const void* send_lower, void* receive_lower,
                      const void* send_upper, void* receive_upper, std::int64_t count,
                      Scalar type) override {
    const auto n = static_cast<std::size_t>(count);
    nccl_ok(ncclGroupStart(), "ncclGroupStart");
    if (position_ - distance >= 0) {
      nccl_ok(ncclSend(send_lower, n, nccl_type(type), position_ - distance, comm_, stream_),
              "ncclSend");
      nccl_ok(ncclRecv(receive_lower, n, nccl_type(type), position_ - distance, comm_, stream_),
              "ncclRecv");
    }
    if (position_ + distance < size_) {
      nccl_ok(ncclSend(send_upper, n, nccl_type(type), position_ + distance, comm_, stream_),
              "ncclSend");
      nccl_ok(ncclRecv(receive_upper, n, nccl_type(type), position_ + distance, comm_, stream_),
              "ncclRecv");
    }
    nccl_ok(ncclGroupEnd(), "ncclGroupEnd");
  }

  void finish() override {}  // stream-ordered (nccl_line.hpp)

  // No method on NCCL reduces over the line (Jacobi is refused there).
  void max_in_place(double*, int) override {
    throw std::logic_error("NcclLine: no max_in_place on the NCCL transport");
  }
  void min_in_place(std::int64_t*, std::int64_t) override {
    throw std::logic_error("NcclLine: no min_in_place on the NCCL transport");
  }

 private:
  cudaStream_t stream_;
  ncclComm_t comm_ = nullptr;
  int size_ = 1, position_ = 0;
};

}  // namespace

std::unique_ptr<triax::detail::Transport> make_nccl_line(MPI_Comm line, void* stream) {
  return std::make_unique<NcclLine>(line, stream);
}
#else
std::unique_ptr<triax::detail::Transport> make_nccl_line(MPI_Comm, void*) {
  throw std::runtime_error("--bound: triax-bench-mpi was built without NCCL");
}
#endif

}  // namespace triax::bench::mpi
