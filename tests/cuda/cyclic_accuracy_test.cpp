// The accuracy study of paper 001 (s.5.4) on the GPU (support/accuracy_study.hpp): the same
// problems, errors and bounds as tests/cpu/cyclic_accuracy_test.cpp for every cuda algorithm
// (the Thomas solvers and the five cyclic ones; an algorithm whose plan rejects a size, as
// cuda_warp_thomas_pcr past 512 / 256 rows, has no row there). With TRIAX_ACCURACY_JSON=FOLDER it
// writes FOLDER/cuda-float.json and cuda-double.json in the host test's format, for
// scripts/plot_accuracy.py (docs/accuracy.md). SKIPPED without a device.
#include <gtest/gtest.h>

#include <vector>

#include "support/accuracy_study.hpp"
#include "support/device_runner.hpp"

namespace triax::test {
namespace {

template <class T>
class CudaCyclicAccuracy : public NeedsDevice<> {};
using ValueTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CudaCyclicAccuracy, ValueTypes);

template <class T>
std::vector<T> device_solve(Backend backend, Algorithm alg, const StudyProblem<T>& p) {
  Solver<T> solver(backend, p.layout, 0, {.algorithm = alg});  // throws for a rejected size
  Batch<T> work = p.batch;
  DeviceBuffer<T> a(work.a), b(work.b), c(work.c), d(work.d), x(work.x);
  EXPECT_TRUE(a.get() && b.get() && c.get() && d.get() && x.get()) << "cudaMalloc failed";
  solver.solve(a.get(), b.get(), c.get(), d.get(), x.get());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  x.download(work.x);
  return work.x;
}

TYPED_TEST(CudaCyclicAccuracy, TwoMatrixSetsOfPaper001) {
  using T = TypeParam;
  const char* precision = sizeof(T) == 4 ? "float" : "double";
  std::vector<StudyRow> rows;
  run_study<T>(rows, study_problems<T>(), Backend::cuda,
               {Algorithm::cuda_thread_thomas, Algorithm::cuda_thread_thomas_shared_transpose,
                Algorithm::cuda_thread_thomas_shuffle_transpose, Algorithm::cuda_warp_thomas_pcr,
                Algorithm::cuda_block_thomas_pcr, Algorithm::cuda_cr, Algorithm::cuda_pcr,
                Algorithm::cuda_rd, Algorithm::cuda_cr_pcr, Algorithm::cuda_cr_rd},
               device_solve<T>);
  print_study(precision, rows);
  write_study_json("cuda", precision, rows);
}

}  // namespace
}  // namespace triax::test
