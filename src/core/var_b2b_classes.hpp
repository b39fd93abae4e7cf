#pragma once
// Back-to-back variable batches on the GPU (issue 31, varb2b): the systems bucketed by length
// class at plan time, so that each class runs one instance of the back-to-back hybrid kernel
// (cuda/varbatch/var_b2b_kernel.cuh) whose chunk threads per system (P) and rows per chunk (M)
// cover its longest system, and no system runs on threads sized for a much longer one.
// Host-only (no CUDA): the plan logic is tested in CI (tests/core/var_b2b_classes_test.cpp).
#include <cstdint>
#include <vector>

namespace triax::detail {

/// One system as the kernel reads it: where its row 0 lies (every operand alike, back to back)
/// and its rows. 16 bytes, read with one load per thread.
struct B2BEntry {
  std::int64_t offset;
  std::int64_t length;
};

/// One class: systems entries[first .. first + count) of the plan, each of 1 .. rows() rows,
/// solved by P chunk threads of at most M rows each.
struct B2BClass {
  int P = 0;
  std::int64_t first = 0, count = 0, longest = 0;
};

struct B2BPlan {
  static constexpr int M = 8;          // rows per chunk thread, both precisions
  static constexpr int min_P = 8;      // the smallest class: 64 rows
  static constexpr int max_P = 256;    // the largest: 2048 rows (a 256-thread block)
  static constexpr std::int64_t max_rows = std::int64_t(M) * max_P;
  std::vector<B2BClass> classes;       // by increasing P, none empty
  std::vector<B2BEntry> entries;       // the classes' systems, class after class
  std::vector<std::int64_t> rest;      // systems longer than max_rows (other kernels), in order
};

/// Buckets the systems (lengths[s] rows at offsets[s]) by the smallest P (a power of two from
/// min_P) with M P >= length; empty systems are left out (nothing to solve or write). A class of
/// fewer than `min_class_systems` systems joins the next larger one (whose threads cover its
/// lengths too): a launch that does not fill the device costs more than the idle chunk threads
/// it saves. Within a class, systems keep their order.
B2BPlan plan_b2b_classes(const std::vector<std::int64_t>& lengths,
                         const std::vector<std::int64_t>& offsets,
                         std::int64_t min_class_systems = 2048);

}  // namespace triax::detail
