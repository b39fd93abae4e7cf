// triax::mpi::Solver: collective validation, the line of ranks, and each solve's three phases
// (local reduction, reduced system, back substitution).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/batch_loop.hpp"
#include "core/normalize.hpp"
#include "core/omp_threads.hpp"
#include "core/plan_guards.hpp"
#include "core/validate.hpp"
#include "dist/collective_checks.hpp"
#if defined(TRIAX_HAS_CUDA)
#include "core/plan_guards.hpp"
#include "dist/gpu/gpu_path.hpp"
#endif
#include "dist/cache/cache_batches.hpp"
#include "dist/cpu_lanes/lane_passes.hpp"
#include "dist/local_passes.hpp"
#include "dist/method_choice.hpp"
#include "dist/mpi_check.hpp"
#include "dist/mpi_transport.hpp"
#include "dist/one_row_methods.hpp"
#include "dist/reduced_methods.hpp"
#include "dist/timed_transport.hpp"
#include "triax/mpi.hpp"
#include "triax/triax.hpp"

namespace triax::mpi {
namespace {

constexpr const char* who = "triax::mpi::Solver";

std::string said(const std::string& what) { return std::string(who) + ": " + what; }

// Seconds since `start`, added to *total; nothing where no one asked (total null).
class PhaseClock {
 public:
  explicit PhaseClock(double* total) : total_(total) {
    if (total_) start_ = std::chrono::steady_clock::now();
  }
  ~PhaseClock() {
    if (total_) {
      *total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }
  }
  PhaseClock(const PhaseClock&) = delete;
  PhaseClock& operator=(const PhaseClock&) = delete;

