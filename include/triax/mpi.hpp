#pragma once
/// @file mpi.hpp
/// triax::mpi: batches of tridiagonal systems whose rows are split over MPI ranks (paper 003).
///
/// A global N-D array is split into blocks, one per rank. Systems run along `axis`; each rank
/// owns a contiguous piece of rows of every system that crosses it, and describes its piece with
/// ordinary triax::Layout objects (ghost layers, offsets, any axis, as for triax::Solver). Each
/// rank reduces its piece to two rows per system (the local modified Thomas passes), the ranks
/// that share the systems solve the reduced system of 2P rows together (Method), and each rank
/// then back-substitutes its interior rows. docs/algorithms.md, "Distributed solves", has the
/// details.
///
/// @code
///   // 2-D grid of ranks over a 3-D array; systems along axis 0 (x) split over the Cartesian
///   // dimension 1 of the process grid (MPI's fastest), which holds the pieces of x in order.
///   MPI_Comm cart;  // from MPI_Cart_create
///   auto local = triax::Layout::padded({nx_local, ny_local, nz}, {nx_local + 2, ny_local + 2, nz},
///                                      {1, 1, 0});
///   triax::mpi::Solver<double> solver(triax::mpi::Decomposition::cartesian(cart, 1), local, 0);
///   solver.solve_in_place(a, b, c, d);  // collective over the ranks of each line along x
/// @endcode

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string_view>
#include <type_traits>

#include "triax/errors.hpp"
#include "triax/export.hpp"
#include "triax/triax.hpp"

namespace triax::mpi {

/// How the reduced system (two rows per rank and system) is solved.
enum class Method {
  automatic,       ///< allgather for up to 8 ranks along the axis, pcr beyond (not measured yet)
  allgather,       ///< every rank gathers every reduced row and solves all of them (Thomas)
  gather_scatter,  ///< each rank of the line gathers a share of the systems' reduced rows,
                   ///< solves them (Thomas) and scatters the results back
  pcr,             ///< parallel cyclic reduction across ranks: 1 + ceil(log2 P) neighbour steps
  jacobi,          ///< block Jacobi iterations with the neighbouring ranks (approximate)
};

/// The name of a method, as written above (e.g. "gather_scatter").
TRIAX_API std::string_view to_string(Method method);

/// How the ranks of a GPU plan (Options::backend = Backend::cuda) exchange the reduced rows.
/// CPU ranks always use MPI on host memory and take automatic only.
enum class Transport {
  automatic,       ///< nccl where the library was built with NCCL (TRIAX_ENABLE_NCCL), the
                   ///< method runs on it and every rank of the line has its own GPU; else
                   ///< host_staging. Never cuda_aware_mpi (not implemented in this version).
  host_staging,    ///< reduced rows device -> pinned host on the stream, a stream
                   ///< synchronisation, the CPU ranks' MPI methods, the ends back: any MPI,
                   ///< every method, ranks may share a GPU
  cuda_aware_mpi,  ///< MPI on device buffers: refused (invalid_argument) where the MPI does not
                   ///< report CUDA support (MPIX_Query_cuda_support), and not implemented yet
                   ///< where it does (invalid_argument too)
  nccl,            ///< the reduced rows stay on the device: NCCL collectives and a device
                   ///< solve, all on the stream, no host synchronisation (allgather,
                   ///< gather_scatter and pcr; jacobi is refused);
                   ///< one GPU per rank of a line (NCCL refuses a shared GPU)
};

/// The name of a transport, as written above (e.g. "host_staging").
TRIAX_API std::string_view to_string(Transport transport);

/// The form of the reduced system (paper 003). The local passes are the same for both: one
/// forward sweep that reads every input once and accumulates row 0 (the sweep of Algorithm 6),
/// and one back-substitution sweep.
enum class ReducedRows {
  two_per_rank,  ///< the first and last unknown of every piece: 2P rows (Algorithms 3-4's form);
                 ///< every method
  one_per_rank,  ///< Algorithm 6's: each piece's row 0 eliminated into its last row, whose
                 ///< unknown is the only one left per piece: P rows, half the values per
                 ///< message; one more neighbour message before the reduced solve (the upper
                 ///< neighbour's row 0) and one after (the lower neighbour's last unknown).
                 ///< pcr and jacobi (as the paper pairs it) on CPU ranks and GPU ranks
                 ///< (pcr on nccl too, jacobi on host_staging); allgather and gather_scatter
                 ///< are refused (invalid_argument)
};

/// The name of a form, as written above (e.g. "one_per_rank").
TRIAX_API std::string_view to_string(ReducedRows rows);

/// Which ranks share the systems, and in which order they hold the pieces.
///
/// - cartesian(comm, dim): comm is a Cartesian communicator (MPI_Cart_create); the pieces of the
///   systems follow the coordinate of dimension `dim`: ranks that differ only in that coordinate
///   share systems, the coordinate orders their pieces. Periodicity is ignored (a tridiagonal
///   system has no wrap-around row).
/// - line(comm): the ranks of comm share every system, and rank r holds piece r. Any other
///   decomposition is described by splitting a communicator into such lines (MPI_Comm_split).
///
/// Construction of a triax::mpi::Solver is collective over `comm`; its solves are collective
/// over each line.
struct Decomposition {
  MPI_Comm comm = MPI_COMM_NULL;
  int cartesian_dim = -1;  ///< -1 for line()

