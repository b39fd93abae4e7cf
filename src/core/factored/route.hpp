#pragma once
// Which kernels a cuda factored plan of one matrix runs: its own Thomas kernels (one thread per
// system, reading the stored factors) or triax::Solver's Thomas-PCR hybrid given the matrix as
// broadcast diagonals (stride 0 across systems). Header-only so that the CPU tests check the
// decision without a device.
//
// Why the hybrid: a thread per system that sweeps n rows must park d' somewhere between its
// forward and backward passes; past the register kernels (n > 32) that is shared memory (the
// staged kernel, few systems a block) or global memory (4 arrays of traffic). The hybrid keeps a
// system's chunks in registers across a block and moves only d and x, and its loading code
// reaches ~95% of the copy on every axis with 5 arrays; with a, b, c broadcast they are a few
// cached rows (docs/notes/2026-11-27-factfast.md).
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/factored/chunk_table.hpp"
#include "triax/errors.hpp"

namespace triax::detail {

/// TRIAX_CUDA_FACTORED_ROUTE: `thomas` keeps the factored kernels, `hybrid` takes the hybrid
/// wherever it is allowed (any n, any matrix), unset or `auto` applies the rule below. `table`
/// (branch factcoef) routes as `hybrid` does up to hybrid_max_rows; inside the cuda_hybrid plan, `table` and `auto` run
/// the chunk table kernels (chunk_table.hpp) wherever table_applies() below holds, `hybrid`
/// never.
enum class FactoredRoute { automatic, thomas, hybrid, table };

inline FactoredRoute parse_factored_route(const char* value) {
  if (value == nullptr) return FactoredRoute::automatic;
  const std::string_view v(value);
  if (v.empty() || v == "auto") return FactoredRoute::automatic;
  if (v == "thomas") return FactoredRoute::thomas;
  if (v == "hybrid") return FactoredRoute::hybrid;
  if (v == "table") return FactoredRoute::table;
  throw invalid_argument("triax::FactoredSolver: TRIAX_CUDA_FACTORED_ROUTE = \"" + std::string(v) +
                         "\" is not one of auto, thomas, hybrid, table");
}

inline FactoredRoute factored_route_from_env() {
  return parse_factored_route(std::getenv("TRIAX_CUDA_FACTORED_ROUTE"));
}

/// Systems shorter than this keep the factored kernels under the automatic rule: up to 32 rows
/// the register kernels already move d and x only, and 33..63 rows fit the staged kernel's tile.
inline constexpr std::int64_t hybrid_min_rows = 64;

/// The longest systems the chunk table kernels hold (32 chunks of at most 32 rows).
inline constexpr std::int64_t table_max_rows = chunk_table_max_n;

/// Longer systems keep the factored kernels under `auto` and `table`: there the general hybrid
/// (the only alternative) gave a componentwise backward error of 121 eps on the slowly converging
/// matrix of the tests (double, n = 1025, along axis 2 of a 3-D grid; H100, 2026-11-27), past
/// the 64 eps that the factored solve is tested to, which the stored factors' Thomas kernels meet.
inline constexpr std::int64_t hybrid_max_rows = table_max_rows;

/// Whether every interior row (1 .. n-2) has |b| >= |a| + |c|. The hybrid's reduced system is
/// solved by PCR without pivoting, whose error is bounded for such matrices; for others the
/// stored Thomas factors (the same elimination the caller asked to factor) stay. The first and
/// last rows are free: compact schemes' closures are not dominant there (the Pade closure has
/// c[0] = 2 against b[0] = 1), and the hybrid eliminates them as Thomas does, in the first and
/// last chunks, whose pivots the clean factorisation (breakdown == 0) has already seen.
template <class T>
bool interior_dominant(const T* a, const T* b, const T* c, std::int64_t n) {
  for (std::int64_t i = 1; i + 1 < n; ++i) {
    const long double off =
        std::fabs(static_cast<long double>(a[i])) + std::fabs(static_cast<long double>(c[i]));
    if (!(std::fabs(static_cast<long double>(b[i])) >= off)) return false;
  }
  return true;
}

/// What the route decision looks at (one plan, after factoring).
struct HybridRouteFacts {
  bool cuda = false;       // the plan's backend is cuda
  bool automatic = false;  // the caller asked for FactoredAlgorithm::automatic
  std::int64_t groups = 1;
  bool checked = false;
  bool breakdown = false;  // factor_info() != 0
  bool scaled = false;     // the table scales d by a power of two
  std::int64_t n = 0;
  bool dominant = false;   // interior_dominant()
};

/// Whether an automatic cuda plan runs the hybrid. Never for what only the factored kernels
/// implement as factored.hpp specifies it: several groups (one matrix each), checked mode (info
/// from the stored factors' d'), a breakdown (NaN in every x) or a scaled table.
inline bool route_to_hybrid(const HybridRouteFacts& f, FactoredRoute route) {
  if (!f.cuda || !f.automatic || f.groups != 1 || f.checked || f.breakdown || f.scaled) return false;
  switch (route) {
    case FactoredRoute::thomas: return false;
    case FactoredRoute::hybrid: return true;
    case FactoredRoute::table: return f.n <= hybrid_max_rows;
    case FactoredRoute::automatic:  // interior rows dominant
      return f.n >= hybrid_min_rows && f.n <= hybrid_max_rows && f.dominant;
  }
  return false;
}

/// What decides, inside a cuda_hybrid plan that the hybrid may run, whether the chunk table
/// kernels run instead.
struct TableRouteFacts {
  std::int64_t n = 0;
  bool dominant = false;  // interior_dominant(): the reduced system's PCR needs no pivoting
  bool table_ok = false;  // chunk_matrix() met no zero or non-finite value
  bool single = false;    // float (else double)
  bool contiguous = false;  // d and x at row stride 1 (the warp kernel), else the strided one
};

/// Whether the plan runs the chunk table kernels (a warp kernel where rows are contiguous, a
/// strided one elsewhere; chunk_table_launch.cu): systems of n <= table_max_rows = 1024 rows
/// (32 chunks of at most 32 rows), matrices with dominant interior rows whose table was built.
/// `table` wherever that holds; `auto` where the table measured faster than the general hybrid
/// on the same plan (H100, n^3 cubes, 2026-11-27, bench/results/factored/gpu-h100-table.txt):
/// double on every axis (1.17-1.64x the general solve against 0.99-1.02x), float only along
/// strided axes past 256 rows (n = 512: 2.35-2.42x against 1.00x; at n = 128 and 256, and along
/// x, the hybrid was 1.1-1.8x faster). `hybrid` keeps the general hybrid (to compare).
inline bool table_applies(const TableRouteFacts& f, FactoredRoute route) {
  if (f.n < 1 || f.n > table_max_rows || !f.dominant || !f.table_ok) return false;
  switch (route) {
    case FactoredRoute::table: return true;
    case FactoredRoute::automatic: return !f.single || (!f.contiguous && f.n > 256);
    case FactoredRoute::thomas:
    case FactoredRoute::hybrid: return false;
  }
  return false;
}

/// What decides whether triax::Solver's cuda plan (block_thomas_pcr) solves a batch whose
/// systems all share one matrix (a, b, c with every batch stride 0) through a chunk table that it
/// builds on the device at each solve (cuda/factored/shared_matrix_route.cu), instead of the
/// general hybrid. Known when the plan is made; the matrix's values (dominance) only on the
/// device, which falls back to Thomas where the table is refused.
struct SharedMatrixFacts {
  std::int64_t n = 0;
  std::int64_t count = 0;
  bool shared = false;      // a, b and c: every batch stride 0
  bool single = false;      // float (else double)
  bool contiguous = false;  // d and x at row stride 1
  bool checked = false;     // info per system (the table has none: never routed)
};

/// TRIAX_CUDA_SHARED_MATRIX: `0` never, `1` wherever the route can run (n <= 1024, unchecked:
/// the tests' switch), unset the automatic rule.
enum class SharedMatrixSwitch { automatic, off, on };

inline SharedMatrixSwitch shared_matrix_switch_from_env() {
  const char* v = std::getenv("TRIAX_CUDA_SHARED_MATRIX");
  if (v == nullptr || v[0] == '\0') return SharedMatrixSwitch::automatic;
  return v[0] == '0' ? SharedMatrixSwitch::off : SharedMatrixSwitch::on;
}

/// Batches of fewer systems keep the hybrid under the automatic rule: the strided table kernel
/// holds 16 systems a block of 512 threads at n = 257..512, and 7182 float systems of 499 rows
/// along z ran 0.73x the hybrid (54x133x499; H200, 2026-11-29), 8281 of 500 0.94x, where 16384
/// of 500 ran 1.32x and 84966 of 511 along y 2.15x.
inline constexpr std::int64_t shared_matrix_min_systems = 16384;

/// Double also asks for this many rows in all (systems x n): 16384 double systems of 500 rows
/// along z ran 0.91x the hybrid, 32761 of 500 1.08x, and the strided 3-D grids of 2^24 points 1.10-1.46x
/// (H200, 2026-11-29, bench/results/shapes/gpu-h200-2026-11-29-sweep.txt).
inline constexpr std::int64_t shared_matrix_min_double_rows = std::int64_t{12} << 20;

/// Whether the plan's solves take the route. The automatic rule comes from
/// scripts/sweep-shared-matrix over n = 64..1000 along each axis of 3-D grids of 2^24 points, route
/// off against on in one call (H200, 2026-11-29, bench/results/shapes/gpu-h200-2026-11-29-sweep.txt):
/// - systems of at least hybrid_min_rows rows (float n = 17, 23, 33 and double n = 2 ran
///   0.67-0.79x the hybrid) and batches of at least shared_matrix_min_systems;
/// - float along strided axes past 256 rows (n = 300..1000: 1.44-1.94x; n = 64..256: 0.71-0.87x);
///   along x never (0.29-0.88x);
/// - double along strided axes everywhere (1.10-1.46x), along x up to 512 rows (0.96-1.26x; n =
///   700 and 1000 ran 0.73x and 0.82x), with shared_matrix_min_double_rows rows in all.
inline bool shared_matrix_route(const SharedMatrixFacts& f, SharedMatrixSwitch sw) {
  if (!f.shared || f.checked || f.n < 1 || f.n > table_max_rows || f.count < 1) return false;
  switch (sw) {
    case SharedMatrixSwitch::off: return false;
    case SharedMatrixSwitch::on: return true;
    case SharedMatrixSwitch::automatic:
      if (f.n < hybrid_min_rows || f.count < shared_matrix_min_systems) return false;
      if (f.single) return !f.contiguous && f.n > 256;
      return f.count * f.n >= shared_matrix_min_double_rows && (!f.contiguous || f.n <= 512);
  }
  return false;
}

}  // namespace triax::detail