 private:
  double* total_;
  std::chrono::steady_clock::time_point start_{};
};

// A communicator the plan made; freed when the owner goes.
class OwnedComm {
 public:
  OwnedComm() = default;
  explicit OwnedComm(MPI_Comm comm) : comm_(comm) {
    TRIAX_MPI_CHECK(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
  }
  ~OwnedComm() {
    if (comm_ != MPI_COMM_NULL) TRIAX_MPI_CHECK_NOTHROW(MPI_Comm_free(&comm_));
  }
  OwnedComm(const OwnedComm&) = delete;
  OwnedComm& operator=(const OwnedComm&) = delete;
  MPI_Comm get() const { return comm_; }
  MPI_Comm release() { return std::exchange(comm_, MPI_COMM_NULL); }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

OwnedComm duplicate(MPI_Comm comm) {
  MPI_Comm copy = MPI_COMM_NULL;
  TRIAX_MPI_CHECK(MPI_Comm_dup(comm, &copy));
  return OwnedComm(copy);
}

bool is_transport(Transport t) {
  switch (t) {
    case Transport::automatic:
    case Transport::host_staging:
    case Transport::cuda_aware_mpi:
    case Transport::nccl:
      return true;
  }
  return false;
}

// The backend and transport a rank can judge alone (NCCL's one GPU per rank is judged later,
// over the line).
void check_backend(const Options& options) {
  if (options.backend != Backend::cpu && options.backend != Backend::cuda) {
    throw invalid_argument(said("options.backend = " + std::string(to_string(options.backend)) +
                                ": distributed plans run on cpu or cuda ranks"));
  }
  if (!is_transport(options.transport)) {
    throw invalid_argument(
        said("options.transport = " + std::to_string(static_cast<int>(options.transport)) +
             " is not a triax::mpi::Transport"));
  }
  if (options.backend == Backend::cpu) {
    if (options.transport != Transport::automatic) {
      throw invalid_argument(
          said("options.transport = " + std::string(to_string(options.transport)) +
               ": CPU ranks move host memory through MPI; transports are for "
               "GPU ranks (options.backend = cuda); leave it automatic"));
    }
    return;
  }
#if !defined(TRIAX_HAS_CUDA)
  throw invalid_argument(
      said("options.backend = cuda: this triax was built without CUDA (TRIAX_ENABLE_CUDA=OFF)"));
#else
  if (options.transport == Transport::cuda_aware_mpi) {
    if (!detail::mpi_is_cuda_aware()) {
      throw invalid_argument(
          said("options.transport = cuda_aware_mpi: this MPI does not report CUDA support "
               "(MPIX_Query_cuda_support); use host_staging or nccl"));
    }
    throw invalid_argument(
        said("options.transport = cuda_aware_mpi: the device-pointer MPI path is not "
             "implemented in this version; use host_staging or nccl"));
  }
  if (options.transport == Transport::nccl) {
    if (!detail::nccl_built()) {
      throw invalid_argument(
          said("options.transport = nccl: this triax was built without NCCL "
               "(TRIAX_ENABLE_NCCL=OFF); use host_staging"));
    }
    if (options.method == Method::jacobi) {
      throw invalid_argument(
          said("options.method = jacobi does not run on the nccl transport (allgather, "
               "gather_scatter and pcr do); use host_staging for it"));
    }
  }
#endif
}

bool is_reduced_rows(ReducedRows r) {
  switch (r) {
    case ReducedRows::two_per_rank:
    case ReducedRows::one_per_rank:
      return true;
  }
  return false;
}

bool is_method(Method m) {
  switch (m) {
    case Method::automatic:
    case Method::allgather:
    case Method::gather_scatter:
    case Method::pcr:
    case Method::jacobi:
      return true;
  }
  return false;
}

// What a rank can check alone: its decomposition handle, layouts, options, and its piece.
void check_own_arguments(const Decomposition& dec, MPI_Comm comm, const OperandLayouts& layouts,
                         int axis, const Options& options) {
  if (dec.cartesian_dim != -1) {
    int topology = MPI_UNDEFINED, dims = 0;
    TRIAX_MPI_CHECK(MPI_Topo_test(comm, &topology));
    if (topology != MPI_CART) {
      throw invalid_argument(
          said("decomposition: Decomposition::cartesian needs a communicator with a Cartesian "
               "topology (MPI_Cart_create); for a plain one use Decomposition::line"));
    }
    TRIAX_MPI_CHECK(MPI_Cartdim_get(comm, &dims));
    if (dec.cartesian_dim < 0 || dec.cartesian_dim >= dims) {
      throw invalid_argument(
          said("decomposition: cartesian dim = " + std::to_string(dec.cartesian_dim) +
               " is outside 0.." + std::to_string(dims - 1) + " (the communicator's dimensions)"));
    }
  }
  detail::validate_layouts(layouts, axis);
  detail::check_thread_count(options, who);
  if (!is_reduced_rows(options.reduced_rows)) {
    throw invalid_argument(
        said("options.reduced_rows = " + std::to_string(static_cast<int>(options.reduced_rows)) +
             " is not a triax::mpi::ReducedRows"));
  }
  check_backend(options);
  if (options.algorithm != Algorithm::automatic) {
    throw invalid_argument(said("options.algorithm = " + std::string(to_string(options.algorithm)) +
                                ": the local passes of a distributed plan are its own; leave it "
                                "automatic and pick options.method"));
  }
  if (!is_method(options.method)) {
    throw invalid_argument(
        said("options.method = " + std::to_string(static_cast<int>(options.method)) +
             " is not a triax::mpi::Method"));
  }
  if (options.reduced_rows == ReducedRows::one_per_rank &&
      (options.method == Method::allgather || options.method == Method::gather_scatter)) {
    // The collectives move every piece's rows to one place anyway, where the two-row system
    // costs no more; paper 003 pairs Algorithm 6 with PCR and Jacobi.
    throw invalid_argument(
        said("options.reduced_rows = one_per_rank runs with method pcr or "
             "jacobi (or automatic, which picks pcr), not " +
             std::string(to_string(options.method))));
  }
  if (options.method == Method::jacobi) {
    if (options.jacobi_iterations < 1) {
      throw invalid_argument(said("options.jacobi_iterations = " +
                                  std::to_string(options.jacobi_iterations) + " must be >= 1"));
    }
    if (!(options.jacobi_tolerance >= 0) || !std::isfinite(options.jacobi_tolerance)) {
      throw invalid_argument(
          said("options.jacobi_tolerance = " + std::to_string(options.jacobi_tolerance) +
               " must be finite and >= 0"));
    }
  }
  if (layouts.d.extent(axis) == 0) {
    throw invalid_argument(said("this rank owns 0 rows along axis " + std::to_string(axis) +
                                " (its local extent(" + std::to_string(axis) +
                                ") = 0); every rank must own at least one row of its systems"));
  }
  if (options.batches < 0) {
    throw invalid_argument(said("options.batches = " + std::to_string(options.batches) +
                                " must be >= 1, or 0 (automatic)"));
  }
  // The systems of a batch travel in one message, whose count MPI takes as an int (automatic
  // keeps its batches below that itself).
  const std::int64_t systems = layouts.d.size() / layouts.d.extent(axis);
  const int asked_batches = options.batches == 0 ? INT_MAX : options.batches;
  const std::int64_t largest_batch = (systems + asked_batches - 1) / asked_batches;
  if (largest_batch > INT_MAX / 8) {
    throw invalid_argument(said(std::to_string(largest_batch) + " systems in one batch (" +
                                std::to_string(systems) +
                                " systems, options.batches = " + std::to_string(options.batches) +
                                ") exceed the " + std::to_string(INT_MAX / 8) +
                                " that one message of reduced rows can carry; raise batches"));
  }
}

// The values every rank of the communicator must pass alike, with their names.
template <class T>
std::vector<std::int64_t> shared_values(const Decomposition& dec, const OperandLayouts& layouts,
                                        int axis, const Options& options) {
  std::int64_t tolerance_bits = 0;
  static_assert(sizeof(tolerance_bits) == sizeof(options.jacobi_tolerance));
  std::memcpy(&tolerance_bits, &options.jacobi_tolerance, sizeof(tolerance_bits));
  return {axis,
          layouts.d.rank(),
          dec.cartesian_dim,
          static_cast<std::int64_t>(sizeof(T)),
          static_cast<std::int64_t>(options.method),
          options.jacobi_iterations,
          tolerance_bits,
          options.jacobi_check_convergence,
          options.checked,
          options.batches,
          static_cast<std::int64_t>(options.backend),
          static_cast<std::int64_t>(options.transport),
          static_cast<std::int64_t>(options.reduced_rows),
          options.overlap};
}

const std::vector<std::string>& shared_names() {
  static const std::vector<std::string> names = {"axis",
                                                 "the layouts' rank",
                                                 "decomposition's cartesian dim",
                                                 "the value type's size in bytes",
                                                 "options.method",
                                                 "options.jacobi_iterations",
                                                 "options.jacobi_tolerance (bits)",
                                                 "options.jacobi_check_convergence",
                                                 "options.checked",
                                                 "options.batches",
                                                 "options.backend",
                                                 "options.transport",
                                                 "options.reduced_rows",
                                                 "options.overlap"};
  return names;
}

// The communicator of one line of ranks, numbered in piece order.
OwnedComm make_line(const OwnedComm& all, const Decomposition& dec) {
  if (dec.cartesian_dim == -1) return duplicate(all.get());
  int dims = 0;
  TRIAX_MPI_CHECK(MPI_Cartdim_get(all.get(), &dims));
  std::vector<int> keep(static_cast<std::size_t>(dims), 0);
  keep[static_cast<std::size_t>(dec.cartesian_dim)] = 1;
  // MPI_Cart_sub numbers the ranks of the line by their coordinate along the kept dimension.
  MPI_Comm line = MPI_COMM_NULL;
  TRIAX_MPI_CHECK(MPI_Cart_sub(all.get(), keep.data(), &line));
  return OwnedComm(line);
}

}  // namespace

template <class T>
class Solver<T>::Impl {
 public:
  Impl(const Decomposition& dec, const OperandLayouts& layouts, int axis, const Options& options)
      : layouts_(layouts), options_(options), threads_(detail::host_threads(options.num_threads)) {
    if (dec.comm == MPI_COMM_NULL) {
      // No communicator, no agreement: this rank alone can say so.
      throw invalid_argument(said("decomposition.comm is MPI_COMM_NULL"));
    }
    // The checks run on a duplicate that returns errors instead of aborting.
    const OwnedComm all = duplicate(dec.comm);
    detail::agree(all.get(), detail::verdict_of([&] {
                    check_own_arguments(dec, all.get(), layouts, axis, options);
                  }),
                  who);
    const std::string differing = detail::disagreements(
        all.get(), shared_values<T>(dec, layouts, axis, options), shared_names());
    if (!differing.empty()) throw invalid_argument(said("ranks disagree: " + differing));

    OwnedComm line = make_line(all, dec);
    // The ranks of a line solve the same systems: the extents besides the axis agree.
    std::vector<std::int64_t> extents;
    std::vector<std::string> extent_names;
    for (int k = 0; k < layouts.d.rank(); ++k) {
      if (k == axis) continue;
      extents.push_back(layouts.d.extent(k));
      extent_names.push_back("extent(" + std::to_string(k) + ")");
    }
    const std::string line_differs = detail::disagreements(line.get(), extents, extent_names);
    int ranks_in_line = 0;
    TRIAX_MPI_CHECK(MPI_Comm_size(line.get(), &ranks_in_line));
    detail::Verdict line_verdict;
    if (!line_differs.empty()) {
      line_verdict = {
          detail::Verdict::Kind::invalid_argument,
          said("the ranks of its line (which share systems) disagree: " + line_differs)};
    } else if (ranks_in_line > 1 && layouts.d.extent(axis) < 2) {
      // A piece is reduced to its first and last rows, which must be two different rows for
      // the reduced system to stay tridiagonal.
      line_verdict = {detail::Verdict::Kind::invalid_argument,
                      said("this rank owns 1 row along axis " + std::to_string(axis) +
                           "; where a system is split over several ranks, each must own at "
                           "least 2 of its rows")};
    }
    detail::agree(all.get(), line_verdict, who);

    problem_ = detail::normalize(layouts, axis);
    d_self_overlaps_ = detail::layout_self_overlaps(layouts.d);
    transport_ = std::make_unique<detail::MpiTransport>(line.release());
    const int ranks = transport_->size(), position = transport_->position();
    place_ = {position == 0, position == ranks - 1};
    TRIAX_MPI_CHECK(
        MPI_Exscan(&problem_.n, &first_row_, 1, MPI_INT64_T, MPI_SUM, transport_->communicator()));
    if (position == 0) first_row_ = 0;  // MPI_Exscan leaves rank 0's result undefined
    TRIAX_MPI_CHECK(MPI_Allreduce(&problem_.n, &global_n_, 1, MPI_INT64_T, MPI_SUM,
                                  transport_->communicator()));
    method_ = detail::choose_method(options.method, ranks, options.reduced_rows);
    one_row_ = options.reduced_rows == ReducedRows::one_per_rank;
    gpu_ = options.backend == Backend::cuda;
    transport_kind_ = Transport::host_staging;

    // A line of one rank holds whole systems (an axis the decomposition does not split): the
    // single-process solver takes them, vectorised across systems, where the local passes
    // reduce one system at a time (16-core host, 256^3 along an unsplit axis: 4-13x the
    // single-rank solve; docs/notes/distributed.md, the 2026-11-26 run). Checked mode and
    // Jacobi keep the distributed path: its info rule and Jacobi's report are their own.
    const bool whole = ranks == 1 && !options.checked && method_ != Method::jacobi;
    if (gpu_) choose_transport(all, whole);
    // A whole line moves nothing: it reports the transport asked for (automatic: staging).
    if (gpu_ && whole && options.transport != Transport::automatic) {
      transport_kind_ = options.transport;
    }
    if (!whole) resolve_batches();
    detail::agree(all.get(), detail::verdict_of([&] {
                    if (whole) {
                      whole_.emplace(options.backend, layouts, axis,
                                     static_cast<const triax::Options&>(options));
                    } else {
                      allocate(ranks);
                    }
                  }),
                  who);
  }

