// triax-bench-factored without CUDA: no GPU rows.
#include "factored_bench.hpp"

namespace triax::bench::factored {
bool gpu_available() { return false; }
std::vector<Row> gpu_rows(const Config&) { return {}; }
}  // namespace triax::bench::factored
