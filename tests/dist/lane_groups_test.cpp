// The CPU ranks' lane passes through triax::mpi::Solver on the world's ranks: the split axis 0
// (each system's rows contiguous: register transposes) and 1 (neighbouring systems adjacent:
// vector loads), system counts around the lane width W (1, W-1, W, W+1, 3W+5, 9W+3: tails and
// whole groups), piece lengths 1 (one rank), 2, 3 and 17, every method (the exact ones with both
// reduced forms, and Jacobi), in place, separate and increment, float and double, every compiled
// copy this processor runs (TRIAX_CPU_ISA): the exact methods within their bar against the
// reference backend, and every copy's output equal to the baseline copy's bit for bit (the lanes
// equal the scalar passes). Checked mode: a zero pivot in one system of a group reports that
// system only.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "dist/cpu_lanes/lane_passes.hpp"
#include "grid_solve.hpp"

namespace triax::test::dist {
namespace {

/// Sets TRIAX_CPU_ISA for its lifetime (every rank alike) and puts the old value back.
class IsaScope {
 public:
  explicit IsaScope(const char* value) {
    if (const char* old = std::getenv("TRIAX_CPU_ISA")) saved_ = old;
    setenv("TRIAX_CPU_ISA", value, 1);
  }
  ~IsaScope() {
    if (saved_) {
      setenv("TRIAX_CPU_ISA", saved_->c_str(), 1);
    } else {
      unsetenv("TRIAX_CPU_ISA");
    }
  }
  IsaScope(const IsaScope&) = delete;
  IsaScope& operator=(const IsaScope&) = delete;