  // GPU ranks: NCCL where asked (or, automatic, where built and the method runs on it) and every
  // rank of the line has a GPU of its own; host staging otherwise. Agreed over every rank.
  // Every rank takes part in the agreement, whole lines too (a line's length is the same on
  // every line of a decomposition, but the agreement does not lean on it).
  void choose_transport(const OwnedComm& all, bool whole) {
#if defined(TRIAX_HAS_CUDA)
    const Transport asked = options_.transport;
    const bool nccl_method = method_ != Method::jacobi;
    detail::Verdict verdict;
    if (!whole && (asked == Transport::nccl ||
                   (asked == Transport::automatic && detail::nccl_built() && nccl_method))) {
      int clash = -1;
      bool own = false;
      verdict = detail::verdict_of(
          [&] { own = detail::one_gpu_per_rank(transport_->communicator(), &clash); });
      if (!verdict.failed()) {
        if (own) {
          transport_kind_ = Transport::nccl;
        } else if (asked == Transport::nccl) {
          verdict = {detail::Verdict::Kind::invalid_argument,
                     said("options.transport = nccl needs one GPU per rank, but the rank at "
                          "position " +
                          std::to_string(clash) +
                          " of its line shares its GPU with another rank of the line; select a "
                          "device per node-local rank, or use host_staging")};
        }
      }
    }
    detail::agree(all.get(), verdict, who);
#else
    (void)all;
    (void)whole;
#endif
  }

