#pragma once
// What the CPU factored plan hands its kernels: the strips to run and each thread's scratch.
// The kernels (strips.inc) are compiled once per instruction set; the plan picks one.
#include <cstdint>

#include "core/factored/factor_table.hpp"
#include "core/factored/factored_plan.hpp"
#include "core/problem.hpp"

namespace triax::detail::cpu_factored {

/// How the kernel moves memory (cpu_factored_plan.cpp reads the switches once per plan).
struct StripTuning {
  // false: the previous round's kernel exactly (TRIAX_CPU_FACTORED_ROUND=1), for A/B runs.
  bool fresh = true;
  // A separate output written with streaming stores where whole lines allow, past the caches
  // and never read from memory first: `stream` along axes >= 1 (d' then stays in the scratch,
  // not in x's rows), `stream_registers` along axis 0 (register_lanes.hpp).
  bool stream = true;
  bool stream_registers = true;
  // Axis 0 through register transposes in every copy that has vector registers (AVX2, SSE2),
  // not only AVX-512 (false: the previous round's choice, TRIAX_CPU_FACTORED_ROUND=2).
  bool registers_every_isa = true;
  // Rows ahead of the forward step that d's row is asked for (0: none). TRIAX_CPU_FACTORED_AHEAD.
  int ahead = 6;
  // The arithmetic-free bound (TRIAX_CPU_FACTORED_BOUND=1, for triax-bench-factored): the same
  // strips, groups, threads, prefetches and stores, but x = d with no solve between (strips.inc).
  bool bound = false;
};

template <class T>
struct StripWork {
  int threads;
  int width;                  // lanes of a strip
  std::int64_t e0;            // systems along the fastest batch dimension (lanes come from it)
  T* work;                    // per thread: n x width values of d', then width values
  std::size_t per_thread;     // values of work per thread
  int* info;                  // per thread: 2 x width ints (checked mode)
  StripTuning tuning;
};

template <class T>
using StripEntry = void (*)(const Problem&, const FactoredOperands<T>&, const FactorView<T>&,
                            const StripWork<T>&);

template <class T>
void run_strips_baseline(const Problem&, const FactoredOperands<T>&, const FactorView<T>&,
                         const StripWork<T>&);
template <class T>
void run_strips_avx2(const Problem&, const FactoredOperands<T>&, const FactorView<T>&,
                     const StripWork<T>&);
template <class T>
void run_strips_avx512(const Problem&, const FactoredOperands<T>&, const FactorView<T>&,
                       const StripWork<T>&);

}  // namespace triax::detail::cpu_factored
