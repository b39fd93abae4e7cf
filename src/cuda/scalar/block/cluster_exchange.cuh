#pragma once
// How the C blocks of a thread-block cluster hand each other the equations of their share of a
// group's systems (reduced_solve.cuh, solve_reduced_in_cluster). Two ways:
//
// - push (the register and the pipelined kernel): every block writes its records into every
//   block's shared memory with st.async, whose arrival each receiving block counts on an
//   mbarrier of its own, and reads what it received locally. The transaction count needs no fence:
//   the receiver sees the data once the bytes it expects have landed. The only cluster barrier is
//   relaxed: a block arrives once its mbarrier exists (cluster_exchange_open, at the kernel's
//   start) and waits just before its first send. No block reads another's shared memory, so none
//   waits at its exit.
// - pull (the staged kernel): every block keeps its records, and after cluster.sync() every block
//   reads the others'; a second cluster barrier keeps each block's shared memory alive until the
//   others are done reading it.
//
// A barrier.cluster.arrive with release semantics (what cluster.sync() and barrier_arrive()
// emit) compiles to MEMBAR.ALL.GPU, a fence that waits for the memory system at GPU scope, and
// for every load the thread has in flight, cp.async copies included (a probe on the H100: 3464-
// 3702 cycles with copies in flight, against 365-741 for a relaxed arrive and wait). A kernel
// that streams its next group in while it solves this one would drain its pipeline at every
// such barrier; the pipelined kernel pushes, and keeps two sets of records and mbarriers, since
// a block may receive group i + 1's records before it has read group i's.
// Nsight Compute put 13% of the double register kernel's stall samples at n = 2048 on the two
// such fences of each block; pushing took it from 68 to 75% of the copy there, and from 76 to 85%
// at n = 1024. The float staged kernel lost with push (75.8 -> 69.1% at n = 1024, 72 -> 68-70 at
// n = 2048) in every form tried (records in b's dead space or their own, the exchange opened at
// the start or after the sweep, one waiting warp or all, a relaxed barrier at exit or none), for
// reasons not found: docs/algorithms.md, "Cluster exchange".
#include <cuda_runtime.h>

#include <cstdint>

namespace triax::detail::cuda {

/// How the blocks of a cluster exchange their equations (none: one block per group of systems).
enum class Exchange { none, pull, push };

/// Values one block sends per system: its first and its last equation (sub, diag, sup, rhs).
constexpr int cluster_record = 8;

/// Elements of T in 16 bytes: the exchange's pieces start at multiples of 16 bytes, which the
/// kernels' layouts keep by rounding offsets up to a multiple of this.
template <class T>
__host__ __device__ constexpr int cluster_align() {
  return 16 / static_cast<int>(sizeof(T));
}
template <class T>
__host__ __device__ constexpr int cluster_round_up(int elements) {
  return (elements + cluster_align<T>() - 1) / cluster_align<T>() * cluster_align<T>();
}

/// Elements of T for the mbarrier (16 bytes) and the two end values of each system, rounded to
/// 16 bytes: the space that is the block's own from the kernel's start.
template <class T>
__host__ __device__ constexpr int cluster_exchange_size(int S) {
  return cluster_align<T>() + cluster_round_up<T>(2 * S);
}

/// Elements of T for the records of all C blocks for S systems: written by the other blocks
/// from the moment every block has opened the exchange, so a kernel may put them in space it
/// no longer needs by then.
template <class T>
__host__ __device__ constexpr int cluster_records_size(int S, int C) {
  return cluster_record * S * C;
}

/// The exchange space of one block. Its pointers derive from the kernel's shared memory by
/// element offsets only, so that the compiler keeps shared-memory loads (LDS, not generic ones).
template <class T>
struct ClusterExchange {
  std::uint64_t* barrier;  // counts the bytes of the records received
  T* ends;                 // [2S]: Y_f, Y_l of each system
  T* records;              // [S][C][cluster_record]: system q, sending block c
  int S, C;
  unsigned parity = 0;     // the phase of `barrier` this exchange waits for (a kernel that
                           // exchanges again on the same barrier alternates it)
  bool wait_ready = true;  // whether the first send waits for the cluster (cluster_exchange_ready);
                           // false where the kernel waited once before its first exchange