  // Options::batches, or with 0 the cache's choice (dist/cache/cache_batches.hpp) on CPU ranks
  // and 1 on GPU ranks. Every batch is a collective step of the line: its ranks take the
  // largest count any of them chose (their pieces' lengths and caches may differ).
  void resolve_batches() {
    if (options_.batches > 0) {
      batches_ = options_.batches;
      return;
    }
    std::int64_t chosen = 1;
    if (!gpu_) {
      chosen = detail::cache_batch_count(problem_.count, problem_.n, sizeof(T), threads_,
                                         options_.overlap, detail::core_cache_bytes(),
                                         INT_MAX / 8);
    }
    TRIAX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &chosen, 1, MPI_INT64_T, MPI_MAX,
                                  transport_->communicator()));
    batches_ = chosen;
  }

  void allocate(int ranks) {
    const auto count = static_cast<std::size_t>(problem_.count);
#if defined(TRIAX_HAS_CUDA)
    if (gpu_) {
      detail::GpuPathConfig config;
      config.problem = problem_;
      config.place = place_;
      config.largest_batch = batch_start(1) - batch_start(0);
      config.checked = options_.checked;
      config.stream = options_.stream;
      config.method = method_;
      config.nccl = transport_kind_ == Transport::nccl;
      config.one_row = one_row_;
      config.overlap = options_.overlap;
      config.line = transport_->communicator();
      config.ranks = ranks;
      config.position = transport_->position();
      gpu_path_ = std::make_unique<detail::GpuPath<T>>(config);
      if (!config.nccl) {
        rows_ptr_ = gpu_path_->host_rows();
        ends_ptr_ = gpu_path_->host_ends();
        allocate_reduced(ranks, config.largest_batch);
      }
      return;
    }
#endif
    lanes_ = detail::dist_lanes::lane_passes<T>();
    strips_ = detail::dist_lanes::strips_from_environment();
    recompute_ = detail::dist_lanes::recompute_from_environment();
    if (recompute_) {
      // A slice a thread (LaneJob::recompute), no workspace per system.
      slice_ = detail::dist_lanes::recompute_slice<T>(problem_.n, problem_.count);
      piece_work_.resize(static_cast<std::size_t>(std::max(1, threads_) * slice_));
    } else {
      piece_work_.resize(3 * count * static_cast<std::size_t>(problem_.n));
    }
    rows_.resize(count);
    ends_.resize(2 * count);
    if (options_.checked) first_bad_row_.resize(count);
    rows_ptr_ = rows_.data();
    ends_ptr_ = ends_.data();
    allocate_reduced(ranks, batch_start(1) - batch_start(0));
  }

