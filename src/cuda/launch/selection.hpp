#pragma once
// Which CUDA algorithm a plan runs: the table of the algorithms built into this version and the
// automatic choice among them (selection.cpp).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/problem.hpp"
#include "triax/options.hpp"

namespace triax::detail::cuda {

/// One CUDA algorithm as the plan sees it: its launcher triple (launch/kernels.hpp).
template <class T>
struct CudaAlgorithm {
  Algorithm name;
  bool checks;  // can fill info in checked mode
  bool (*supports)(const Problem&);
  std::size_t (*workspace)(const Problem&);
  void (*run)(const Problem&, const Operands<T>&, void*, cudaStream_t);
  std::int64_t max_rows = 0;  // the longest system it solves (0: any), named when n exceeds it
};

/// The algorithm for a plan: the forced one if options name one (invalid_argument, naming it,
/// when it is not a CUDA algorithm built here or cannot take this problem or mode), else the
/// automatic choice.
template <class T>
CudaAlgorithm<T> choose_cuda_algorithm(const Problem& p, const Options& o);

}  // namespace triax::detail::cuda
