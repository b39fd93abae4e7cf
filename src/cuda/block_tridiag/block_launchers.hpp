#pragma once
// The launchers of the CUDA block tridiagonal kernels, as the block plan (cuda_block_plan.cu)
// calls them. Each enqueues on the stream, allocates nothing, never synchronises, launches
// through launch_kernel (so that a plan being made only loads its kernels), and in checked mode
// (ops.info != nullptr, device memory) fills info per system as the CPU block plan does.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/block_problem.hpp"
#include "triax/errors.hpp"

namespace triax::detail::cuda {

/// The largest M the CUDA block kernels take: the coop kernel's groups of lanes stay within a
/// warp, and a block row of the one-thread kernel within its registers.
inline constexpr int max_cuda_block_size = 8;

/// Throws for an M the kernels do not take (before a plan allocates anything).
inline void check_cuda_block_size(int m) {
  if (m < 1 || m > max_cuda_block_size) {
    throw invalid_argument("triax::BlockSolver: m = " + std::to_string(m) +
                           " is beyond the cuda block kernels (1 <= m <= " +
                           std::to_string(max_cuda_block_size) + ")");
  }
}

/// The workspace of both kernels: C*[i] and d*[i] of every block row of every system
/// (M * M + M values a block row), each kernel in its own system-interleaved order. Throws for
/// an M the kernels do not take, so that a plan fails before it allocates.
template <class T>
std::size_t cuda_block_workspace_bytes(const BlockProblem& p) {
  check_cuda_block_size(p.m);
  const std::size_t per_row = static_cast<std::size_t>(p.m) * (p.m + 1);
  return per_row * static_cast<std::size_t>(p.grid.n) * static_cast<std::size_t>(p.grid.count) *
         sizeof(T);
}

/// How cuda_block_coop_thomas passes C*[i-1] and d*[i-1] between the lanes of a group and how
/// it sizes its registers; every variant moves the same global bytes in the same order, so the
/// bound of the kernel (bench/gpu_block_bound.cu) is the same for all of them:
///   shuffle           one __shfl_sync a value (M (M + 1) a block row; the kernel before
///                     2026-11-27, 83-107% of the bound on the H100 where shared has 87-118%);
///   shared            each lane stores its row of C*[i-1] | d*[i-1] in shared memory once and
///                     reads the group's M (M + 1) values back as 16-byte broadcasts (a quarter
///                     or half of the instructions), loads its blocks' rows at immediate
///                     offsets where the blocks have column stride 1, and indexes the workspace
///                     at one multiply-add an entry (the default: the fastest or within 2% of
///                     the fastest variant on every row measured, H100 2026-11-27);
///   shared_occupancy  shared, its registers capped per precision and M to fit more thread
///                     blocks an SM with few spills in the row loops (block_coop_thomas.cuh,
///                     coop_min_blocks).
enum class CoopVariant { shuffle, shared, shared_occupancy };

/// The tuning sweep of issue 27's last row (float M = 8): knobs of the `shared` variant that
/// TRIAX_CUDA_BLOCK_COOP names as tuned_w<W>[_r<R>][_rcp][_ls] (docs/notes/2026-11-27-coop8.md):
///   W    warps a thread block (2, 4, 8; `shared` has 4): more, smaller or larger blocks an SM;
///   R    registers a thread at most (as __launch_bounds__ thread blocks an SM; 0: ptxas's
///        choice): occupancy against spills;
///   rcp  the pivot's reciprocal as the approximate hardware one (about 1 ulp, no slow path
///        nor its branches) instead of an IEEE division: a shorter chain in the pivot-block LU;
///   ls   late scaling: the back substitution scales each lane's row once at the end instead of
///        issuing M (M + 1) multiplies predicated on one lane (block_coop_thomas.cuh LateScale).
/// Only the combinations of coop_tunes are compiled, each for float M = 5 and 8 on blocks of
/// column stride 1 (block_coop_tuned.cuh); any other precision, M or layout runs `shared`.
struct CoopTune {
  int warps = 4;
  int max_regs = 0;
  bool approx_rcp = false;
  bool late_scale = false;
  friend constexpr bool operator==(const CoopTune&, const CoopTune&) = default;
};
/// What the sweep kept (H100, 2026-11-27, bench/results/block/gpu-h100-coop-sweep.txt: 16 knob
/// sets at float M = 8, 82.6-90.1% of the bound): late scaling under a 64-register cap (89.7%,
/// `shared` 86.7%), and the same with the approximate reciprocal (90.1%), float M = 8's default
/// since that reciprocal brings pivots beyond 2^126 or below 2^-126 into range by a power of two
/// first (block_coop_thomas.cuh `reciprocal`; tests: SystemsScaledByPowersOfTwoSolveAsTheUnscaled),
/// and still the faster of the two on an H200 with the scaling (1.581-1.583 against 1.602-1.603 ms,
/// three processes; bench/results/block/gpu-h200-coop-m8.txt).
inline constexpr CoopTune coop_tunes[] = {{4, 64, false, true}, {4, 64, true, true}};
inline constexpr CoopTune float_m8_default_tune = coop_tunes[1];

/// A coop variant and, for a tuned one (V = shared), its knobs.
struct CoopChoice {
  CoopVariant variant = CoopVariant::shared;
  bool tuned = false;
  CoopTune tune;
  /// Nothing asked for (TRIAX_CUDA_BLOCK_COOP unset or empty): float M = 8 takes
  /// float_m8_default_tune, everything else `shared`. An explicit `shared` is `shared` everywhere.
  bool automatic = true;
};

/// tuned_w<W>[_r<R>][_rcp][_ls] as a CoopTune, or nothing where v is not such a name of coop_tunes.
inline std::optional<CoopTune> parse_coop_tune(std::string_view v) {
  constexpr std::string_view prefix = "tuned_w";
  if (v.substr(0, prefix.size()) != prefix) return std::nullopt;
  v.remove_prefix(prefix.size());
  auto number = [&v](int& out) {
    std::size_t digits = 0;
    out = 0;
    while (digits < v.size() && digits < 3 && v[digits] >= '0' && v[digits] <= '9') {
      out = out * 10 + (v[digits++] - '0');
    }
    v.remove_prefix(digits);
    return digits > 0;
  };
  CoopTune t;
  if (!number(t.warps)) return std::nullopt;
  if (v.substr(0, 2) == "_r" && v.size() > 2 && v[2] >= '0' && v[2] <= '9') {
    v.remove_prefix(2);
    if (!number(t.max_regs)) return std::nullopt;
  }
  auto flag = [&v](std::string_view name) {
    if (v.substr(0, name.size()) != name) return false;
    v.remove_prefix(name.size());
    return true;
  };
  t.approx_rcp = flag("_rcp");
  t.late_scale = flag("_ls");
  if (!v.empty()) return std::nullopt;
  for (const CoopTune& known : coop_tunes) {
    if (known == t) return t;
  }
  return std::nullopt;
}

/// TRIAX_CUDA_BLOCK_COOP = shuffle | shared | shared_occupancy | tuned_... (unset or empty:
/// shared), read by each cuda block plan when it is made, so that one process can compare them.
inline CoopChoice parse_coop_choice(const char* value) {
  const std::string_view v(value == nullptr ? "" : value);
  if (v.empty()) return {};
  if (v == "shared") return {CoopVariant::shared, false, {}, false};
  if (v == "shuffle") return {CoopVariant::shuffle, false, {}, false};
  if (v == "shared_occupancy") return {CoopVariant::shared_occupancy, false, {}, false};
  if (const auto tune = parse_coop_tune(v)) return {CoopVariant::shared, true, *tune, false};
  throw invalid_argument(
      "triax::BlockSolver: TRIAX_CUDA_BLOCK_COOP = \"" + std::string(v) +
      "\" is not one of shuffle, shared, shared_occupancy, tuned_w<W>[_r<R>][_rcp][_ls]"
      " (block_launchers.hpp: coop_tunes)");
}
inline CoopChoice coop_choice_from_env() {
  return parse_coop_choice(std::getenv("TRIAX_CUDA_BLOCK_COOP"));
}

template <class T>
void cuda_block_thread_thomas(const BlockProblem& p, const Operands<T>& ops, void* workspace,
                              cudaStream_t stream);
template <class T, CoopVariant V>
void cuda_block_coop_variant(const BlockProblem& p, const Operands<T>& ops, void* workspace,
                             cudaStream_t stream);
/// The tuned kernel of knobs (Warps, MaxRegs, ApproxRcp, LateScale) where it is compiled for p's M,
/// mode and layout (block_coop_tuned.cuh); false, launching nothing, elsewhere.
template <class T, int Warps, int MaxRegs, bool ApproxRcp, bool LateScale>
bool cuda_block_coop_tuned(const BlockProblem& p, const Operands<T>& ops, void* workspace,
                           cudaStream_t stream);

/// The tuned kernel of t, or false where none is compiled (only float has them).
template <class T, std::size_t I = 0>
bool launch_coop_tune(const CoopTune& t, const BlockProblem& p, const Operands<T>& ops,
                      void* workspace, cudaStream_t stream) {
  if constexpr (!std::is_same_v<T, float> || I == std::size(coop_tunes)) {
    return false;
  } else {
    constexpr CoopTune k = coop_tunes[I];
    if (t == k) {
      return cuda_block_coop_tuned<T, k.warps, k.max_regs, k.approx_rcp, k.late_scale>(
          p, ops, workspace, stream);
    }
    return launch_coop_tune<T, I + 1>(t, p, ops, workspace, stream);
  }
}

template <class T>
void cuda_block_coop_thomas(const BlockProblem& p, const Operands<T>& ops, void* workspace,
                            cudaStream_t stream, const CoopChoice& choice = {}) {
  switch (choice.variant) {
    case CoopVariant::shuffle:
      return cuda_block_coop_variant<T, CoopVariant::shuffle>(p, ops, workspace, stream);
    case CoopVariant::shared:
      if (choice.tuned && launch_coop_tune<T>(choice.tune, p, ops, workspace, stream)) return;
      if (choice.automatic && p.m == 8 &&
          launch_coop_tune<T>(float_m8_default_tune, p, ops, workspace, stream)) {
        return;
      }
      return cuda_block_coop_variant<T, CoopVariant::shared>(p, ops, workspace, stream);
    case CoopVariant::shared_occupancy:
      return cuda_block_coop_variant<T, CoopVariant::shared_occupancy>(p, ops, workspace, stream);
  }
}

}  // namespace triax::detail::cuda

/// In a kernel's per-precision .cu, inside namespace triax::detail::cuda.
#define TRIAX_INSTANTIATE_BLOCK_LAUNCHER(name, T) \
  template void name<T>(const BlockProblem&, const Operands<T>&, void*, cudaStream_t);