  /// `space`: cluster_exchange_size(S) elements; `records`: cluster_records_size(S, C); both
  /// 16-byte aligned.
  __device__ static ClusterExchange make(T* space, T* records, int S, int C) {
    ClusterExchange e{};
    e.barrier = reinterpret_cast<std::uint64_t*>(space);
    e.ends = space + cluster_align<T>();
    e.records = records;
    e.S = S;
    e.C = C;
    return e;
  }
  __device__ int record(int q, int c) const { return (q * C + c) * cluster_record; }
  __device__ unsigned bytes_expected() const {
    return static_cast<unsigned>(cluster_record * S * C * sizeof(T));
  }
};

// Thread-block clusters, mapa and st.async exist from sm_90 on; the host launches clustered kernels
// only on devices that have them, and builds for older ones keep these functions as traps.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define TRIAX_CLUSTER_ASM(...) __trap()
#else
#define TRIAX_CLUSTER_ASM(...) asm volatile(__VA_ARGS__)
#endif

__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

/// The address of the same shared-memory location in block `rank` of the cluster.
__device__ __forceinline__ unsigned cluster_address(unsigned local, unsigned rank) {
  unsigned remote = 0;
  TRIAX_CLUSTER_ASM("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank));
  return remote;
}

/// Every thread, once, before the other blocks may send (from then on they may write the records
/// any time): thread 0 initialises the block's mbarrier (one arrival: its own, with the bytes
/// expected), then every thread arrives at the cluster barrier, relaxed.
template <class T>
__device__ __forceinline__ void cluster_exchange_open(const ClusterExchange<T>& e,
                                                      std::uint64_t* second = nullptr) {
  if (threadIdx.x == 0) {
    TRIAX_CLUSTER_ASM("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(e.barrier))
                      : "memory");
    if (second != nullptr) {
      TRIAX_CLUSTER_ASM("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(second))
                        : "memory");
    }
    TRIAX_CLUSTER_ASM("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  TRIAX_CLUSTER_ASM("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}

/// Every thread, once, before any thread of the block sends: the other blocks' mbarriers exist.
__device__ __forceinline__ void cluster_exchange_ready() {
  TRIAX_CLUSTER_ASM("barrier.cluster.wait.aligned;" ::: "memory");
}

/// Four values into record slot `slot` of block `rank`, counted on that block's mbarrier.
__device__ __forceinline__ void send4(float* slot, unsigned rank, const float* barrier, float v0,
                                      float v1, float v2, float v3) {
  const unsigned dst = cluster_address(shared_address(slot), rank);
  const unsigned bar = cluster_address(shared_address(barrier), rank);
  TRIAX_CLUSTER_ASM(
      "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%0], {%1, %2, %3, %4}, "
      "[%5];" ::"r"(dst),
      "f"(v0), "f"(v1), "f"(v2), "f"(v3), "r"(bar)
      : "memory");
}
__device__ __forceinline__ void send4(double* slot, unsigned rank, const double* barrier, double v0,
                                      double v1, double v2, double v3) {
  const unsigned dst = cluster_address(shared_address(slot), rank);
  const unsigned bar = cluster_address(shared_address(barrier), rank);
  TRIAX_CLUSTER_ASM(
      "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f64 [%0], {%1, %2}, [%3];" ::"r"(
          dst),
      "d"(v0), "d"(v1), "r"(bar)
      : "memory");
  TRIAX_CLUSTER_ASM(
      "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f64 [%0], {%1, %2}, [%3];" ::"r"(
          dst + 16),
      "d"(v2), "d"(v3), "r"(bar)
      : "memory");
}

/// Thread 0 announces the bytes its block will receive (its mbarrier's one arrival); then the
/// calling threads (warp 0 among them) wait until they have landed.
template <class T>
__device__ __forceinline__ void cluster_exchange_receive(const ClusterExchange<T>& e) {
  const unsigned bar = shared_address(e.barrier);
  if (threadIdx.x == 0) {
    TRIAX_CLUSTER_ASM("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
                      "r"(e.bytes_expected())
                      : "memory");
  }
  unsigned done = 0;
  while (!done) {
    TRIAX_CLUSTER_ASM(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, "
        "0, p; }"
        : "=r"(done)
        : "r"(bar), "r"(e.parity)
        : "memory");
  }
}

/// The last step of a clustered block. Pulled: wait until every block of the cluster is done
/// reading the others' shared memory (solve_reduced_in_cluster arrives once it is). Pushed:
/// nothing, since no block reads another's shared memory and each has received all it waits for.
template <Exchange E>
__device__ __forceinline__ void cluster_exchange_leave() {
  if constexpr (E == Exchange::pull) {
    TRIAX_CLUSTER_ASM("barrier.cluster.wait.aligned;" ::: "memory");
  }
}

#undef TRIAX_CLUSTER_ASM

}  // namespace triax::detail::cuda