  // The host methods' buffers for the largest batch: the two-row methods' or the one-row ones'.
  void allocate_reduced(int ranks, std::int64_t largest_batch) {
    if (one_row_) {
      one_row_buffers_ = std::make_unique<detail::OneRowBuffers<T>>(largest_batch);
      // Nothing of the two-row methods' buffers is used: automatic sizes none.
      buffers_ = std::make_unique<detail::ReducedBuffers<T>>(Method::automatic, ranks, 0);
    } else {
      buffers_ = std::make_unique<detail::ReducedBuffers<T>>(method_, ranks, largest_batch);
    }
  }

  // Batch b of the systems: [batch_start(b), batch_start(b + 1)). Where there are fewer systems
  // than options.batches, each batch holds one system.
  std::int64_t batch_count() const {
    return std::max<std::int64_t>(1, std::min<std::int64_t>(batches_, problem_.count));
  }
  std::int64_t batch_start(std::int64_t b) const {
    // The first batch is the largest: ceil(count / batches) systems.
    const std::int64_t batches = batch_count();
    return b == 0 ? 0 : problem_.count - (problem_.count * (batches - b)) / batches;
  }

  // The CPU ranks' local passes of one solve (W systems at a time in SIMD lanes: cpu_lanes/).
  detail::dist_lanes::LaneJob<T> lane_job(const detail::Problem& p, const detail::Operands<T>& ops,
                                          bool checked) {
    detail::dist_lanes::LaneJob<T> job{p,
                                       ops,
                                       place_,
                                       piece_work_.data(),
                                       rows_.data(),
                                       ends_.data(),
                                       checked ? first_bad_row_.data() : nullptr,
                                       first_row_,
                                       threads_,
                                       strips_};
    job.recompute = recompute_;
    job.slice = slice_;
    return job;
  }

  void run(const T* a, const T* b, const T* c, const T* d, T* x, detail::SolveMode mode,
           int* info) {
    const detail::OneSolveAtATime one_solve(busy_, who);
    if (mode == detail::SolveMode::separate && x == d && layouts_.x == layouts_.d) {
      mode = detail::SolveMode::in_place;
    }
    const std::int64_t count = problem_.count;
    int* checked_info = options_.checked ? info : nullptr;
    // Agreed over the line, so that a bad pointer on one rank stops all of them.
    detail::agree(
        transport_->communicator(), detail::verdict_of([&] {
          detail::validate_pointers({a, b, c, d, x, checked_info, mode, count == 0, count},
                                    layouts_, sizeof(T), alignof(T), d_self_overlaps_, who);
          if (options_.checked && info == nullptr && count > 0) {
            throw invalid_argument(said("checked mode needs an info array, but info is null"));
          }
#if defined(TRIAX_HAS_CUDA)
          if (gpu_) detail::check_memory_space(Backend::cuda, {a, b, c, d, x, checked_info}, who);
#endif
        }),
        who);
    if (count == 0) return;  // the same on every rank of the line: their extents agree
    if (whole_) {
      const PhaseClock clock(phase_times_ ? &phase_times_->local_passes : nullptr);
      if (mode == detail::SolveMode::in_place) {
        whole_->solve_in_place(a, b, c, x);
      } else if (mode == detail::SolveMode::separate) {
        whole_->solve(a, b, c, d, x);
      } else {
        whole_->solve_increment(a, b, c, d, x);
      }
#if defined(TRIAX_HAS_CUDA)
      if (phase_times_ && gpu_) detail::synchronize_stream(options_.stream);
#endif
      if (phase_times_) ++phase_times_->solves;
      return;
    }
    detail::Problem p = problem_;
    if (mode == detail::SolveMode::in_place) p.map[detail::op_x] = p.map[detail::op_d];
    const detail::Operands<T> ops{a, b, c, d, x, mode == detail::SolveMode::increment, nullptr};
#if defined(TRIAX_HAS_CUDA)
    if (gpu_) {
      run_gpu(p, ops, checked_info);
      return;
    }
#endif

    PhaseTimes* const times = phase_times_;
    double* const local_seconds = times ? &times->local_passes : nullptr;
    ReducedClock reduced{times};
    JacobiReport jacobi_over_batches;
    const detail::dist_lanes::LaneJob<T> job = lane_job(p, ops, checked_info != nullptr);
    const auto reduce = [&](std::int64_t batch) {
      const PhaseClock clock(local_seconds);
      const std::int64_t first = batch_start(batch), size = batch_start(batch + 1) - first;
      lanes_.reduce(job, first, size);
    };
    const auto back_substitute = [&](std::int64_t batch) {
      const PhaseClock clock(local_seconds);
      const std::int64_t first = batch_start(batch), size = batch_start(batch + 1) - first;
      lanes_.finish(job, first, size);
    };
    // With overlap, batch k + 1's local reduction runs while batch k's first message is in
    // flight, and batch k's back substitution while batch k + 1's is: the same arithmetic on
    // each system as without, in another order across batches (bit-for-bit the same results).
    const std::int64_t batches = batch_count();
    const bool overlap = options_.overlap && batches > 1;
    for (std::int64_t batch = 0; batch < batches; ++batch) {
      const bool next = overlap && batch + 1 < batches;
      if (!overlap || batch == 0) {
        reduce(batch);
        begin_reduced(reduced, batch);
      }
      if (next) reduce(batch + 1);
      merge_jacobi(jacobi_over_batches, complete_reduced(reduced, batch));
      if (next) begin_reduced(reduced, batch + 1);
      back_substitute(batch);
    }
    if (method_ == Method::jacobi) last_jacobi_ = jacobi_over_batches;
    if (checked_info) report_info(checked_info);
    reduced.add_to(times);
  }

