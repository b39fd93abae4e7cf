// The CPU backend's plan: picks the strip or the transpose kernel and the instruction set, sizes
// the per-thread workspace once, and hands each solve to the kernels (cpu/solve_batch.inc).
#include <algorithm>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "core/backend_plan.hpp"
#include "core/omp_threads.hpp"
#include "cpu/batch.hpp"
#include "cpu/cyclic/cyclic_plan.hpp"
#include "cpu/isa.hpp"
#include "triax/errors.hpp"

namespace triax::detail {
namespace {

// How wide a strip of neighbouring systems is. Rows of a strip lie a whole row stride apart, so
// each row is one short run in memory: the wider the strip, the longer the run and the better the
// hardware streams it (on the development machine, 256^3 solves along y and z slowed sharply
// below ~128 lanes). The strip's c' and d' (2 * n * width values; in place d' goes into x's own
// rows instead) should stay in the caches between the forward and the backward pass: the budget
// bounds them (256^3 along z: 1 MiB, i.e. 256 double or 512 float lanes, measured 5-15% faster
// than 2 MiB, and again with d' over d: docs/algorithms.md).
constexpr std::int64_t strip_workspace_budget = 1024 * 1024;
constexpr std::int64_t min_strip = 16;
constexpr std::int64_t max_strip = 1024;

// The largest per-thread workspace the transpose kernel may own.
constexpr std::size_t tile_workspace_limit = 32 * 1024 * 1024;

template <class T>
int strip_width(const Problem& p) {
  const std::int64_t per_lane = std::max<std::int64_t>(p.n, 1) * 2 * sizeof(T);
  // Whole cache lines per row, so that neighbouring strips never share a line.
  constexpr std::int64_t line = 64 / sizeof(T);
  std::int64_t w = std::clamp(strip_workspace_budget / per_lane, min_strip, max_strip);
  w = std::max(line, w / line * line);
  const std::int64_t e0 = p.batch_rank > 0 ? p.batch_extents[0] : 1;
  return static_cast<int>(std::min(w, e0));
}

// cpu_thomas_partitioned (partitioned_thomas.hpp): chunks of at least partition_min_rows rows, so
// that the interface rows they add to the reduced system (solved by one thread per system) stay
// few; a lane group's a, b, c, d within partition_cache_bytes, so that each row's second read
// (the two sweeps of step 1 meet in the middle of the chunk) comes from the caches; and at least
// two lane groups per thread. The automatic pick wants systems of partition_auto_rows or more
// (two chunks): below, three parallel regions cost more than they save. It was 16384 before the
// chunk interiors ran in vector blocks; since, on the 16-core host (2026-11-28, 16 threads,
// bench/results/shapes/cpu-xeon-16c-h200host-partition-auto.txt) the partitioned solve of 1 to
// 13 systems of 2048-12000 contiguous rows takes 0.07-0.46x the strip kernel's time (float 8192 x
// 1: 0.074 against 0.599 ms), and on the development VM's 2 threads 0.29-0.95x.
constexpr std::int64_t partition_min_rows = 1024;
constexpr std::int64_t partition_cache_bytes = 1024 * 1024;
constexpr std::int64_t partition_auto_rows = 2 * partition_min_rows;

// The chunk count per system (size_partition caps it at n / 2).
template <class T>
std::int64_t partition_chunks(const Problem& p, int threads) {
  constexpr std::int64_t group_rows =
      partition_cache_bytes / (4 * static_cast<std::int64_t>(sizeof(T)) * cpu::partition_lanes);
  const std::int64_t for_threads =
      (2 * threads * cpu::partition_lanes + p.count - 1) / std::max<std::int64_t>(p.count, 1);
  const std::int64_t wanted = std::max((p.n + group_rows - 1) / group_rows, for_threads);
  std::int64_t k = std::max<std::int64_t>(2, std::min(wanted, p.n / partition_min_rows));
  // The lanes of a group are a chunk (q = n / k rows) apart; where q rows span a multiple of
  // 4 KiB, or nearly, every lane's rows fall into the same cache sets and evict each other
  // (10^7 double rows on 16 cores: 2441 chunks of 4096 rows, 25.7 GB/s; 1200 chunks 43.5, 5000
  // chunks 39.6). More chunks, one at a time (at most twice as many), move q off the multiple.
  const auto aliased = [&](std::int64_t chunks) {
    const std::int64_t bytes = (p.n / chunks) * static_cast<std::int64_t>(sizeof(T)) % 4096;
    return bytes < 512 || bytes > 4096 - 512;
  };
  for (const std::int64_t k0 = k; aliased(k) && k < 2 * k0 && k + 1 <= p.n / 2;) ++k;
  return k;
}

// cpu_thomas_partitioned on rows that are not contiguous (strip_partitioned.hpp): a task is one
// chunk of a strip of up to strip_partition_lanes neighbouring systems. A chunk's rows of the
// strip within partition_cache_bytes (read twice by step 1), at least two tasks per thread, and
// chunks of at least strip_partition_min_rows rows (a row here is a row of every lane).
constexpr std::int64_t strip_partition_min_rows = 256;

std::int64_t batch_extent0(const Problem& p) { return p.batch_rank > 0 ? p.batch_extents[0] : 1; }

std::int64_t partition_strips(const Problem& p) {
  constexpr std::int64_t L = cpu::strip_partition_lanes;
  const std::int64_t e0 = batch_extent0(p);
  return e0 == 0 ? 0 : (p.count / e0) * ((e0 + L - 1) / L);
}

template <class T>
std::int64_t strip_partition_chunks(const Problem& p, int threads) {
  const std::int64_t lanes =
      std::min<std::int64_t>(cpu::strip_partition_lanes, std::max<std::int64_t>(batch_extent0(p), 1));
  const std::int64_t row_bytes = 4 * static_cast<std::int64_t>(sizeof(T)) * lanes;
  // A task's chunks (strip_chunk_group of them) within the budget, and two tasks per thread.
  constexpr std::int64_t group = cpu::strip_chunk_group;
  const std::int64_t for_cache =
      (p.n * row_bytes * group + partition_cache_bytes - 1) / partition_cache_bytes;
  const std::int64_t strips = std::max<std::int64_t>(partition_strips(p), 1);
  const std::int64_t for_threads = (2 * threads + strips - 1) / strips * group + 1;
  const std::int64_t wanted = std::max(for_cache, for_threads);
  return std::max<std::int64_t>(2, std::min(wanted, p.n / strip_partition_min_rows));
}

// TRIAX_CPU_STRIP_PARTITION=0 (A/B runs) turns strip_partitioned.hpp's variant off: rows that are
// not contiguous go back to the strip kernel when picked automatically, and to the chunk-lane
// variant when cpu_thomas_partitioned is asked for. Read once per plan.
bool strip_partition_enabled() {
  const char* v = std::getenv("TRIAX_CPU_STRIP_PARTITION");
  return v == nullptr || std::string_view(v) != "0";
}

// Whether the chunk-lane variant of cpu_thomas_partitioned runs its middle rows in vector blocks
// (partitioned_thomas.hpp). Default: on in both precisions. On the 16-core host (AVX-512, 16
// threads, 10^7 x 1 to 10^5 x 64 along x, medians of 3 rounds in one call) the blocks took
// 0.33-0.39x the lane loops' time in float and 0.50-0.59x in double
// (docs/notes/2026-11-26-partitioned.md); the development VM's single core had measured double
// 1.2x slower. TRIAX_CPU_PARTITION_VECTOR=0 turns them off (A/B runs, tests). Read once per plan.
bool partition_vector_enabled() {
  const char* v = std::getenv("TRIAX_CPU_PARTITION_VECTOR");
  if (v == nullptr || *v == '\0') return true;
  return std::string_view(v) != "0";
}

// cpu_thomas_transpose reads rows that are not whole vectors (systems of a few rows, the tail of
// n) by whole vectors where those stay in what the solve reads (transpose_thomas.hpp): float
// along x took 0.81-0.94x the time at n = 5 to 31 on the 16-core Xeon host, double was level.
// TRIAX_CPU_TRANSPOSE_OVERREAD=0 turns it off (A/B runs, tests). Read once per plan.
bool transpose_overread_enabled() {
  const char* v = std::getenv("TRIAX_CPU_TRANSPOSE_OVERREAD");
  if (v == nullptr || *v == '\0') return true;
  return std::string_view(v) != "0";
}

// TRIAX_CPU_RANGE_GUARD (cpu/range_guard.hpp): unset, on Intel each kernel copy's own guard
// (getexp in the AVX-512 copy, scaled in the others) and scaled on other processors (below); "1" or "scaled", the scaled guard in every copy; "getexp"
// (the AVX-512 copy; the others run scaled); "0", for measurement only (bench/ab_range), the strip
// and transpose kernels take the pivot reciprocal 1/m without a guard (thomas_lanes.hpp,
// forward_row), and results outside the normal range are wrong. Read once per plan, which picks
// the kernel copy; the rows never test it. An unknown value is refused rather than timed as
// something else.
cpu::Guard range_guard_chosen() {
  const char* v = std::getenv("TRIAX_CPU_RANGE_GUARD");
  cpu::Guard g = cpu::Guard::automatic;
  if (!cpu::parse_guard(v, g)) {
    throw invalid_argument(std::string("triax: TRIAX_CPU_RANGE_GUARD=") + v + " names no range guard");
  }
#if defined(__x86_64__) || defined(__i386__)
  // getexp, the AVX-512 copy's own guard, was measured on Intel: on the 16-core Xeon host it cost
  // 0.90x the scaled guard's time where the arithmetic shows (double 128^3 along x) and stayed
  // within 2% of no guard at 256^3; on an AMD EPYC core with AVX-512 (the development VM) it took
  // 1.12-1.47x no guard in the caches where scaled took 0.96-1.09x
  // (docs/notes/2026-11-27-guard34.md). So unset means scaled on every other vendor.
  static const bool intel = __builtin_cpu_is("intel");
  if (g == cpu::Guard::automatic && !intel) g = cpu::Guard::scaled;
#endif
  return g;
}

// Whether every operand's rows are contiguous (partitioned_thomas.hpp's variant: each chunk one run
// of memory per operand; coefficients may also be one value for every row).
bool rows_contiguous_all(const Problem& p) {
  bool contiguous = true;
  for (int op = 0; op < operand_count; ++op) {
    contiguous = contiguous && (p.map[op].row_stride == 1 || (op < op_d && p.map[op].row_stride == 0));
  }
  return contiguous;
}

// The parallel work items of the strip kernel: strips of `width` systems along batch dimension 0.
std::int64_t strip_items(const Problem& p, int width) {
  const std::int64_t e0 = p.batch_rank > 0 ? p.batch_extents[0] : 1;
  return e0 == 0 ? 0 : (p.count / e0) * ((e0 + width - 1) / width);
}

// Whether the partitioned kernel should take a batch the other kernels would give `items`
// parallel work items: systems long enough to cut, and the other kernels keeping at most a quarter
// of the threads busy. Rows contiguous: partitioned_thomas.hpp (each chunk one run of memory per
// operand; its chunk lanes along other axes would share cache lines that different threads
// fetch, hence the strip variant below). On
// the 16-core host (docs/notes/2026-11-26-partitioned.md): 64 systems of 10^5 (2 groups of the
// transpose kernel) 10.4 / 19.2 GB/s float / double against 10.1 / 8.8; 256 of them (8 groups)
// 10.7 against 30.3 in float; 16 systems of 10^6 along y 4.2 against the strip kernel's 8.8.
bool partition_pays(const Problem& p, std::int64_t items, int threads, bool strip_variant) {
  if (threads <= 1 || 4 * items > threads) return false;
  if (rows_contiguous_all(p)) return p.n >= partition_auto_rows;
  // Rows apart, systems side by side (strip_partitioned.hpp): a few systems along an axis >= 1.
  // Its tasks read whole runs of neighbouring systems, so shorter systems than above may pay; one
  // thread does about 1.7x the strip kernel's work (5x176229 along y, double, one thread: 16.2
  // against 9.7 ms), so it needs the quarter rule: 4 threads per strip-kernel item, or more.
  return strip_variant && p.n >= 2 * strip_partition_min_rows;
}

template <class T>
class CpuPlan final : public BackendPlan<T> {
 public:
  CpuPlan(const Problem& p, const Options& o)
      : threads_(host_threads(o.num_threads)),
        strip_variant_(strip_partition_enabled()),
        range_guard_(range_guard_chosen()),
        vector_overread_(transpose_overread_enabled()) {
    constexpr int tile_lanes = cpu::TileShape<T>::lanes;
    // Every workspace size below is a product of n: refuse an n for which they would wrap (n
    // near 2^62 made them a few values) before forming any. Both kernels' per-thread scratch is
    // at most 2 (n + 64) max_strip values (strip: (2n + 4) width; tile: (2n + 4R) W).
    const std::int64_t max_elements = static_cast<std::int64_t>(std::min<std::size_t>(
        std::numeric_limits<std::int64_t>::max(), std::vector<T>().max_size()));
    if (p.n > max_elements / threads_ / (2 * max_strip) - 64) {
      throw invalid_argument("triax::Solver: n = " + std::to_string(p.n) +
                             " needs a cpu workspace larger than memory can address");
    }
    algorithm_ = o.algorithm;
    if (algorithm_ == Algorithm::automatic) {
      // Rows contiguous and enough systems to fill a tile: the local transpose; otherwise
      // neighbouring systems are side by side, and the strip kernel reads them directly.
      // Very long systems would need a huge tile workspace (c', d' of every row of W systems):
      // they go to the strip kernel, whose workspace is as wide as the batch line allows.
      const bool rows_contiguous = p.map[op_d].row_stride == 1 && p.map[op_x].row_stride == 1;
      const bool tile_fits = cpu::tile_scratch_elements<T>(p.n) * sizeof(T) <= tile_workspace_limit;
      algorithm_ = rows_contiguous && tile_fits && p.n > 1 && p.count >= tile_lanes
                       ? Algorithm::cpu_thomas_transpose
                       : Algorithm::cpu_thomas;
      const std::int64_t items = algorithm_ == Algorithm::cpu_thomas_transpose
                                     ? (p.count + tile_lanes - 1) / tile_lanes
                                     : strip_items(p, strip_width<T>(p));
      if (partition_pays(p, items, threads_, strip_variant_)) algorithm_ = Algorithm::cpu_thomas_partitioned;
    }
    if (algorithm_ == Algorithm::cpu_thomas) {
      width_ = strip_width<T>(p);
      per_thread_ = cpu::strip_scratch_elements(p.n, width_);
    } else if (algorithm_ == Algorithm::cpu_thomas_transpose) {
      per_thread_ = cpu::tile_scratch_elements<T>(p.n);
    } else if (algorithm_ == Algorithm::cpu_thomas_partitioned) {
      size_partition(p);
    } else {
      throw invalid_argument("triax::Solver: algorithm " + std::string(to_string(algorithm_)) +
                             " does not belong to the cpu backend");
    }
    work_.resize(per_thread_ * threads_);
    partition_.scratch = work_.data();
    info_per_thread_ = 2 * std::max(width_, tile_lanes);
    info_.resize(static_cast<std::size_t>(info_per_thread_) * threads_);
    // The widest copy the processor runs; TRIAX_CPU_ISA=baseline|avx2|avx512 forces one (the
    // tests run every copy the machine has).
    entry_ = cpu::pick_kernel(&cpu::solve_batch_baseline<T>, &cpu::solve_batch_avx2<T>,
                              &cpu::solve_batch_avx512<T>);
  }