  static Decomposition cartesian(MPI_Comm comm, int dim) { return {comm, dim}; }
  static Decomposition line(MPI_Comm comm) { return {comm, -1}; }
};

/// Options of a distributed plan: the local ones of triax::Options (num_threads and checked;
/// stream for GPU ranks; the algorithm must stay automatic), the backend, the transport and the
/// method.
///
/// GPU ranks (backend = Backend::cuda): a, b, c, d, x and info are device memory of the current
/// device (the library never calls cudaSetDevice: pick one GPU per rank before making the plan,
/// e.g. by the node-local rank of MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)); the local passes
/// run as kernels on `stream`; the plan allocates its device workspace and pinned host buffers
/// when it is made, none in a solve. With host_staging a solve returns once the reduced system
/// is solved and the back substitution is queued on the stream; with nccl it may return before
/// anything ran (synchronise the stream before reading x). A line of one rank hands its whole
/// systems to triax::Solver(Backend::cuda, ...) on the stream, as CPU ranks hand them to the cpu
/// backend.
struct Options : triax::Options {
  Method method = Method::automatic;
  /// Jacobi: the most iterations (>= 1).
  int jacobi_iterations = 100;
  /// Jacobi: stop when no reduced unknown changed by more than this times the largest reduced
  /// unknown in one iteration; 0 = four times the epsilon of the value type. Must be >= 0.
  double jacobi_tolerance = 0;
  /// Jacobi: false runs exactly jacobi_iterations iterations with neighbour exchanges only (no
  /// global reduction per iteration); the last iteration's change is still reported.
  bool jacobi_check_convergence = true;
  /// The systems of a rank are solved in this many batches of consecutive systems (the first
  /// ones one system larger where they do not divide evenly), each batch with its own messages:
  /// more batches, smaller messages. >= 1; more batches than systems give one system each.
  /// 0: automatic. CPU ranks then take batches whose workspace stays in each core's L2 cache
  /// between the forward pass and the back substitution (the core's L2 size from sysfs;
  /// TRIAX_DIST_CACHE_BYTES overrides it), GPU ranks one batch. Not the default: on the H100
  /// machine's 16-core host (256^3, P = 1..8) it was slower than one batch in most rows
  /// (docs/notes/2026-11-27-distcache.md). Solver::batch_count() says what was chosen. The
  /// results are the same bit for bit for every count.
  int batches = 1;
  /// Backend::cpu (host pointers, OpenMP) or Backend::cuda (device pointers); not reference.
  /// (Last, with transport, so that designated initializers written before GPU ranks existed
  /// keep their order.)
  Backend backend = Backend::cpu;
  /// GPU ranks: how the reduced rows travel. CPU ranks: automatic only.
  Transport transport = Transport::automatic;
  /// The reduced system's form; with one_per_rank, method automatic resolves to pcr.
  ReducedRows reduced_rows = ReducedRows::two_per_rank;
  /// With batches > 1: batch k's first reduced-system message is in flight (nonblocking MPI)
  /// while batch k + 1's local reduction runs, and batch k + 1's while batch k's back
  /// substitution runs; on GPU ranks with host staging, batch k + 1's kernels and copy run
  /// while the host solves batch k's reduced system. The results equal those without, bit for
  /// bit; false runs the batches one after another. Must agree on every rank. With NCCL, batch
  /// k's collectives run on a second stream of the plan while batch k + 1's reduction runs on
  /// options.stream (and batch k + 1's while batch k's back substitution runs); options.stream
  /// still sees the whole solve done. docs/algorithms.md, "Overlap of batches".
  bool overlap = true;
};

/// checked mode's info value for every system of a Jacobi solve that did not converge.
inline constexpr int info_not_converged = -1;

/// What the last Jacobi solve reached.
struct JacobiReport {
  int iterations = 0;          ///< iterations run
  double relative_change = 0;  ///< the last iteration's largest change / largest unknown
  bool converged = true;       ///< relative_change <= the tolerance
};

/// Seconds this rank spent in each phase of solves, added up over the solves made while a plan
/// holds it (Solver::set_phase_times). For benchmarks: off by default, and then a solve reads no
/// clock.
struct PhaseTimes {
  double local_passes = 0;   ///< the local reduction and the back substitution of the pieces
  double reduced_solve = 0;  ///< the reduced system's arithmetic (communication excluded)
  double communication = 0;  ///< inside the reduced system's messages, waiting for peers included
  int solves = 0;            ///< solves counted
};

/// A distributed plan for the local pieces of systems split along `axis`.
///
/// Made collectively on decomposition.comm. Checked on every rank, with the same
/// triax::invalid_argument thrown on every rank when any rank's arguments are bad (the message
/// names the first such rank): each rank's layouts (as triax::Solver checks them); every rank
/// owns at least one row along the axis, and at least two where its line has several ranks
/// (a piece is reduced to its first and last rows); axis, array rank, method, Jacobi settings,
/// checked mode and the value type agree on every rank; the ranks of a line agree on the extents of
/// the other dimensions (they hold the same systems). The plan duplicates no communicator per solve
/// and allocates its buffers here: a line communicator (freed by the destructor), three values per
/// local element for the local passes, and the reduced-system messages.
///
/// Solves are collective over the ranks of a line. Their pointer checks (as triax::Solver's) are
/// agreed over the line too: a bad pointer on one rank throws invalid_argument on all of them.
/// Checked mode fills `info` (system_count() entries) identically on the ranks of a line: 0, or
/// the global row + 1 of the first non-finite solution value, or info_not_converged.
template <class T>
class TRIAX_API Solver {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "triax::mpi::Solver supports float and double");

