// The CPU backend of triax::FactoredSolver: the table of factors, a strip width, per-thread
// scratch sized once, and the lanes kernel (strips.inc: AVX-512, AVX2 or portable copy) over
// OpenMP threads.
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <string>
#include <vector>

#if __has_include(<unistd.h>)
#include <unistd.h>
#endif

#include "core/factored/factored_plan.hpp"
#include "core/omp_threads.hpp"
#include "cpu/batch.hpp"
#include "cpu/factored/strip_work.hpp"
#include "cpu/isa.hpp"

namespace triax::detail {
namespace {

// The scratch of d' a strip keeps between its passes: within L2 with room for the rows it reads
// (the strip kernel's budget, docs/algorithms.md "Strip kernel").
constexpr std::int64_t strip_budget_bytes = std::int64_t(1) << 20;
// The same where d and x exceed the last-level cache (lanes contiguous, axes >= 1): each row of a
// strip is one run of budget / n bytes, a row stride from the next, and the host ran faster the
// longer the runs (512^3, 16 threads: 2 KiB runs 62-65% of the stream reference, whole
// contiguous rows 107%, 1 KiB runs 53-74%; docs/notes/2026-11-27-fdcpu2.md). A scratch this
// size spills from L2 into L3, whose bandwidth is several times the memory's (at most a quarter
// of it for all threads together); up to `wide_strip_lanes` lanes.
constexpr std::int64_t wide_strip_budget_bytes = std::int64_t(4) << 20;
constexpr std::int64_t wide_strip_lanes = 8192;

/// An integer switch, or `fallback` where unset or empty.
long env_number(const char* name, long fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtol(v, nullptr, 10) : fallback;
}

/// The last-level cache's size (the processor's L3 where the C library reports it;
/// TRIAX_CPU_FACTORED_LLC=KiB pretends another, so that tests reach the rules for large solves).
std::int64_t last_level_cache_bytes() {
  const long kib = env_number("TRIAX_CPU_FACTORED_LLC", 0);
  if (kib > 0) return std::int64_t(kib) << 10;
#if defined(_SC_LEVEL3_CACHE_SIZE)
  const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
#else
  const long l3 = 0;
#endif
  return l3 > 0 ? l3 : std::int64_t(32) << 20;
}

/// Whether d and x together exceed the last-level cache.
bool beyond_last_level_cache(const Problem& p, std::size_t value_bytes) {
  const std::int64_t bytes = 2 * p.n * p.count * static_cast<std::int64_t>(value_bytes);
  return bytes > last_level_cache_bytes();
}

/// The kernel's switches, read once per plan: TRIAX_CPU_FACTORED_ROUND=1 runs the kernel of two
/// rounds back (no streaming, no prefetch, axis 0 through the scratch), for A/B runs in one
/// process; TRIAX_CPU_FACTORED_STREAM=1 streams x wherever it can, 0 nowhere, unset (auto):
/// along axis 0 always, along the other axes where d and x together exceed the last-level
/// cache (smaller solves find x's lines in it, and streaming would send them to memory);
/// TRIAX_CPU_FACTORED_AHEAD=k asks for d's rows k rows early (0: not at all).
/// TRIAX_CPU_FACTORED_ROUND=2 the round before this one (fdcpu): register transposes along axis 0
/// in the AVX-512 copy only, strips within 1 MiB and 1024 lanes at every size.
/// TRIAX_CPU_FACTORED_BOUND=1 makes the plan's solve the arithmetic-free bound (x = d through
/// the same strips and stores; triax-bench-factored's reference, never a solve).
cpu_factored::StripTuning tuning_from_env(const Problem& p, std::size_t value_bytes) {
  cpu_factored::StripTuning t;
  const long round = env_number("TRIAX_CPU_FACTORED_ROUND", 0);
  t.fresh = round != 1;
  t.registers_every_isa = round != 1 && round != 2;
  const long stream = env_number("TRIAX_CPU_FACTORED_STREAM", -1);
  t.stream = t.fresh && (stream == 1 || (stream != 0 && beyond_last_level_cache(p, value_bytes)));
  t.stream_registers = t.fresh && stream != 0;
  t.bound = env_number("TRIAX_CPU_FACTORED_BOUND", 0) == 1;
  t.ahead = t.fresh ? static_cast<int>(std::clamp<long>(
                          env_number("TRIAX_CPU_FACTORED_AHEAD", t.ahead), 0, 64))
                    : 0;
  return t;
}

template <class T>
class CpuFactoredPlan final : public FactoredBackendPlan<T> {
 public:
  CpuFactoredPlan(const Problem& p, const Options& o, const FactorTable<T>& table)
      : threads_(host_threads(o.num_threads)), table_(table), tuning_(tuning_from_env(p, sizeof(T))) {
    const std::int64_t e0 = p.batch_rank > 0 ? p.batch_extents[0] : 1;
    const bool lanes_contiguous = p.batch_rank == 0 || (p.map[op_d].batch_strides[0] == 1 &&
                                                        p.map[op_x].batch_strides[0] == 1);
    // Contiguous lanes: wide strips, long runs per row for the prefetcher (up to 1024 lanes:
    // a whole 4 KiB page of floats a row; 256^3 float along z 10% faster than 512 on the VM,
    // one thread; TRIAX_CPU_FACTORED_MOST sets it for measurements). Gathered lanes (axis 0):
    // 32 systems, enough independent chains for the vector units, few streams.
    // Beyond the last-level cache wide strips (wide_strip_budget_bytes), unless the round
    // before this one is asked for (TRIAX_CPU_FACTORED_ROUND=2).
    const bool wide = tuning_.registers_every_isa && lanes_contiguous &&
                      beyond_last_level_cache(p, sizeof(T));
    const std::int64_t most =
        !lanes_contiguous ? 32
        : tuning_.fresh   ? env_number("TRIAX_CPU_FACTORED_MOST", wide ? wide_strip_lanes : 1024)
                          : 512;
    // TRIAX_CPU_FACTORED_BUDGET=k (KiB) sets the budget for measurements; not the previous round's.
    // The wide scratches of all threads within a quarter of the cache (a 32 MiB L3 at 8 threads
    // keeps 1 MiB strips: their scratch would otherwise go to memory).
    const std::int64_t wide_budget = std::clamp<std::int64_t>(
        last_level_cache_bytes() / (4 * std::max(1, threads_)), strip_budget_bytes,
        wide_strip_budget_bytes);
    const long kib = env_number("TRIAX_CPU_FACTORED_BUDGET",
                                (wide ? wide_budget : strip_budget_bytes) >> 10);
    const std::int64_t budget =
        tuning_.fresh ? std::int64_t(std::max<long>(16, kib)) << 10 : strip_budget_bytes;
    std::int64_t w = budget / std::max<std::int64_t>(1, p.n * std::int64_t(sizeof(T)));
    w = std::clamp<std::int64_t>(w, 1, most);
    if (w > 8) w -= w % 8;
    width_ = static_cast<int>(std::max<std::int64_t>(1, std::min(w, e0)));
    e0_ = e0;
    per_thread_ = static_cast<std::size_t>(p.n * width_ + width_);
    work_.resize(per_thread_ * threads_);
    info_.resize(static_cast<std::size_t>(2 * width_ * threads_));
    // The widest copy the processor runs; TRIAX_CPU_ISA forces one (as for the scalar kernels:
    // the tests run every copy the machine has).
    entry_ =
        cpu::pick_kernel(&cpu_factored::run_strips_baseline<T>, &cpu_factored::run_strips_avx2<T>,
                         &cpu_factored::run_strips_avx512<T>);
  }