  void solve(const Problem& p, const Operands<T>& ops) override {
    entry_({&p, ops, algorithm_, width_, threads_, work_.data(), per_thread_, info_.data(),
            info_per_thread_, partition_, range_guard_, vector_overread_});
  }

  Algorithm algorithm() const override { return algorithm_; }
  std::size_t workspace_bytes() const override {
    return work_.size() * sizeof(T) + info_.size() * sizeof(int) +
           relations_.size() * sizeof(cpu::ChunkRelations<T>) + boundary_.size() * sizeof(T) +
           findings_.size() * sizeof(cpu::RowFindings) + interface_bad_.size() * sizeof(int) +
           reduced_.size() * sizeof(long double);
  }

 private:
  int threads_;
  bool strip_variant_;
  cpu::Guard range_guard_;
  bool vector_overread_;
  Algorithm algorithm_;
  int width_ = 0;
  std::size_t per_thread_ = 0;
  int info_per_thread_ = 0;
  std::vector<T> work_;
  std::vector<int> info_;
  void (*entry_)(const cpu::Batch<T>&) = nullptr;
  // cpu_thomas_partitioned only.
  std::vector<cpu::ChunkRelations<T>> relations_;
  std::vector<T> boundary_;
  std::vector<cpu::RowFindings> findings_;
  std::vector<int> interface_bad_;
  std::vector<long double> reduced_;
  cpu::PartitionWork<T> partition_{};