  // The reduced phase's clocks over one solve, for phase times (off where times is null): the
  // whole phase, and the communication inside it (through a TimedTransport).
  struct ReducedClock {
    PhaseTimes* times;
    double reduced_seconds = 0, communication_seconds = 0;

    // f(transport): the plain one, or one that clocks its messages.
    template <class F>
    auto run(detail::Transport& inner, F&& f) {
      if (!times) return f(inner);
      const PhaseClock clock(&reduced_seconds);
      detail::TimedTransport timed(inner, communication_seconds);
      return f(timed);
    }
    // The staged copies (or NCCL's collectives with their kernels) of GPU ranks count as
    // communication too, with the host methods' own messages.
    void add_to(PhaseTimes* t, double copy_seconds = 0) const {
      if (!t) return;
      t->reduced_solve += reduced_seconds - communication_seconds;
      t->communication += communication_seconds + copy_seconds;
      ++t->solves;
    }
  };

  static void merge_jacobi(JacobiReport& over_batches, const JacobiReport& batch) {
    over_batches.iterations = std::max(over_batches.iterations, batch.iterations);
    over_batches.relative_change = std::max(over_batches.relative_change, batch.relative_change);
    over_batches.converged = over_batches.converged && batch.converged;
  }

#if defined(TRIAX_HAS_CUDA)
  // GPU ranks: the passes as kernels on the stream; the reduced system staged through pinned
  // host memory to the CPU ranks' methods, or on the device through NCCL. Phase times wait for
  // the stream at each phase's end (only when asked for).
  void run_gpu(const detail::Problem& p, const detail::Operands<T>& ops, int* checked_info) {
    detail::GpuPath<T>& gpu = *gpu_path_;
    PhaseTimes* const times = phase_times_;
    double* const local_seconds = times ? &times->local_passes : nullptr;
    ReducedClock reduced{times};
    double copy_seconds = 0;
    const bool nccl = transport_kind_ == Transport::nccl;
    JacobiReport jacobi_over_batches;
    const auto reduce = [&](std::int64_t batch) {
      const std::int64_t first = batch_start(batch), size = batch_start(batch + 1) - first;
      const PhaseClock clock(local_seconds);
      gpu.reduce(p, ops, first, size);
      if (times) gpu.synchronize();
    };
    const std::int64_t batches = batch_count();
    if (nccl && gpu.has_side_stream() && batches > 1) {
      // NCCL with overlap: each batch's reduced solve (collectives and their kernels) runs on
      // the plan's second stream while the caller's stream reduces the next batch; a batch's
      // back substitution waits for its ends (an event), and runs while the next batch's
      // messages do. Host order per batch: reduce k + 1, wait for k's ends, queue k + 1's
      // reduced solve, back-substitute k; that wait comes before k + 1's ends are recorded,
      // so one event serves every batch. The same kernels on the same data as without.
      const auto begin_beside = [&](std::int64_t batch) {
        const std::int64_t first = batch_start(batch), size = batch_start(batch + 1) - first;
        const PhaseClock clock(times ? &copy_seconds : nullptr);
        gpu.solve_reduced_beside(first, size);
        if (times) gpu.synchronize();
      };
      reduce(0);
      begin_beside(0);
      for (std::int64_t batch = 0; batch < batches; ++batch) {
        const std::int64_t first = batch_start(batch), size = batch_start(batch + 1) - first;
        const bool next = batch + 1 < batches;
        if (next) reduce(batch + 1);
        gpu.wait_ends();
        if (next) begin_beside(batch + 1);
        const PhaseClock clock(local_seconds);
        gpu.finish(p, ops, first, size, first_row_);
        if (times) gpu.synchronize();
      }
    } else {
      // Host staging with overlap: batch k + 1's reduction and its rows' copy are queued before
      // the host solves batch k's reduced system, so the GPU computes while MPI runs; the wait
      // for those rows comes after batch k's back substitution is queued, which then runs during
      // batch k + 1's messages. The same kernels and host arithmetic per system as without.
      const bool overlap = !nccl && options_.overlap && batches > 1;
      for (std::int64_t batch = 0; batch < batches; ++batch) {
        const std::int64_t first = batch_start(batch), size = batch_start(batch + 1) - first;
        const bool next = overlap && batch + 1 < batches;
        if (!overlap || batch == 0) {
          reduce(batch);
          const PhaseClock clock(times ? &copy_seconds : nullptr);
          if (nccl) {
            // Collectives and kernels together: all of it counts as communication.
            gpu.solve_reduced_on_device(first, size);
            if (times) gpu.synchronize();
          } else {
            gpu.rows_to_host(first, size);
          }
        }
        if (next) {
          reduce(batch + 1);
          const std::int64_t after = batch_start(batch + 2);
          gpu.rows_to_host_async(batch_start(batch + 1), after - batch_start(batch + 1));
        }
        if (!nccl) {
          begin_reduced(reduced, batch);
          merge_jacobi(jacobi_over_batches, complete_reduced(reduced, batch));
          const PhaseClock clock(times ? &copy_seconds : nullptr);
          gpu.ends_to_device(first, size);
        }
        {
          const PhaseClock clock(local_seconds);
          gpu.finish(p, ops, first, size, first_row_);
          if (times) gpu.synchronize();
        }
        if (next) {
          const PhaseClock clock(times ? &copy_seconds : nullptr);
          gpu.wait_rows();
        }
      }
    }
    if (method_ == Method::jacobi) last_jacobi_ = jacobi_over_batches;
    if (checked_info) {
      gpu.report_info(checked_info, method_ == Method::jacobi && !last_jacobi_.converged);
    }
    reduced.add_to(times, copy_seconds);
  }
#endif