  void solve(const Problem& p, const FactoredOperands<T>& ops) override {
    const cpu_factored::StripWork<T> sw{threads_,     width_,       e0_,    work_.data(),
                                        per_thread_, info_.data(), tuning_};
    entry_(p, ops, table_.view(), sw);
  }

  std::size_t workspace_bytes() const override {
    return work_.size() * sizeof(T) + info_.size() * sizeof(int) + table_.rows.size() * sizeof(T);
  }

 private:
  int threads_;
  FactorTable<T> table_;
  cpu_factored::StripTuning tuning_;
  int width_ = 1;
  std::int64_t e0_ = 1;
  std::size_t per_thread_ = 0;
  std::vector<T> work_;
  std::vector<int> info_;
  cpu_factored::StripEntry<T> entry_ = nullptr;
};

}  // namespace

template <class T>
std::unique_ptr<FactoredBackendPlan<T>> make_cpu_factored_plan(const Problem& p, const Options& o,
                                                               const FactorTable<T>& table) {
  return std::make_unique<CpuFactoredPlan<T>>(p, o, table);
}
template std::unique_ptr<FactoredBackendPlan<float>> make_cpu_factored_plan(
    const Problem&, const Options&, const FactorTable<float>&);
template std::unique_ptr<FactoredBackendPlan<double>> make_cpu_factored_plan(
    const Problem&, const Options&, const FactorTable<double>&);

}  // namespace triax::detail