  void size_partition(const Problem& p) {
    // TRIAX_CPU_PARTITION_CHUNKS=k (testing, tuning) replaces the chunk count. Chunks of at
    // least two rows; one chunk (n < 4) is Thomas on the whole system.
    const bool across = strip_variant_ && !rows_contiguous_all(p);
    std::int64_t k = across ? strip_partition_chunks<T>(p, threads_) : partition_chunks<T>(p, threads_);
    if (const char* forced = std::getenv("TRIAX_CPU_PARTITION_CHUNKS")) k = std::atoll(forced);
    k = std::max<std::int64_t>(1, std::min(k, p.n / 2));
    const auto count = static_cast<std::size_t>(p.count);
    relations_.resize(count * k);
    boundary_.resize(count * (k - 1));
    findings_.resize(count * k);
    interface_bad_.resize(count);
    reduced_.resize(static_cast<std::size_t>(threads_) * 2 * k);
    // kappa and delta of every row and lane of a group; the last chunk is the longest.
    const std::int64_t chunk_rows = p.n / k + k;
    const int lanes = across ? cpu::strip_partition_lanes * cpu::strip_chunk_group : cpu::partition_lanes;
    per_thread_ = static_cast<std::size_t>(2 * lanes * chunk_rows);
    partition_ = {k,
                  relations_.data(),
                  boundary_.data(),
                  findings_.data(),
                  interface_bad_.data(),
                  reduced_.data(),
                  nullptr,
                  static_cast<std::int64_t>(per_thread_),
                  across,
                  partition_vector_enabled()};
  }
};

}  // namespace

template <class T>
std::unique_ptr<BackendPlan<T>> make_cpu_plan(const Problem& p, const Options& o) {
  if (is_cpu_cyclic(o.algorithm)) return make_cpu_cyclic_plan<T>(p, o);
  return std::make_unique<CpuPlan<T>>(p, o);
}
template std::unique_ptr<BackendPlan<float>> make_cpu_plan(const Problem&, const Options&);
template std::unique_ptr<BackendPlan<double>> make_cpu_plan(const Problem&, const Options&);

}  // namespace triax::detail
