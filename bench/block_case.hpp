#pragma once
// Block tridiagonal rows of triax-bench: what one case is, the paper's sizes, the flop count of
// Algorithm 12, and the runner (block_runner.cpp) with its LAPACK ?gbsv baseline
// (block_baseline.cpp).
#include <cstdint>
#include <string>
#include <vector>

#include "case.hpp"

namespace triax::bench {

/// One block case: systems along `axis` of a grid, stored array of blocks (each block
/// contiguous, row-major; along grid axis 0 each system's blocks are contiguous: paper 000's CPU
/// layout, Fig. 17) or, with `interleaved`, in the interleaved layout of the axis (block row i of
/// neighbouring systems side by side: the paper's GPU layout, Fig. 14-15).
struct BlockCase {
  Backend backend = Backend::cpu;  ///< cpu (with ?gbsv) or cuda (with the one-thread kernel)
  bool interleaved = false;
  Precision precision = Precision::f64;
  int m = 2;
  std::vector<std::int64_t> grid;
  int axis = 0;
  int reps = 20;
  bool baselines = true;
  bool bound = false;  ///< cuda: also time each kernel's arithmetic-free bound (--block-bound)
  /// cuda: the coop kernel once per variant (TRIAX_CUDA_BLOCK_COOP values; rows named
  /// cuda_block_coop_thomas:<variant>) and no conversion rows (--block-coop-variants)
  std::vector<std::string> coop_variants;
};

/// Paper 000, Tables III-IV (CPU): N = 128 block rows and P = 65536 systems for M <= 6, N = 96
/// and P = 32768 for M = 7, 8; P divided by `p_divisor` to fit smaller machines.
BlockCase paper_block_case(Precision precision, int m, std::int64_t p_divisor, int reps);

/// Floating-point operations of Algorithm 12 on one system of n block rows (a fused multiply-add
/// counts 2, as the paper counts them): per row i > 0, P = B - A C* (2M^3) and d - A d* (2M^2);
/// the LU of P without pivoting; forward and back substitution for the M columns of C[i]
/// (none on the last row) and for d; then u[i] = d*[i] - C*[i] u[i+1] (2M^2) for i < n - 1.
double block_thomas_flops(int m, std::int64_t n);

/// Values a perfect solver moves per block row: read A, B, C (3 M^2) and d, write u (2 M).
inline double block_row_values(int m) { return 3.0 * m * m + 2.0 * m; }

/// Calls run(T{}) with T = float or double, the case's precision.
template <class Run>
void with_block_precision(const BlockCase& c, Run&& run) {
  if (c.precision == Precision::f32) {
    run(float{});
  } else {
    run(double{});
  }
}

void run_block_case(const BlockCase& c, const CopyReference& copy, std::vector<Row>& rows);
/// `bound`: with the columns of --block-bound.
void print_block_header(bool bound);
void print_block_row(const Row& row);

}  // namespace triax::bench