  // The reduced systems of batch b: begin_reduced starts its first message (the method's
  // begin_* half, reduced_methods.hpp), complete_reduced waits for it and solves the rest.
  void begin_reduced(ReducedClock& clock, std::int64_t b) {
    const std::int64_t first = batch_start(b), size = batch_start(b + 1) - first;
    const detail::ReducedPair<T>* rows = rows_ptr_ + first;
    T* ends = ends_ptr_ + 2 * first;
    clock.run(*transport_, [&](detail::Transport& t) {
      if (one_row_) {
        detail::begin_one_row_system(t, rows, size, *one_row_buffers_, threads_);
        return;
      }
      switch (method_) {
        case Method::allgather:
          detail::begin_reduced_allgather(t, rows, size, *buffers_);
          break;
        case Method::gather_scatter:
          detail::begin_reduced_gather_scatter(t, rows, size, *buffers_);
          break;
        case Method::pcr:
          detail::begin_reduced_pcr(t, rows, size, *buffers_);
          break;
        case Method::jacobi:
          detail::begin_reduced_jacobi(t, ends, size, *buffers_);
          break;
        case Method::automatic:
          break;  // resolved when the plan was made
      }
    });
  }

  JacobiReport complete_reduced(ReducedClock& clock, std::int64_t b) {
    const std::int64_t first = batch_start(b), size = batch_start(b + 1) - first;
    const detail::ReducedPair<T>* rows = rows_ptr_ + first;
    T* ends = ends_ptr_ + 2 * first;
    return clock.run(*transport_, [&](detail::Transport& t) -> JacobiReport {
      if (one_row_) {
        if (method_ == Method::jacobi) {
          return detail::complete_one_row_jacobi(t, rows, ends, size, *one_row_buffers_, options_,
                                                 threads_);
        }
        detail::complete_one_row_pcr(t, rows, ends, size, *one_row_buffers_, threads_);
        return {};
      }
      switch (method_) {
        case Method::allgather:
          detail::complete_reduced_allgather(t, ends, size, *buffers_, threads_);
          break;
        case Method::gather_scatter:
          detail::complete_reduced_gather_scatter(t, ends, size, *buffers_, threads_);
          break;
        case Method::pcr:
          detail::complete_reduced_pcr(t, ends, size, *buffers_, threads_);
          break;
        case Method::jacobi:
          return detail::complete_reduced_jacobi(t, rows, ends, size, *buffers_, options_);
        case Method::automatic:
          break;  // resolved when the plan was made
      }
      return {};
    });
  }

  // Every rank of the line reports the first bad row of the whole system.
  void report_info(int* info) {
    const std::int64_t count = problem_.count;
    transport_->min_in_place(first_bad_row_.data(), count);
    const bool unconverged = method_ == Method::jacobi && !last_jacobi_.converged;
    for (std::int64_t s = 0; s < count; ++s) {
      const std::int64_t row = first_bad_row_[s];
      if (row != std::numeric_limits<std::int64_t>::max()) {
        info[s] = static_cast<int>(std::min<std::int64_t>(row + 1, INT_MAX));
      } else {
        info[s] = unconverged ? info_not_converged : 0;
      }
    }
  }