 public:
  Solver(const Decomposition& decomposition, const Layout& local_layout, int axis,
         const Options& options = {});
  Solver(const Decomposition& decomposition, const OperandLayouts& local_layouts, int axis,
         const Options& options = {});
  ~Solver();
  Solver(Solver&&) noexcept;
  Solver& operator=(Solver&&) noexcept;
  Solver(const Solver&) = delete;
  Solver& operator=(const Solver&) = delete;

  /// Solves in place: d is overwritten by x (laid out as d).
  void solve_in_place(const T* a, const T* b, const T* c, T* d, int* info = nullptr);
  /// Solves into a separate output x (laid out as local_layouts.x); d is not modified.
  void solve(const T* a, const T* b, const T* c, const T* d, T* x, int* info = nullptr);
  /// Adds the solution to u (laid out as local_layouts.x): u += x.
  void solve_increment(const T* a, const T* b, const T* c, const T* d, T* u, int* info = nullptr);

  /// The method the plan runs (never automatic).
  Method method() const;
  /// The reduced system's form the plan runs (as asked: Options::reduced_rows).
  ReducedRows reduced_rows() const;
  /// The transport the plan runs (never automatic; host_staging for CPU ranks, whose host
  /// buffers need no staging). A line of one rank that hands its systems to triax::Solver
  /// moves nothing and reports the transport asked for (host_staging for automatic).
  Transport transport() const;
  /// Ranks sharing each system (P).
  int ranks_along_axis() const;
  /// This rank's position along the axis (0 .. P - 1).
  int position_along_axis() const;
  /// Rows of each system on this rank.
  std::int64_t local_system_length() const;
  /// Rows of each global system (the sum over the line).
  std::int64_t global_system_length() const;
  /// The global index of this rank's first row.
  std::int64_t first_global_row() const;
  /// Systems on this rank (the length of info).
  std::int64_t system_count() const;
  /// The batches a solve runs (Options::batches, or what automatic chose; 1 where the line is
  /// one rank that hands its systems to triax::Solver).
  std::int64_t batch_count() const;
  /// The last Jacobi solve's outcome (default-constructed for the other methods).
  JacobiReport last_jacobi() const;
  /// Adds the phases of every later solve to *times (not reset here); nullptr turns it off.
  /// This rank only, no communication; the caller keeps *times alive while it is set.
  void set_phase_times(PhaseTimes* times);

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

extern template class TRIAX_API Solver<float>;
extern template class TRIAX_API Solver<double>;

}  // namespace triax::mpi