 private:
  std::optional<std::string> saved_;
};

/// The copies this processor runs (the same answer on every rank of a host).
std::vector<const char*> usable_isas() {
  std::vector<const char*> isas = {"baseline"};
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (avx2) isas.push_back("avx2");
  if (avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw")) {
    isas.push_back("avx512");
  }
#endif
  return isas;
}

struct Form {
  mpi::Method method;
  mpi::ReducedRows rows;
};
constexpr Form forms[] = {{mpi::Method::allgather, mpi::ReducedRows::two_per_rank},
                          {mpi::Method::gather_scatter, mpi::ReducedRows::two_per_rank},
                          {mpi::Method::pcr, mpi::ReducedRows::two_per_rank},
                          {mpi::Method::pcr, mpi::ReducedRows::one_per_rank},
                          {mpi::Method::jacobi, mpi::ReducedRows::two_per_rank}};

/// Global extents with `systems` systems of `length` rows per rank along `axis` (0 or 1).
std::vector<std::int64_t> extents_of(int axis, std::int64_t systems, std::int64_t length) {
  const std::int64_t n = length * world_size();
  return axis == 0 ? std::vector<std::int64_t>{n, systems} : std::vector<std::int64_t>{systems, n};
}

template <class T>
void expect_lane_groups(bool checked_mode) {
  const std::vector<const char*> isas = usable_isas();
  for (int axis : {0, 1}) {
    std::vector<bool> splittable = {axis == 0, axis == 1};
    // W of the widest copy here: its counts cover the narrower copies' tails as well.
    std::int64_t width = 0;
    for (const char* isa : isas) {
      const IsaScope scope(isa);
      width = std::max<std::int64_t>(width, detail::dist_lanes::lane_passes<T>().width);
    }
    for (std::int64_t systems :
         {std::int64_t(1), width - 1, width, width + 1, 3 * width + 5, 9 * width + 3}) {
      for (std::int64_t length : {1, 2, 3, 17}) {
        if (length == 1 && world_size() > 1) continue;  // a split system needs 2 rows a piece
        const GlobalProblem<T> p(extents_of(axis, systems, length), axis,
                                 1000 + 10 * systems + length);
        for (const Form& form : forms) {
          for (Mode mode : {Mode::in_place, Mode::separate, Mode::increment}) {
            // Every mode with allgather, the others separate: the modes differ only in the
            // lanes' loads and stores, which every method shares.
            if (form.method != mpi::Method::allgather && mode != Mode::separate) continue;
            mpi::Options options;
            options.num_threads = 1;
            options.method = form.method;
            options.reduced_rows = form.rows;
            options.checked = checked_mode;
            std::vector<T> first_values;
            for (const char* isa : isas) {
              SCOPED_TRACE(std::string(isa) + ", axis " + std::to_string(axis) + ", systems " +
                           std::to_string(systems) + ", length " + std::to_string(length) + ", " +
                           std::string(mpi::to_string(form.method)) +
                           (form.rows == mpi::ReducedRows::one_per_rank ? " one row" : "") +
                           ", mode " + std::to_string(static_cast<int>(mode)));
              const IsaScope scope(isa);
              const GridSolve<T> got = solve_on_grid(p, splittable, mode, 1, options);
              EXPECT_TRUE(got.ghosts_clean);
              // Jacobi (its own tests hold it to its tolerance) is here for the copies' bits.
              if (form.method != mpi::Method::jacobi) {
                EXPECT_LE(got.error, p.allowed_error())
                    << "single-rank error " << p.single_rank_error;
                for (int i : got.info) EXPECT_EQ(i, 0);
              }
              // One rank, unchecked, hands whole systems to the single-process solver (whose
              // copies contract into FMA differently): the bits are compared where the local
              // passes run.
              if (world_size() == 1 && !checked_mode) continue;
              if (first_values.empty()) {
                first_values = got.values;
              } else {
                ASSERT_EQ(got.values.size(), first_values.size());
                int differ = 0;
                for (std::size_t e = 0; e < got.values.size(); ++e) {
                  differ += got.values[e] == first_values[e] ? 0 : 1;
                }
                EXPECT_EQ(differ, 0) << "elements that differ from the " << isas[0] << " copy";
              }
            }
          }
        }
      }
    }
  }
}

TEST(DistLaneGroups, DoubleEveryCopyEqualsTheExactBar) { expect_lane_groups<double>(false); }
TEST(DistLaneGroups, FloatEveryCopyEqualsTheExactBar) { expect_lane_groups<float>(false); }
TEST(DistLaneGroups, CheckedModeDouble) { expect_lane_groups<double>(true); }

TEST(DistLaneGroups, ZeroPivotInOneSystemOfAGroupReportsThatSystemOnly) {
  // 3W + 5 systems split along axis 0 or 1; the first rank's row 1 of system 2 gets b = 0 (and
  // a = c = 0 around it would keep the matrix regular elsewhere): the local pass divides by
  // that pivot, so system 2's rows go non-finite and info names a row of it; every other
  // system, in the same lane group or not, reports 0.
  const int ranks = world_size();
  for (const char* isa : usable_isas()) {
    const IsaScope scope(isa);
    const std::int64_t width = detail::dist_lanes::lane_passes<double>().width;
    const std::int64_t systems = 3 * width + 5, n = 5 * ranks;
    for (int axis : {0, 1}) {
      SCOPED_TRACE(std::string(isa) + ", axis " + std::to_string(axis));
      const GlobalProblem<double> p(extents_of(axis, systems, 5), axis, 31);
      const std::int64_t lo = piece_start(n, ranks, world_rank()),
                         hi = piece_start(n, ranks, world_rank() + 1);
      Block block;
      block.begin = axis == 0 ? std::vector<std::int64_t>{lo, 0} : std::vector<std::int64_t>{0, lo};
      block.extents = axis == 0 ? std::vector<std::int64_t>{hi - lo, systems}
                                : std::vector<std::int64_t>{systems, hi - lo};
      LocalBuffers<double> buf(p, block, 0);
      constexpr std::int64_t spoiled = 2;
      if (world_rank() == 0) {
        const std::vector<std::int64_t> at = axis == 0 ? std::vector<std::int64_t>{1, spoiled}
                                                       : std::vector<std::int64_t>{spoiled, 1};
        buf.b[buf.layout.offset_of(at)] = 0;
      }
      mpi::Options options;
      options.checked = true;
      options.num_threads = 1;
      mpi::Solver<double> solver(mpi::Decomposition::line(MPI_COMM_WORLD), buf.layout, axis,
                                 options);
      std::vector<int> info(systems, -7);
      solver.solve(buf.a.data(), buf.b.data(), buf.c.data(), buf.d.data(), buf.x.data(),
                   info.data());
      for (std::int64_t s = 0; s < systems; ++s) {
        if (s == spoiled) {
          EXPECT_GT(info[s], 0) << "system " << s;
        } else {
          EXPECT_EQ(info[s], 0) << "system " << s;
        }
      }
    }
  }
}

}  // namespace
}  // namespace triax::test::dist