  OperandLayouts layouts_;
  Options options_;
  int threads_;
  Method method_ = Method::allgather;
  detail::Problem problem_;
  detail::Overlap d_self_overlaps_ = detail::Overlap::no;
  std::unique_ptr<detail::MpiTransport> transport_;
  detail::PiecePlace place_{};
  std::int64_t first_row_ = 0;
  std::int64_t global_n_ = 0;
  std::int64_t batches_ = 1;  // resolve_batches: options.batches, or the automatic choice
  detail::dist_lanes::LanePasses<T> lanes_;  // the CPU ranks' local passes (allocate picks)
  bool strips_ = true;  // their order along y and z (allocate reads TRIAX_DIST_STRIPS)
  // No workspace per system, a slice a thread (allocate reads TRIAX_DIST_RECOMPUTE).
  bool recompute_ = false;
  std::int64_t slice_ = 0;
  std::vector<T> piece_work_;
  std::vector<detail::ReducedPair<T>> rows_;
  std::vector<T> ends_;
  std::vector<std::int64_t> first_bad_row_;
  std::unique_ptr<detail::ReducedBuffers<T>> buffers_;
  // One row per rank (Options::reduced_rows): its buffers instead of buffers_' methods.
  bool one_row_ = false;
  std::unique_ptr<detail::OneRowBuffers<T>> one_row_buffers_;
  // The reduced rows and ends the host methods read and write: rows_ and ends_ on CPU ranks,
  // the GPU path's pinned buffers with host staging.
  detail::ReducedPair<T>* rows_ptr_ = nullptr;
  T* ends_ptr_ = nullptr;
  bool gpu_ = false;
  Transport transport_kind_ = Transport::host_staging;
#if defined(TRIAX_HAS_CUDA)
  std::unique_ptr<detail::GpuPath<T>> gpu_path_;
#endif
  JacobiReport last_jacobi_;
  PhaseTimes* phase_times_ = nullptr;      // set_phase_times: off unless a caller asks
  std::optional<triax::Solver<T>> whole_;  // a line of one rank without checked mode or Jacobi
  std::atomic<bool> busy_{false};
};

template <class T>
Solver<T>::Solver(const Decomposition& decomposition, const Layout& local_layout, int axis,
                  const Options& options)
    : Solver(decomposition, OperandLayouts(local_layout), axis, options) {}

template <class T>
Solver<T>::Solver(const Decomposition& decomposition, const OperandLayouts& local_layouts, int axis,
                  const Options& options)
    : impl_(std::make_unique<Impl>(decomposition, local_layouts, axis, options)) {}

template <class T>
Solver<T>::~Solver() = default;
template <class T>
Solver<T>::Solver(Solver&&) noexcept = default;
template <class T>
Solver<T>& Solver<T>::operator=(Solver&&) noexcept = default;

template <class T>
void Solver<T>::solve_in_place(const T* a, const T* b, const T* c, T* d, int* info) {
  detail::live(impl_, who).run(a, b, c, d, d, detail::SolveMode::in_place, info);
}
template <class T>
void Solver<T>::solve(const T* a, const T* b, const T* c, const T* d, T* x, int* info) {
  detail::live(impl_, who).run(a, b, c, d, x, detail::SolveMode::separate, info);
}
template <class T>
void Solver<T>::solve_increment(const T* a, const T* b, const T* c, const T* d, T* u, int* info) {
  detail::live(impl_, who).run(a, b, c, d, u, detail::SolveMode::increment, info);
}

template <class T>
Method Solver<T>::method() const {
  return detail::live(impl_, who).method_;
}
template <class T>
ReducedRows Solver<T>::reduced_rows() const {
  return detail::live(impl_, who).one_row_ ? ReducedRows::one_per_rank : ReducedRows::two_per_rank;
}
template <class T>
Transport Solver<T>::transport() const {
  return detail::live(impl_, who).transport_kind_;
}
template <class T>
int Solver<T>::ranks_along_axis() const {
  return detail::live(impl_, who).transport_->size();
}
template <class T>
int Solver<T>::position_along_axis() const {
  return detail::live(impl_, who).transport_->position();
}
template <class T>
std::int64_t Solver<T>::local_system_length() const {
  return detail::live(impl_, who).problem_.n;
}
template <class T>
std::int64_t Solver<T>::global_system_length() const {
  return detail::live(impl_, who).global_n_;
}
template <class T>
std::int64_t Solver<T>::first_global_row() const {
  return detail::live(impl_, who).first_row_;
}
template <class T>
std::int64_t Solver<T>::system_count() const {
  return detail::live(impl_, who).problem_.count;
}
template <class T>
std::int64_t Solver<T>::batch_count() const {
  const Impl& impl = detail::live(impl_, who);
  return impl.whole_ ? 1 : impl.batch_count();
}
template <class T>
JacobiReport Solver<T>::last_jacobi() const {
  return detail::live(impl_, who).last_jacobi_;
}

template <class T>
void Solver<T>::set_phase_times(PhaseTimes* times) {
  detail::live(impl_, who).phase_times_ = times;
}

template class Solver<float>;
template class Solver<double>;

}  // namespace triax::mpi
